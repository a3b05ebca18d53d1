/**
 * The web library's routes on the API server's router (same origin as the API, no deployment of
 * its own):
 *
 * | route | what |
 * |---|---|
 * | GET /, /read/:video_id, /transcribe, /account | the pages' shell for a signed-in session; else 303 to /sign-in |
 * | GET /sign-in | the sign-in page (a form, no script) |
 * | POST /sign-in | the form: an API key becomes a session (core's `WebSessions`), its token in an HttpOnly cookie; 303 to / |
 * | POST /sign-out | ends the session (its CSRF token required), clears the cookie; 303 to /sign-in |
 * | GET /web/:file | the bundle, under names that carry its hash, cached for good |
 *
 * The pages read and change data through the API's own routes (`/api/v2/...`), with the session
 * cookie as their credential and the CSRF token in `X-CSRF-Token` on every change (`@verbatim/api`'s
 * `authorize`): the same use cases, rate limit and answers as any API client.
 *
 * Signing in is refused from another site (`Sec-Fetch-Site`, else `Origin`), so no page elsewhere
 * can sign a browser into someone else's account; attempts are rate-limited per client address.
 * The key typed is only read from the form's body: it never reaches a URL, a page, the browser's
 * storage or a log.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  clientAddress,
  csrfHeader,
  secureSessionCookie,
  sessionCookie,
  sessionTokenOf,
  useCase,
  webPaths
} from "@verbatim/api"
import { ServiceUrl, WebSessions, webSessionLifetimes } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Duration, Effect, Option } from "effect"
import { type Assets, loadAssets } from "./assets.js"
import { pageHeaders, sessionInfo, shellPage, signInPage } from "./pages.js"

/** The pages that show the library (the bundle draws each from its URL). */
export const pagePaths: ReadonlyArray<string> = [
  webPaths.library,
  webPaths.reader,
  webPaths.transcribe,
  webPaths.account
]

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...pageHeaders, ...headers }
  })

const seeOther = (location: string, cookie?: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: {
      location,
      "cache-control": "no-store",
      ...(cookie === undefined ? {} : { "set-cookie": cookie })
    }
  })

/** Whether a request comes from a page of this origin (or was typed by the person: no site at all). */
export const sameOrigin = (request: HttpServerRequest.HttpServerRequest, serviceOrigin: string): boolean => {
  const site = request.headers["sec-fetch-site"]
  if (site !== undefined) return site === "same-origin" || site === "none"
  const origin = request.headers.origin
  if (origin === undefined) return true
  if (origin === serviceOrigin) return true
  try {
    return new URL(origin).host === request.headers.host
  } catch {
    return false
  }
}

/**
 * The session cookie's `Set-Cookie` values for a service at `serviceUrl`: `HttpOnly`, `SameSite=Lax`,
 * `Path=/`, for the session's absolute lifetime; over https also `Secure`, under the `__Host-` name.
 */
export const sessionCookieFor = (serviceUrl: string) => {
  const secure = new URL(serviceUrl).protocol === "https:"
  const name = secure ? secureSessionCookie : sessionCookie
  const tail = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`
  return {
    setCookie: (token: string) =>
      `${name}=${token}; ${tail}; Max-Age=${Math.floor(Duration.toSeconds(webSessionLifetimes.absolute))}`,
    clearCookie: `${name}=; ${tail}; Max-Age=0`
  }
}

export const WebRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sessions = yield* WebSessions
    const serviceUrl = yield* ServiceUrl
    const serviceOrigin = new URL(serviceUrl).origin
    const found = yield* loadAssets
    const assets: Assets | undefined = Option.getOrUndefined(found)
    const { setCookie, clearCookie } = sessionCookieFor(serviceUrl)

    const page = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = sessionTokenOf(request)
      const session = yield* useCase(sessions.current(token))
      if (Option.isNone(session))
        return seeOther(webPaths.signIn, token === undefined ? undefined : clearCookie)
      return html(shellPage(assets, sessionInfo(session.value, serviceUrl)))
    })

    const signInForm = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const session = yield* useCase(sessions.current(sessionTokenOf(request)))
      return Option.isSome(session) ? seeOther(webPaths.library) : html(signInPage(assets))
    })

    const formOf = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.map(
        Effect.orElseSucceed(request.text, () => ""),
        (text) => new URLSearchParams(text)
      )
    )

    const signIn = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!sameOrigin(request, serviceOrigin)) {
        return html(signInPage(assets, "Sign in from this server's own page."), 403)
      }
      const form = yield* formOf
      const address = clientAddress(
        Option.getOrUndefined(request.remoteAddress),
        request.headers["x-forwarded-for"]
      )
      return yield* useCase(sessions.signIn(form.get("api_key") ?? "", address)).pipe(
        Effect.map((signedIn) => seeOther(webPaths.library, setCookie(signedIn.token))),
        Effect.catchIf(
          (error): error is Errors.ApiError => error instanceof Errors.ApiError,
          (error) =>
            Effect.succeed(
              error.code === "rate_limit_exceeded"
                ? html(signInPage(assets, `Too many sign-in attempts: ${error.message}.`), 429)
                : html(signInPage(assets, "That API key is unknown or revoked. Check it and try again."), 401)
            )
        )
      )
    })

    const signOut = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = sessionTokenOf(request)
      if (token !== undefined) {
        const form = yield* formOf
        const csrf = request.headers[csrfHeader] ?? form.get("csrf_token") ?? undefined
        yield* useCase(sessions.signOut(token, csrf))
      }
      return seeOther(webPaths.signIn, clearCookie)
    })

    const asset = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const name = request.url.slice("/web/".length).split("?")[0] ?? ""
      const file = assets?.byName.get(name)
      if (file === undefined) {
        return yield* Errors.apiError("not_found", "No such file of the web library")
      }
      const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
      return HttpServerResponse.uint8Array(gzip ? file.gzipped : file.body, {
        contentType: file.contentType,
        headers: {
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
          vary: "accept-encoding",
          ...(gzip ? { "content-encoding": "gzip" } : {})
        }
      })
    })

    for (const path of pagePaths) yield* router.get(path as `/${string}`, page)
    yield* router.get(webPaths.signIn, signInForm)
    yield* router.post(webPaths.signIn, signIn)
    yield* router.post(webPaths.signOut, signOut)
    yield* router.get(webPaths.asset, asset)
  })
)
