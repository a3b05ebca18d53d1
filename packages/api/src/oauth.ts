/**
 * OAuth for hosted assistants, on the API server (the MCP authorization spec, 2025-06-18): the MCP
 * endpoint is a resource server and this server its authorization server. The logic is core's
 * `OAuthServer`; these are its HTTP routes:
 *
 * | route | what |
 * |---|---|
 * | GET /.well-known/oauth-protected-resource[/api/v2/gpt/mcp] | RFC 9728 metadata of the MCP endpoint |
 * | GET /.well-known/oauth-authorization-server | RFC 8414 metadata |
 * | POST /oauth/register | RFC 7591 dynamic client registration (JSON) |
 * | GET /oauth/authorize | the consent page (server-rendered HTML, no script): sign in with an API key |
 * | POST /oauth/authorize | the page's form: sign in (shows the account), then allow (issues the code) or deny |
 * | POST /oauth/token | authorization_code (PKCE S256) and refresh_token grants (form) |
 * | POST /oauth/revoke | RFC 7009 revocation (form) |
 *
 * The routes read their own bodies (forms and JSON), exempt from the API's JSON body policy
 * (`isOAuthRequest`); a registration body is at most `registrationBodyBytes`. Registration is
 * rate-limited per client address (`clientAddress`). Error bodies carry OAuth's `error` and
 * `error_description`, and the API's `message` and `details` beside them.
 *
 * The consent page never writes the API key back: signing in holds a sign-in server-side and the
 * page carries its random id only (core's `OAuthServer.signIn`). They are mounted where the server provides core's `OAuthServer` (the
 * runtime's use cases); the contract tested alone has none and serves no OAuth routes.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { basePath } from "@verbatim/contract"
import {
  type AccountWithBalance,
  type AuthorizationRequest,
  type CheckedAuthorization,
  OAuthError,
  OAuthServer,
  ServiceUrl,
  storableInput
} from "@verbatim/core"
import { Api, Errors, Webhook } from "@verbatim/domain"
import { Effect, Either, Option } from "effect"
import { boundedText } from "./body.js"
import { errorResponse } from "./errors.js"
import { bodyTooLargeFor } from "./failures.js"
import { readParams } from "./params.js"

export const oauthPaths = {
  protectedResource: "/.well-known/oauth-protected-resource",
  authorizationServer: "/.well-known/oauth-authorization-server",
  register: "/oauth/register",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke"
} as const

/** The MCP endpoint's path (as `mcpPath` of `http.ts`, repeated to keep this module a leaf). */
const mcpEndpoint = `${basePath}/gpt/mcp`

/** Where the MCP endpoint's protected-resource metadata is (RFC 9728 §3.1, path-aware). */
export const mcpResourceMetadataPath = `${oauthPaths.protectedResource}${mcpEndpoint}` as const

/** The OAuth paths that answer CORS preflights (`OPTIONS`): those a browser-based client calls. */
export const oauthPreflightPaths: ReadonlyArray<`/${string}`> = [
  oauthPaths.protectedResource,
  mcpResourceMetadataPath,
  oauthPaths.authorizationServer,
  oauthPaths.register,
  oauthPaths.token,
  oauthPaths.revoke
]

/** Whether a request goes to an OAuth route, which reads its body itself (forms, JSON). */
export const isOAuthRequest = (url: string): boolean =>
  url.startsWith("/oauth/") || url.startsWith("/.well-known/")

/** The `WWW-Authenticate` challenge of the MCP endpoint: where its resource metadata is. */
export const mcpChallenge = (serviceUrl: string): string =>
  `Bearer realm="verbatim", resource_metadata="${serviceUrl.replace(/\/+$/, "")}${mcpResourceMetadataPath}"`

const cors = { "access-control-allow-origin": "*" }
const noStore = { "cache-control": "no-store", pragma: "no-cache" }

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...cors, ...headers } })

