/**
 * The boundary policy every entry point shares (HTTP, the worker, the MCP server): how a use case's
 * failures reach a caller, so the same input gets the same answer everywhere.
 *
 * - An `ApiError` passes through as it is.
 * - A store or queue failure is logged with its cause and answered `internal_error`, without telling
 *   the caller anything about the store.
 * - A request refused by the rate limit is `rate_limit_exceeded` with the seconds to wait.
 * - A schema rejection is `Errors.invalidRequest` / `Errors.rejection` of the domain (one issue per
 *   field in `details.issues`).
 */
import { Errors } from "@verbatim/domain"
import { Effect } from "effect"
import type { PersistenceError } from "./errors.js"
import type { RateVerdict } from "./ports/rate-limiter.js"
import type { QueueError } from "./ports/work-queue.js"

/** Failures of ports that no caller can act on. */
export type InfrastructureError = PersistenceError | QueueError

/** Runs a use case for a caller: its `ApiError`s as they are, infrastructure failures as `internal_error`. */
export const answer = <A, R>(
  effect: Effect.Effect<A, Errors.ApiError | InfrastructureError, R>
): Effect.Effect<A, Errors.ApiError, R> =>
  Effect.catchIf(
    effect,
    (error): error is InfrastructureError => error._tag !== "ApiError",
    (failure) =>
      Effect.zipRight(
        Effect.logError(`${failure._tag} in ${failure.operation}`, failure.cause),
        Effect.fail(Errors.apiError("internal_error"))
      )
  )

/** The answer to a request the account's rate limit refused. */
export const rateLimitRefusal = (verdict: RateVerdict): Errors.ApiError =>
  Errors.apiError("rate_limit_exceeded", `Too many requests: retry after ${verdict.retryAfterSeconds} s`, {
    retry_after_seconds: verdict.retryAfterSeconds,
    limit: verdict.limit
  })
