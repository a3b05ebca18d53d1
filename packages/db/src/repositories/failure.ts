/**
 * How repositories fail: every driver error and every row that does not decode becomes core's
 * `PersistenceError`, named after the port operation (`Accounts.create`), inside a span of that name.
 * A failure that is the database being unavailable (refused, reset or timed-out connections, a
 * statement timeout, no free pooled connection: `isDatabaseUnavailable`) is marked `unavailable`, which the
 * boundary answers 503 `service_unavailable` instead of 500.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { PersistenceError } from "@verbatim/core"
import { Duration, Effect, FiberRef, Option, Schedule, Schema } from "effect"
import { isDatabaseUnavailable, isDiskFull, isTransientConflict } from "../postgres-error.js"

/** How often, and how soon, work the server rolled back for a deadlock runs again. */
export const conflictRetries = Schedule.exponential(Duration.millis(10)).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(4))
)

/**
 * Runs `effect` again when PostgreSQL rolled it back to break a deadlock or a serialization
 * conflict, unless it runs inside a transaction: there the whole transaction was rolled back, and
 * the transactor runs it again (`transactor.ts`).
 */
export const retryingConflicts = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (inTransaction) =>
    Option.isSome(inTransaction) ? effect : Effect.catchIf(effect, isTransientConflict, againAfter(effect))
  )

/**
 * The retries of `retryingConflicts` after a first conflict: the schedule starts from that failure
 * (its first delay, then up to four more runs), as `Effect.retry` on the whole would, but the run
 * that succeeds first time (nearly every one) pays no schedule: `Effect.retry` builds its driver
 * (a `Ref` and a loop) before the first run.
 */
const againAfter =
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  (first: E): Effect.Effect<A, E, R> => {
    let replayed = false
    return Effect.retry(
      Effect.suspend(() => {
        if (replayed) return effect
        replayed = true
        return Effect.fail(first)
      }),
      { schedule: conflictRetries, while: isTransientConflict }
    )
  }

/** The account a ledger operation names does not exist. */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  accountId: Schema.String
}) {}

/** A transcript kept conflicting with rows that were deleted before `store` could read them. */
export class StoreConflict extends Schema.TaggedError<StoreConflict>()("StoreConflict", {
  attempts: Schema.Number
}) {}

/**
 * `effect` in a span of `name` while the tracer is on. With it off (the server without an OTLP
 * endpoint) `withSpan` would still make a no-op span and put it in the context (a copy of the
 * context and an exit hook per operation), so the effect runs as it is.
 */
export const spanned =
  (name: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const inSpan = Effect.withSpan(effect, name, { captureStackTrace: false })
    return Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (on) => (on ? inSpan : effect))
  }

/**
 * Runs a repository operation: its failures become a `PersistenceError` of `name`, except those
 * `keep` recognises (the port's own typed errors), which pass through.
 */
export const operationKeeping =
  <K>(name: string, keep: (error: unknown) => error is K) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, K | PersistenceError, R> =>
    retryingConflicts(effect).pipe(
      Effect.mapError((cause) =>
        keep(cause)
          ? cause
          : new PersistenceError({
              operation: name,
              cause,
              unavailable: isDatabaseUnavailable(cause),
              full: isDiskFull(cause)
            })
      ),
      spanned(`verbatim.db.${name}`)
    )

const nothing = (_: unknown): _ is never => false

/** Runs a repository operation: its failures become a `PersistenceError` of `name`. */
export const operation = (name: string) => operationKeeping(name, nothing)
