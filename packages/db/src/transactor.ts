/**
 * The `Transactor` port on SQL: `sql.withTransaction`, so every repository call inside the work runs
 * on the transaction's connection and commits or rolls back with it; a transaction inside another
 * becomes a savepoint. The work must stay on its fiber (a forked fiber loses the transaction, and on
 * PGlite would wait for the session the transaction holds).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PersistenceError, Transactor } from "@verbatim/core"
import { Effect, Layer } from "effect"

/** Builds the transactor over the `SqlClient` in context. */
export const make: Effect.Effect<Transactor["Type"], never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) =>
    Transactor.of({
      transaction: (work) =>
        sql.withTransaction(work).pipe(
          Effect.catchIf(
            (error): error is SqlError => error instanceof SqlError,
            (cause) => Effect.fail(new PersistenceError({ operation: "Transactor.transaction", cause }))
          )
        )
    })
)

/** `Transactor` from the `SqlClient` in context. */
export const layer: Layer.Layer<Transactor, never, SqlClient.SqlClient> = Layer.effect(Transactor, make)
