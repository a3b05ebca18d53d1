/**
 * The web library's session cookie, as the API reads it and the web routes (`@verbatim/web`) write
 * it: `HttpOnly`, `SameSite=Lax`, `Path=/`, and over https `Secure` with the `__Host-` prefix (the
 * browser then refuses it from anything but this exact origin over https). The cookie holds only
 * the session token (core's `WebSessions`), never an API key. Requests that may change something
 * carry the session's CSRF token in `X-CSRF-Token` (`csrfHeader`).
 */
import type { HttpServerRequest } from "@effect/platform"

/** The cookie's name over http (a server on this machine or a private network). */
export const sessionCookie = "verbatim_session"
/** The cookie's name over https: `__Host-` binds it to this origin, `Secure` and `Path=/`. */
export const secureSessionCookie = "__Host-verbatim_session"
/** The request header that carries the session's CSRF token (lower case, as node gives headers). */
export const csrfHeader = "x-csrf-token"

/** The session token a request's cookies carry, if any (the secure cookie first). */
export const sessionTokenOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  if (request.headers.cookie === undefined) return undefined
  const cookies = request.cookies
  const token = cookies[secureSessionCookie] ?? cookies[sessionCookie]
  return token === undefined || token === "" ? undefined : token
}

/**
 * The web library's paths (`@verbatim/web`): its pages, sign-in and sign-out, and its assets
 * (hashed names, cached for good). Named here so that metrics and logs know them as routes.
 */
export const webPaths = {
  library: "/",
  reader: "/read/:video_id",
  transcribe: "/transcribe",
  account: "/account",
  signIn: "/sign-in",
  signOut: "/sign-out",
  asset: "/web/:file"
} as const

/** The web library's routes, as `[method, template]`. */
export const webRoutes: ReadonlyArray<readonly [string, string]> = [
  ["GET", webPaths.library],
  ["GET", webPaths.reader],
  ["GET", webPaths.transcribe],
  ["GET", webPaths.account],
  ["GET", webPaths.signIn],
  ["POST", webPaths.signIn],
  ["POST", webPaths.signOut],
  ["GET", webPaths.asset]
]
