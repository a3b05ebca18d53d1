/**
 * Bearer authentication and the per-account rate limit, as one `HttpApiMiddleware`:
 *
 * 1. The `Authorization` header must read `Bearer <API key>`; `Access.authenticate` turns the key
 *    into the account (401 `invalid_api_key` when missing, malformed, unknown or revoked; every 401
 *    carries `WWW-Authenticate: Bearer`).
 * 2. core's `admit` takes one request from the account's bucket (all its keys share it).
 *    Every response to an authenticated request, success or error, carries `RateLimit-Limit`,
 *    `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the bucket is full again); a refused
 *    request answers 429 `rate_limit_exceeded` with `Retry-After` (seconds).
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Authentication } from "@verbatim/contract"
import { Access, type Account, admit, type RateVerdict } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Effect, Layer } from "effect"
import { useCase } from "./use-case.js"

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
 * The account of the request's bearer key, its request taken from the account's rate limit: the
 * authentication middleware's work, shared with the hot routes (`hot-routes.ts`). The rate-limit
 * headers (and `WWW-Authenticate` on a 401) are added to whatever the request answers.
 */
export const authorize = (
  access: Access["Type"],
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Account, Errors.ApiError> =>
  Effect.gen(function* () {
    const account = yield* bearerKey(request.headers.authorization).pipe(
      Effect.flatMap((key) => useCase(access.authenticate(key))),
      Effect.tapError((error) =>
        error.code === "invalid_api_key"
          ? addHeaders({ "www-authenticate": 'Bearer realm="verbatim"' })
          : Effect.void
      )
    )
    yield* admit(access, account, 1, (verdict) => addHeaders(rateLimitHeaders(verdict)))
    return account
  })

export const AuthenticationLive: Layer.Layer<Authentication, never, Access> = Layer.effect(
  Authentication,
  Effect.map(Access, (access) =>
    Authentication.of({
      bearer: () =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => authorize(access, request))
    })
  )
)
