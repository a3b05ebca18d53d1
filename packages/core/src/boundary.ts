/**
 * The boundary policy every entry point shares (HTTP, the worker, the MCP server): how a use case's
 * failures reach a caller, so the same input gets the same answer everywhere.
 *
 * - An `ApiError` passes through as it is.
 * - A store failure the adapter marked `unavailable` (the database unreachable, timing out or out of
 *   connections) is logged as a warning and answered `service_unavailable` (503) with
 *   `details.retry_after_seconds`, which HTTP also sends as `Retry-After`: the same request will
 *   succeed once the database is back, and a load balancer can tell an outage from a bug.
 * - A queue failure (`QueueError`: Redis unreachable or not answering in time, the in-memory queue
 *   full) is answered the same way: the work queue is infrastructure that comes back.
 * - A database whose disk is full (`PersistenceError.full`) is logged as an error with the server's
 *   message (it names the file) and answered `insufficient_storage` (507) with
 *   `details.retry_after_seconds`: nothing of the request was kept, and it succeeds once there is
 *   room again.
 * - Any other store failure is logged with its cause and answered `internal_error`, without
 *   telling the caller anything about the store.
 * - A request refused by the rate limit is `rate_limit_exceeded` with the seconds to wait (`admitted`).
 * - A schema rejection is `Errors.invalidRequest` / `Errors.rejection` of the domain (one issue per
 *   field in `details.issues`).
 * - A request whose input holds a NUL character anywhere is `invalid_request` naming each field
 *   (`storableInput`, the domain's `Api.nulIssues`), before any field is decoded: PostgreSQL text
 *   cannot store NUL, so no entry point lets one through to a use case.
 */
import { Api, Errors } from "@verbatim/domain"
import { Effect } from "effect"
import type { PersistenceError } from "./errors.js"
import type { RateVerdict } from "./ports/rate-limiter.js"
import type { QueueError } from "./ports/work-queue.js"

/** Failures of ports that no caller can act on. */
export type InfrastructureError = PersistenceError | QueueError

/** The seconds a caller is asked to wait when the database is unavailable. */
export const unavailableRetryAfterSeconds = 5

/** The answer while a store the service needs is unavailable: 503 `service_unavailable`, retry soon. */
const unavailableAnswer = (store: string): Errors.ApiError =>
  Errors.apiError(
    "service_unavailable",
    `The service cannot reach its ${store} right now; retry in ${unavailableRetryAfterSeconds} s`,
    { retry_after_seconds: unavailableRetryAfterSeconds }
  )

/** The answer while the database is unavailable. */
export const serviceUnavailable: Errors.ApiError = unavailableAnswer("database")

/** The answer while the work queue (Redis) is unavailable. */
export const queueUnavailable: Errors.ApiError = unavailableAnswer("work queue")

/** The seconds a caller is asked to wait when the service's storage is full (507) or refuses writes (503). */
export const storageRetryAfterSeconds = 30

/** The answer while the database's disk is full. */
export const databaseFull: Errors.ApiError = Errors.apiError(
  "insufficient_storage",
  `The service's storage is full; nothing of the request was kept; retry in ${storageRetryAfterSeconds} s`,
  { retry_after_seconds: storageRetryAfterSeconds }
)

/** Whether an infrastructure failure is a store being unavailable (not a bug): 503, not 500. */
export const isUnavailable = (failure: InfrastructureError): boolean =>
  failure._tag === "QueueError" || failure.unavailable

/** The caller's answer to an infrastructure failure, logged once here. */
export const infrastructureAnswer = (failure: InfrastructureError): Effect.Effect<never, Errors.ApiError> =>
  failure._tag === "QueueError"
    ? Effect.zipRight(
        Effect.logWarning(`work queue unavailable in ${failure.operation}: ${causeMessage(failure.cause)}`),
        Effect.fail(queueUnavailable)
      )
    : failure.full
      ? Effect.zipRight(
          Effect.logError(
            `database storage full in ${failure.operation} (free space where the database keeps its data: VERBATIM_DATA_DIR on the embedded default): ${causeMessage(failure.cause)}`
          ),
          Effect.fail(databaseFull)
        )
      : failure.unavailable
        ? Effect.zipRight(
            Effect.logWarning(`database unavailable in ${failure.operation}: ${causeMessage(failure.cause)}`),
            Effect.fail(serviceUnavailable)
          )
        : Effect.zipRight(
            Effect.logError(`${failure._tag} in ${failure.operation}`, failure.cause),
            Effect.fail(Errors.apiError("internal_error"))
          )

const causeMessage = (cause: unknown): string => {
  const own = cause instanceof Error ? cause.message : String(cause)
  const inner =
    typeof cause === "object" && cause !== null && "cause" in cause && cause.cause instanceof Error
      ? cause.cause.message
      : undefined
  return inner === undefined || own.includes(inner) ? own : `${own}: ${inner}`
}

/**
 * Runs a use case for a caller: its `ApiError`s as they are, an unavailable database or work queue
 * as `service_unavailable`, other infrastructure failures as `internal_error`.
 */
export const answer = <A, R>(
  effect: Effect.Effect<A, Errors.ApiError | InfrastructureError, R>
): Effect.Effect<A, Errors.ApiError, R> =>
  Effect.catchIf(
    effect,
    (error): error is InfrastructureError => error._tag !== "ApiError",
    infrastructureAnswer
  )

/** The answer to a request the account's rate limit refused. */
export const rateLimitRefusal = (verdict: RateVerdict): Errors.ApiError =>
  Errors.apiError("rate_limit_exceeded", `Too many requests: retry after ${verdict.retryAfterSeconds} s`, {
    retry_after_seconds: verdict.retryAfterSeconds,
    limit: verdict.limit
  })

/**
 * How every entry point answers the rate limit's verdict on `requests` taken at once (`Access.takeRequest`):
 * allowed passes; refused is `rate_limit_exceeded` (429); more requests at once than the account's
 * bucket holds can never pass, so it is `invalid_request` (400) saying how many it may send.
 */
export const admitted = (verdict: RateVerdict, requests = 1): Effect.Effect<void, Errors.ApiError> =>
  verdict.allowed
    ? Effect.void
    : requests > verdict.limit
      ? Effect.fail(
          Errors.apiError(
            "invalid_request",
            `${requests} requests at once: the account's rate limit takes at most ${verdict.limit} at once`,
            { requests, limit: verdict.limit }
          )
        )
      : Effect.fail(rateLimitRefusal(verdict))

/**
 * Refuses a request input (a parsed JSON body, a query string's or form's fields, an MCP tool's
 * arguments) holding NUL in any string, naming each field: the one string rule of every entry point.
 */
export const storableInput = (input: unknown): Effect.Effect<void, Errors.ApiError> => {
  const refused = Api.unstorable(input)
  return refused === undefined ? Effect.void : Effect.fail(refused)
}