const oauthErrorResponse = (error: OAuthError, basic = false) =>
  json(
    {
      error: error.error,
      error_description: error.description,
      message: error.description,
      details: error.field === undefined ? {} : { field: error.field }
    },
    error.status,
    {
      ...noStore,
      ...(error.status === 401 && basic ? { "www-authenticate": 'Basic realm="verbatim"' } : {}),
      ...(error.retryAfterSeconds === undefined ? {} : { "retry-after": String(error.retryAfterSeconds) })
    }
  )

/** The largest registration body read (a registration holds a few short URIs and a name). */
export const registrationBodyBytes = 16 * 1024

/** Peers whose `X-Forwarded-For` is believed: a proxy in front of the server sits on these. */
const proxyPeer = new Set(["loopback", "private", "carrier_grade_nat", "link_local"])

/**
 * The client a request comes from: the connection's peer, or, when the peer is on this machine
 * or a private network (a load balancer in front, as in `deploy/`), the last address of
 * `X-Forwarded-For` (the one that proxy saw) when it is an address. From a public peer the header
 * is ignored. An IPv6 client is its /64 (`Webhook.clientOf`), so one host cannot be many clients.
 */
export const clientAddress = (peer: string | undefined, forwardedFor: string | undefined): string => {
  const socket = peer ?? ""
  if (socket === "") return "unknown"
  const client = Option.getOrElse(Webhook.clientOf(socket), () => socket)
  const classified = Webhook.classify(socket.replace(/^::ffff:/i, ""))
  if (classified._tag === "Refused" && proxyPeer.has(classified.reason) && forwardedFor !== undefined) {
    const last = forwardedFor.slice(forwardedFor.lastIndexOf(",") + 1).trim()
    const forwarded = Webhook.clientOf(last)
    if (Option.isSome(forwarded)) return forwarded.value
  }
  return client
}

const serverError = HttpServerResponse.unsafeJson(
  { error: "server_error", error_description: "the server could not answer; try again" },
  { status: 500, headers: cors }
)

/** The body as text, at most `limit` bytes (over it: 413 with the API's error body, as every route). */
const bodyTextOf = (limit: number) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => boundedText(request, limit))
/**
 * A form body's limit: OAuth's forms carry a few short fields (codes, tokens, a verifier), so more
 * is refused (413) before it is read, and `readParams` bounds the fields of what is read.
 */
export const formBodyBytes = 16 * 1024
const bodyText = bodyTextOf(formBodyBytes)

/** A form's or query's pairs, past the field bound refused as OAuth's `invalid_request` (400). */
const boundedPairs = (text: string) =>
  Effect.mapError(
    readParams(text),
    (refused) => new OAuthError({ error: "invalid_request", description: refused.message, status: 400 })
  )

/**
 * The one string rule of every entry point (core's `storableInput`) in OAuth's words: a field
 * holding NUL is refused with `code` (400), the description naming the field.
 */
const storableFields = (
  input: unknown,
  code: "invalid_request" | "invalid_client_metadata" = "invalid_request"
) =>
  Effect.mapError(
    storableInput(input),
    (refused) => new OAuthError({ error: code, description: refused.message, status: 400 })
  )

/** A form body's fields (the first value of each), refused when any holds NUL. */
const formFields = Effect.flatMap(bodyText, (text) =>
  Effect.flatMap(boundedPairs(text), (params) => {
    const fields: Record<string, string> = {}
    for (const [name, value] of params) if (!Object.hasOwn(fields, name)) fields[name] = value
    return Effect.as(storableFields(Api.paramFields(params)), fields)
  })
)

const field = (fields: Record<string, string>, name: string): string | undefined => {
  const value = fields[name]
  return value === undefined || value === "" ? undefined : value
}

const authorizationFields = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
  "resource"
] as const

const authorizationRequest = (fields: Record<string, string>): AuthorizationRequest =>
  Object.fromEntries(
    authorizationFields.flatMap((name) => {
      const value = field(fields, name)
      return value === undefined ? [] : [[name, value]]
    })
  )

