/**
 * How repositories fail: every driver error and every row that does not decode becomes core's
 * `PersistenceError`, named after the port operation (`Accounts.create`), inside a span of that name.
 * A failure that is the database being unavailable (refused, reset or timed-out connections, a
 * statement timeout, no free pooled connection: `isDatabaseUnavailable`) is marked `unavailable`, which the
 * boundary answers 503 `service_unavailable` instead of 500.
 */
import { PersistenceError } from "@verbatim/core"
import { Effect, Schema } from "effect"
import { isDatabaseUnavailable } from "../postgres-error.js"

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
    effect.pipe(
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
