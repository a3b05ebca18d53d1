/**
 * The hot statements' direct lane: a statement sent straight to the node-postgres pool
 * under the `SqlClient`, in one `Effect.async`, its rows as the driver gives them (no name
 * transform, as `withoutTransform`).
 *
 * Why: `@effect/sql`'s statement path (a span even when tracing is off, the statement's compile, a
 * scope for the connection, the acquire, the resumption) cost about 0.1 ms before the statement
 * reached the driver and 0.05 ms after its rows came back, on a search paced as `pnpm bench` paces
 * them: more than the repository's own work (`pnpm --filter @verbatim/bench bench:sql` measures
 * each step).
 *
 * The lane keeps what a statement needs from the client:
 * - the same pool, so the same connection settings (`statement_timeout`, `query_timeout`, the
 *   search path of test schemas); the prepared lane (`prepared.ts`) runs on it too;
 * - a failure is the `SqlError` the client would fail with (its `cause` the driver's error);
 * - inside a transaction (`SqlClient.withTransaction`), a statement must run on the transaction's
 *   connection: there, and on PGlite (no pool), the lane is `sql.unsafe(text, params).withoutTransform`.
 *
 * An interrupted statement (the client hung up) is not cancelled: it ends within the pool's
 * `statement_timeout` and its connection goes back to the pool, as a finished one does.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Option } from "effect"
import type Pg from "pg"

/** The node-postgres pool under the PostgreSQL `SqlClient` (`postgresLayer` provides it; PGlite has none). */
export class PgPool extends Context.Tag("@verbatim/db/PgPool")<PgPool, Pg.Pool>() {}

/** Runs one statement with positional parameters (`$1`, `$2`...); its rows untransformed. */
export type DirectQuery = (
  text: string,
  parameters: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<unknown>, SqlError>

const onPool =
  (pool: Pg.Pool): DirectQuery =>
  (text, parameters) =>
    Effect.async<ReadonlyArray<unknown>, SqlError>((resume) => {
      pool.query(text, [...parameters], (cause, result) => {
        resume(
          cause
            ? Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
            : Effect.succeed(result.rows)
        )
      })
    })

/** The direct lane of the `SqlClient` in context: on its pool when it has one, else through it. */
export const makeDirectQuery: Effect.Effect<DirectQuery, never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* Effect.serviceOption(PgPool)
    const throughClient: DirectQuery = (text, parameters) => sql.unsafe(text, parameters).withoutTransform
    if (Option.isNone(pool)) return throughClient
    const direct = onPool(pool.value)
    return (text, parameters) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction) ? throughClient(text, parameters) : direct(text, parameters)
      )
  }
)
