/**
 * Prepared statements on PostgreSQL for the hot queries. A repository runs such a statement through
 * the prepared lane (`makePreparedQuery`), which sends it to node-postgres as a named statement,
 * named after its text: PostgreSQL parses and plans it once per connection, and every later run
 * only binds and executes it. node-postgres keeps track of what each connection has prepared. Other
 * statements stay unnamed (planned on every run with their values), so a query whose best plan
 * depends on its values (the list search) keeps custom plans. On PGlite the lane runs the statement
 * through the client, unnamed.
 *
 * Why a lane the repository calls, not a patch of the driver: which statements are prepared is said
 * where they are written, and nothing changes what `client.query` does for every other caller. The
 * lane is the direct lane's (`direct.ts`): rows as the driver gives them, columns named as the row's
 * fields in SQL.
 *
 * Measured (`bench/RESULTS.md`): the three statements of an owned POST /transcribe took
 * 1.57 ms unnamed and 0.84 ms prepared.
 */
import { createHash } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Effect, Option } from "effect"
import type Pg from "pg"
import { PgPool } from "./direct.js"

/** Runs one compiled statement, prepared where the database allows it; its rows untransformed. */
export type PreparedQuery = (
  statement: Statement.Statement<unknown>
) => Effect.Effect<ReadonlyArray<unknown>, SqlError>

/** The prefix of every prepared statement's name (a digest of its text follows). */
export const statementNamePrefix = "verbatim_"

/**
 * The node-postgres client under a transaction's connection (`@effect/sql-pg` keeps it as `pg`), or
 * undefined when the connection has none to show (a statement there runs unnamed, as on PGlite).
 */
const driverClientOf = (connection: Connection, Client: typeof Pg.Client): Pg.ClientBase | undefined => {
  const client: unknown = "pg" in connection ? connection.pg : undefined
  return client instanceof Client ? client : undefined
}

/**
 * The prepared lane of the `SqlClient` in context: on its pool when it has one (on the transaction's
 * connection inside `SqlClient.withTransaction`), else through the client. Each lane names the
 * statements it has seen by a digest of their text (one text, one name), kept with the lane.
 */
export const makePreparedQuery: Effect.Effect<PreparedQuery, never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* Effect.serviceOption(PgPool)
    const throughClient = (text: string, parameters: ReadonlyArray<unknown>) =>
      sql.unsafe(text, parameters).withoutTransform
    if (Option.isNone(pool)) return (statement) => throughClient(...statement.compile())
    // On PostgreSQL only (PGlite has no pool), where node-postgres is loaded already.
    const { Client } = (yield* Effect.promise(() => import("pg"))).default

    const names = new Map<string, string>()
    const nameOf = (text: string): string => {
      const known = names.get(text)
      if (known !== undefined) return known
      const name = `${statementNamePrefix}${createHash("sha256").update(text).digest("hex").slice(0, 32)}`
      names.set(text, name)
      return name
    }
    const named = (client: Pg.Pool | Pg.ClientBase, text: string, parameters: ReadonlyArray<unknown>) =>
      Effect.async<ReadonlyArray<unknown>, SqlError>((resume) => {
        client.query({ name: nameOf(text), text, values: [...parameters] }, (cause, result) => {
          resume(
            cause
              ? Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
              : Effect.succeed(result.rows)
          )
        })
      })

    return (statement) => {
      const [text, parameters] = statement.compile()
      return Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
        if (Option.isNone(transaction)) return named(pool.value, text, parameters)
        const client = driverClientOf(transaction.value[0], Client)
        return client === undefined ? throughClient(text, parameters) : named(client, text, parameters)
      })
    }
  }
)
