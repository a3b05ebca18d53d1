/**
 * Which web pages may call the MCP endpoint (`/api/v2/gpt/mcp`) from a browser.
 *
 * The MCP transport spec (2025-06-18, Streamable HTTP, "Security Warning") requires servers to
 * validate the `Origin` header of every request, so that a page the person happens to visit cannot
 * drive the server through their browser (DNS rebinding against a server on their machine). The rule:
 *
 * - A request without `Origin` passes: assistants that are programs (Claude Desktop, VS Code, the
 *   SDK's clients, ChatGPT's and Claude's connectors, which call from their servers) send none.
 * - A request with an `Origin` passes when it is the service's own origin (its public URL) or one
 *   of `VERBATIM_MCP_ALLOWED_ORIGINS` (comma-separated origins, e.g.
 *   `http://localhost:6274,https://assistant.example`); any other (`null` included) answers 403
 *   `forbidden` with the API's error body, and nothing runs.
 * - An allowed origin gets CORS: the preflight (`OPTIONS`) answers 204 with the methods, headers
 *   and exposed headers a browser client of the transport needs, and every answer names the origin
 *   (never `*`) with `Vary: Origin`. The endpoint takes no cookies: the bearer token is the
 *   credential, so no `Access-Control-Allow-Credentials`.
 *
 * The OAuth endpoints (`@verbatim/api`'s `oauth.ts`) answer every origin (`*`): they are public by
 * design (discovery, registration, the token exchange of a public client with PKCE) and act on no
 * browser credential.
 */
import { Context, Option } from "effect"

/** The origins besides the service's own that may call the MCP endpoint from a browser. */
export class McpAllowedOrigins extends Context.Tag("@verbatim/api/McpAllowedOrigins")<
  McpAllowedOrigins,
  ReadonlyArray<string>
>() {}

/**
 * The serialized origin (`scheme://host[:port]`, lowercase, default port dropped) of a value that
 * is exactly an http(s) origin: no path but `/`, no query, fragment or user; none otherwise.
 */
export const parseOrigin = (value: string): Option.Option<string> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return Option.none()
  }
  const bare =
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.username === "" &&
    url.password === "" &&
    url.pathname === "/" &&
    url.search === "" &&
    url.hash === "" &&
    !value.includes("?") &&
    !value.includes("#")
  return bare ? Option.some(url.origin) : Option.none()
}

/** Whether a request's `Origin` header may call the endpoint of the service at `serviceUrl`. */
export const originAllowed = (origin: string, allowed: ReadonlyArray<string>, serviceUrl: string): boolean =>
  Option.match(parseOrigin(origin), {
    onNone: () => false,
    onSome: (parsed) =>
      // A browser sends the serialized origin; anything else is not a page's origin.
      parsed === origin &&
      (Option.contains(parseOrigin(new URL(serviceUrl).origin), parsed) ||
        allowed.some((entry) => Option.contains(parseOrigin(entry), parsed)))
  })

/** The methods of the transport a browser may use. */
export const corsMethods = "GET, POST, DELETE, OPTIONS"
/** The request headers a browser client of the transport sends. */
export const corsAllowHeaders =
  "Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
/** The answer headers a browser client must read: the session, and the 401's challenge. */
export const corsExposeHeaders = "Mcp-Session-Id, WWW-Authenticate"

/** The CORS headers of every answer to an allowed origin. */
export const corsHeaders = (origin: string): Record<string, string> => ({
  "access-control-allow-origin": origin,
  "access-control-expose-headers": corsExposeHeaders,
  vary: "Origin"
})

/** The headers of the preflight's answer to an allowed origin. */
export const preflightHeaders = (origin: string): Record<string, string> => ({
  ...corsHeaders(origin),
  "access-control-allow-methods": corsMethods,
  "access-control-allow-headers": corsAllowHeaders,
  "access-control-max-age": "86400"
})
