/**
 * Work whose first statement takes row locks that its later statements rely on (a statement's
 * snapshot is taken when it starts, so only a statement after the lock was granted sees every
 * change committed before it; `./ledger.ts`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"

/**
 * `work` in the caller's transaction when there is one (its locks are then held until that
 * transaction ends; no savepoint, so `work` must write nothing before a failure it raises), else in
 * a transaction of its own.
 */
export const inSomeTransaction =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      Option.isSome(outer) ? work : sql.withTransaction(work)
    )
