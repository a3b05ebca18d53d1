/**
 * Bearer authentication and the per-account rate limit, as one `HttpApiMiddleware`:
 *
 * 1. The `Authorization` header must read `Bearer <API key>`; `Access.authenticate` turns the key
 *    into the account (401 `invalid_api_key` when missing, malformed, unknown or revoked; every 401
 *    carries `WWW-Authenticate: Bearer`). A request without that header may instead carry the web
 *    library's session cookie (`web-session.ts`), where the server provides core's `WebSessions`:
 *    the session's account, and for any method but GET, HEAD and OPTIONS the session's CSRF token
 *    in `X-CSRF-Token` (403 `forbidden` without it).
 * 2. core's `admit` takes one request from the account's bucket (all its keys share it).
 *    Every response to an authenticated request, success or error, carries `RateLimit-Limit`,
 *    `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the bucket is full again); a refused
 *    request answers 429 `rate_limit_exceeded` with `Retry-After` (seconds).
 */
import { HttpApp, HttpMethod, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Authentication, basePath } from "@verbatim/contract"
import {
  Access,
  type Account,
  admit,
  noteRequestAccount,
  type RateVerdict,
  WebSessions
} from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Effect, FiberRef, Layer, Option } from "effect"
import { useCase } from "./use-case.js"
import { csrfHeader, sessionTokenOf } from "./web-session.js"

/** The headers that report the account's rate limit after a request. */
export const rateLimitHeaders = (verdict: RateVerdict): Record<string, string> => ({
  "ratelimit-limit": String(verdict.limit),
  "ratelimit-remaining": String(verdict.remaining),
  "ratelimit-reset": String(verdict.resetSeconds),
  ...(verdict.allowed ? {} : { "retry-after": String(verdict.retryAfterSeconds) })
})

const addHeaders = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, headers))
  )

const bearerPattern = /^Bearer(?:\s+(.*))?$/i

/**
 * The key of an `Authorization` header: `undefined` when there is none (or it is blank), the key
 * when it reads `Bearer <key>`, and a failure when it uses another scheme.
 */
export const bearerKey = (header: string | undefined): Effect.Effect<string | undefined, Errors.ApiError> => {
  if (header === undefined || header.trim() === "") return Effect.succeed(undefined)
  const match = bearerPattern.exec(header.trim())
  return match === null
    ? Effect.fail(
        Errors.apiError(
          "invalid_api_key",
          "Missing or invalid API key: the Authorization header must read Bearer <API key>"
        )
      )
    : Effect.succeed(match[1]?.trim() ?? "")
}

/**
 * The account of the request's credential: its session when it carries no `Authorization` header
 * but a session cookie (and `sessions` is given), else its bearer key.
 */
const credentialOf = (
  access: Access["Type"],
  request: HttpServerRequest.HttpServerRequest,
  sessions: WebSessions["Type"] | undefined
): Effect.Effect<Account, Errors.ApiError> => {
  const token = sessions === undefined ? undefined : sessionTokenOf(request)
  if (sessions !== undefined && token !== undefined && request.headers.authorization === undefined) {
    return useCase(
      Effect.map(
        sessions.authenticate(token, { method: request.method, csrfToken: request.headers[csrfHeader] }),
        (session) => session.account
      )
    )
  }
  return Effect.flatMap(bearerKey(request.headers.authorization), (key) => useCase(access.authenticate(key)))
}

/**
 * The account of the request's bearer key (or web session), its request taken from the account's
 * rate limit: the authentication middleware's work, shared with the hot routes (`hot-routes.ts`)
 * and the web library's routes. The rate-limit headers (and `WWW-Authenticate` on a 401) are added
 * to whatever the request answers.
 */
export const authorize = (
  access: Access["Type"],
  request: HttpServerRequest.HttpServerRequest,
  sessions?: WebSessions["Type"] | undefined
): Effect.Effect<Account, Errors.ApiError> =>
  Effect.flatMap(FiberRef.get(authorizedAccount), (known) =>
    known === undefined ? authorizeNow(access, request, sessions) : Effect.succeed(known)
  )

/**
 * The account a request was authorized as before its body was read (`authorizeBeforeBody`): the
 * middleware and the hot routes take it as it is, so a request is authenticated and counted once.
 */
const authorizedAccount = FiberRef.unsafeMake<Account | undefined>(undefined)

/** Whether a request carries a body to a route that needs a key: every route under the API's base path. */
export const keyedBody = (request: HttpServerRequest.HttpServerRequest): boolean =>
  HttpMethod.hasBody(request.method) && isKeyedPath(request.url)

/** Whether a path is one of the API's, where every request with a body needs a key (or a web session). */
export const isKeyedPath = (url: string): boolean => url.startsWith(`${basePath}/`)

/**
 * A request with a body to a keyed route is authorized before anything reads its body: without a
 * valid key (or web session) it answers 401 at once, its body unread (the node server drops what
 * still arrives, for a short time: `apps/server` node-server.ts). Its account is then the one the
 * route sees (`authorize`).
 */
export const authorizeBeforeBody =
  (access: Access["Type"], sessions: WebSessions["Type"] | undefined) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      keyedBody(request)
        ? Effect.flatMap(authorizeNow(access, request, sessions), (account) =>
            Effect.locally(app, authorizedAccount, account)
          )
        : app
    )

const authorizeNow = (
  access: Access["Type"],
  request: HttpServerRequest.HttpServerRequest,
  sessions: WebSessions["Type"] | undefined
): Effect.Effect<Account, Errors.ApiError> =>
  Effect.gen(function* () {
    const account = yield* credentialOf(access, request, sessions).pipe(
      Effect.tapError((error) =>
        error.code === "invalid_api_key"
          ? addHeaders({ "www-authenticate": 'Bearer realm="verbatim"' })
          : Effect.void
      )
    )
    // The access log line names the account from here on, whatever the request answers.
    yield* noteRequestAccount(account.id)
    yield* admit(access, account, 1, (verdict) => addHeaders(rateLimitHeaders(verdict)))
    return account
  })

export const AuthenticationLive: Layer.Layer<Authentication, never, Access> = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const access = yield* Access
    const sessions = Option.getOrUndefined(yield* Effect.serviceOption(WebSessions))
    return Authentication.of({
      bearer: () =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => authorize(access, request, sessions))
    })
  })
)