// ---------------------------------------------------------------------------------------------
// The consent page
// ---------------------------------------------------------------------------------------------

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c
  )

const style = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}.box{border:1px solid #ccc;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
label{display:block;margin:.75rem 0 .25rem}input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{padding:.5rem 1.1rem;font-size:1rem;margin-right:.5rem;cursor:pointer}.error{color:#b00020}.muted{color:#666;font-size:.9rem}
dt{font-weight:600}dd{margin:0 0 .5rem 0}`

/**
 * Where the page's form may lead: this server, and the client's redirect URI (Chromium applies
 * `form-action` to the redirect that follows the form's POST).
 */
const formTargets = (redirectUri?: string): string => {
  if (redirectUri === undefined) return "'self'"
  try {
    const url = new URL(redirectUri)
    const source = url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol
    return `'self' ${source}`
  } catch {
    return "'self'"
  }
}

const page = (title: string, body: string, status = 200, redirectUri?: string) =>
  HttpServerResponse.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head><body>${body}</body></html>`
  ).pipe(
    HttpServerResponse.setStatus(status),
    HttpServerResponse.setHeaders({
      ...noStore,
      "x-frame-options": "DENY",
      "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; form-action ${formTargets(redirectUri)}; frame-ancestors 'none'`,
      "referrer-policy": "no-referrer"
    })
  )

const hidden = (request: AuthorizationRequest, extra: Record<string, string> = {}) =>
  [...Object.entries(request), ...Object.entries(extra)]
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(String(value))}">`
    )
    .join("")

const redirectHost = (uri: string) => {
  try {
    const url = new URL(uri)
    return url.host === "" ? url.protocol : url.host
  } catch {
    return uri
  }
}

const signInPage = (request: AuthorizationRequest, checked: CheckedAuthorization, problem?: string) =>
  page(
    "Sign in to Verbatim",
    `<h1>Sign in to Verbatim</h1>
<p><strong id="client-name">${escapeHtml(checked.client.name)}</strong> asks to use Verbatim for you: transcribe videos, read and search your transcripts, with your account's credits.</p>
<p class="muted">After you allow it, you return to ${escapeHtml(redirectHost(checked.redirectUri))}.</p>
${problem === undefined ? "" : `<p class="error" id="error" role="alert">${escapeHtml(problem)}</p>`}
<form method="post" action="${oauthPaths.authorize}">${hidden(request, { action: "sign_in" })}
<label for="api_key">Your Verbatim API key</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" required placeholder="vbt_...">
<p class="muted">The key only signs you in here; the assistant gets its own access, which you can revoke.</p>
<button type="submit" id="sign-in">Sign in</button></form>`,
    problem === undefined ? 200 : 401,
    checked.redirectUri
  )

const consentPage = (
  request: AuthorizationRequest,
  checked: CheckedAuthorization,
  account: AccountWithBalance,
  signIn: string
) =>
  page(
    "Allow access to Verbatim",
    `<h1>Allow ${escapeHtml(checked.client.name)}?</h1>
<p>It will act for this account:</p>
<div class="box" id="account"><dl>
<dt>Account</dt><dd id="account-name">${escapeHtml(account.name)}</dd>
<dt>Account id</dt><dd id="account-id">${escapeHtml(account.id)}</dd>
<dt>Plan</dt><dd id="account-plan">${escapeHtml(account.plan)}</dd>
<dt>Credits</dt><dd id="account-credits">${escapeHtml(String(account.credits))}</dd>
</dl></div>
<p>It can transcribe videos (spending credits), and read and search the account's transcripts. You can revoke it at any time (<code>pnpm admin oauth revoke</code>).</p>
<form method="post" action="${oauthPaths.authorize}">${hidden(request, { sign_in: signIn })}
<button type="submit" name="action" value="allow" id="allow">Allow</button>
<button type="submit" name="action" value="deny" id="deny">Deny</button></form>`,
    200,
    checked.redirectUri
  )

