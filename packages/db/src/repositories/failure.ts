/**
 * How repositories fail: every driver error and every row that does not decode becomes core's
 * `PersistenceError`, named after the port operation (`Accounts.create`), inside a span of that name.
 * A failure that is the database being unavailable (refused, reset or timed-out connections, a
 * statement timeout, no free pooled connection: `isDatabaseUnavailable`) is marked `unavailable`, which the
 * boundary answers 503 `service_unavailable` instead of 500.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { PersistenceError } from "@verbatim/core"
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import { isDatabaseUnavailable, isTransientConflict } from "../postgres-error.js"

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
    Option.isSome(inTransaction)
      ? effect
      : Effect.retry(effect, { schedule: conflictRetries, while: isTransientConflict })
  )

/** The account a ledger operation names does not exist. */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  accountId: Schema.String
}) {}

/** A transcript kept conflicting with rows that were deleted before `store` could read them. */
export class StoreConflict extends Schema.TaggedError<StoreConflict>()("StoreConflict", {
  attempts: Schema.Number
}) {}

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
          : new PersistenceError({ operation: name, cause, unavailable: isDatabaseUnavailable(cause) })
      ),
      Effect.withSpan(`verbatim.db.${name}`, { captureStackTrace: false })
    )

const nothing = (_: unknown): _ is never => false

/** Runs a repository operation: its failures become a `PersistenceError` of `name`. */
export const operation = (name: string) => operationKeeping(name, nothing)