const errorPage = (error: OAuthError) =>
  page(
    "Verbatim sign-in",
    `<h1>This sign-in cannot go on</h1><p class="error" id="error">${escapeHtml(error.description)}</p><p class="muted">${escapeHtml(error.error)}</p>`,
    400
  )

const redirectTo = (location: string) =>
  HttpServerResponse.redirect(location, { status: 302, headers: noStore })

// ---------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------

const basicCredentials = (header: string | undefined): Option.Option<{ id: string; secret: string }> => {
  const match = /^Basic\s+(.+)$/i.exec(header?.trim() ?? "")
  if (match === null) return Option.none()
  try {
    const decoded = Buffer.from(match[1] ?? "", "base64").toString("utf8")
    const at = decoded.indexOf(":")
    if (at < 0) return Option.none()
    return Option.some({
      id: decodeURIComponent(decoded.slice(0, at)),
      secret: decodeURIComponent(decoded.slice(at + 1))
    })
  } catch {
    return Option.none()
  }
}

const preflight = HttpServerResponse.empty({
  status: 204,
  headers: {
    ...cors,
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
    "access-control-max-age": "86400"
  }
})

/** The OAuth routes, on the router of the API, where the server provides core's `OAuthServer`. */
export const OAuthRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const found = yield* Effect.serviceOption(OAuthServer)
    const configured = yield* Effect.serviceOption(ServiceUrl)
    if (Option.isNone(found) || Option.isNone(configured)) return
    const oauth = found.value
    const issuer = configured.value.replace(/\/+$/, "")

    const protectedResource = json({
      resource: `${issuer}${mcpEndpoint}`,
      authorization_servers: [issuer],
      bearer_methods_supported: ["header"],
      resource_name: "Verbatim MCP server"
    })
    const authorizationServer = json({
      issuer,
      authorization_endpoint: `${issuer}${oauthPaths.authorize}`,
      token_endpoint: `${issuer}${oauthPaths.token}`,
      registration_endpoint: `${issuer}${oauthPaths.register}`,
      revocation_endpoint: `${issuer}${oauthPaths.revoke}`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/docs`
    })

    const answered = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      effect.pipe(
        Effect.catchAll((error) =>
          error instanceof OAuthError
            ? Effect.succeed(oauthErrorResponse(error))
            : error instanceof Errors.ApiError
              ? Effect.succeed(errorResponse(error))
              : Effect.as(Effect.logError("OAuth route failed", error), serverError)
        )
      )

    const register = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress(
        Option.getOrUndefined(request.remoteAddress),
        request.headers["x-forwarded-for"]
      )
      // Over its limit, declared or chunked (`boundedBody`): 413 `request_too_large`, the API's error
      // body with OAuth's `error_description`.
      const read = yield* Effect.either(bodyTextOf(registrationBodyBytes))
      if (Either.isLeft(read)) {
        const refused = bodyTooLargeFor(registrationBodyBytes)
        return json({ ...refused.toBody(), error_description: refused.message }, 413, noStore)
      }
      const text = read.right
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return oauthErrorResponse(
          new OAuthError({
            error: "invalid_client_metadata",
            description: "the body must be JSON",
            status: 400
          })
        )
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        return oauthErrorResponse(
          new OAuthError({
            error: "invalid_client_metadata",
            description: "the body must be a JSON object",
            status: 400
          })
        )
      }
      yield* storableFields(body, "invalid_client_metadata")
      const client = yield* oauth.register(body as never, address)
      return json(client, 201, noStore)
    })

    const authorizeGet = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = Option.getOrElse(HttpServerRequest.toURL(request), () => new URL(request.url, issuer))
      const storable = yield* Effect.either(
        Effect.flatMap(boundedPairs(url.search.slice(1)), (pairs) =>
          Effect.as(storableFields(Api.paramFields(pairs)), pairs)
        )
      )
      if (Either.isLeft(storable)) return errorPage(storable.left)
      const fields = Object.fromEntries(storable.right)
      const params = authorizationRequest(fields)
      return yield* oauth.checkAuthorization(params).pipe(
        Effect.map((checked) => signInPage(params, checked)),
        Effect.catchAll((failure) =>
          "redirectTo" in failure
            ? Effect.succeed(
                failure.redirectTo === undefined
                  ? errorPage(failure.error)
                  : redirectTo(oauth.errorRedirect(failure.redirectTo, failure.error, params.state))
              )
            : Effect.fail(failure)
        )
      )
    })

    const authorizePost = Effect.gen(function* () {
      const fields = yield* formFields
      const params = authorizationRequest(fields)
      const checked = yield* oauth
        .checkAuthorization(params)
        .pipe(Effect.mapError((failure) => ("redirectTo" in failure ? failure.error : failure)))
      const action = field(fields, "action")
      const signIn = field(fields, "sign_in")
      if (action === "deny") return redirectTo(yield* oauth.deny(signIn, checked))
      if (action === "allow") {
        // Allowing needs the sign-in this page holds; the key itself is never sent back.
        return yield* oauth.approve(signIn ?? "", checked).pipe(
          Effect.map(redirectTo),
          Effect.catchIf(
            (error): error is OAuthError => error instanceof OAuthError,
            (error) => Effect.succeed(signInPage(params, checked, `${error.description}.`))
          )
        )
      }
      const signedIn = yield* oauth.signIn(field(fields, "api_key") ?? "", checked).pipe(
        Effect.map(Option.some),
        Effect.catchTag("ApiError", () => Effect.succeed(Option.none()))
      )
      if (Option.isNone(signedIn)) {
        return signInPage(params, checked, "That API key is unknown or revoked. Check it and try again.")
      }
      return consentPage(params, checked, signedIn.value.account, signedIn.value.signIn)
    }).pipe(
      Effect.catchIf(
        (error): error is OAuthError => error instanceof OAuthError,
        (error) => Effect.succeed(errorPage(error))
      )
    )

    const token = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* formFields
      const basic = basicCredentials(request.headers.authorization)
      const answer = yield* oauth
        .token({
          grant_type: field(fields, "grant_type"),
          code: field(fields, "code"),
          redirect_uri: field(fields, "redirect_uri"),
          code_verifier: field(fields, "code_verifier"),
          refresh_token: field(fields, "refresh_token"),
          resource: field(fields, "resource"),
          client_id: Option.match(basic, { onNone: () => field(fields, "client_id"), onSome: (c) => c.id }),
          client_secret: Option.match(basic, {
            onNone: () => field(fields, "client_secret"),
            onSome: (c) => c.secret
          })
        })
        .pipe(
          Effect.map((tokens) => json(tokens, 200, noStore)),
          Effect.catchIf(
            (error): error is OAuthError => error instanceof OAuthError,
            (error) => Effect.succeed(oauthErrorResponse(error, Option.isSome(basic)))
          )
        )
      return answer
    })

    const revoke = Effect.gen(function* () {
      const fields = yield* formFields
      const value = field(fields, "token")
      if (value === undefined) {
        return oauthErrorResponse(
          new OAuthError({ error: "invalid_request", description: "token is required", status: 400 })
        )
      }
      yield* oauth.revoke(value)
      return HttpServerResponse.empty({ status: 200, headers: { ...cors, ...noStore } })
    })

    yield* router.get(oauthPaths.protectedResource, Effect.succeed(protectedResource))
    yield* router.get(mcpResourceMetadataPath, Effect.succeed(protectedResource))
    yield* router.get(oauthPaths.authorizationServer, Effect.succeed(authorizationServer))
    yield* router.post(oauthPaths.register, answered(register))
    yield* router.get(oauthPaths.authorize, answered(authorizeGet))
    yield* router.post(oauthPaths.authorize, answered(authorizePost))
    yield* router.post(oauthPaths.token, answered(token))
    yield* router.post(oauthPaths.revoke, answered(revoke))
    for (const path of oauthPreflightPaths) {
      yield* router.options(path, Effect.succeed(preflight))
    }
  })
)
