/**
 * The `Transactor` port on SQL: `sql.withTransaction`, so every repository call inside the work runs
 * on the transaction's connection and commits or rolls back with it; a transaction inside another
 * becomes a savepoint. The work must stay on its fiber (a forked fiber loses the transaction, and on
 * PGlite would wait for the session the transaction holds).
 *
 * A failure of the transaction itself (taking a connection, `BEGIN`, and `COMMIT` or `ROLLBACK`,
 * which @effect/sql raises as defects) is a `PersistenceError`, marked `unavailable` when it is the
 * database being unavailable, like a repository's: the boundary answers it 503 with `Retry-After`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PersistenceError, Transactor } from "@verbatim/core"
import { Effect, Layer, Option } from "effect"
import { isDatabaseUnavailable } from "./postgres-error.js"

const transactionFailure = (cause: SqlError): PersistenceError =>
  new PersistenceError({
    operation: "Transactor.transaction",
    cause,
    unavailable: isDatabaseUnavailable(cause)
  })

/** Builds the transactor over the `SqlClient` in context. */
export const make: Effect.Effect<Transactor["Type"], never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) =>
    Transactor.of({
      transaction: (work) =>
        sql.withTransaction(work).pipe(
          Effect.catchIf(
            (error): error is SqlError => error instanceof SqlError,
            (cause) => Effect.fail(transactionFailure(cause))
          ),
          // @effect/sql turns a failed COMMIT or ROLLBACK into a defect: a database failure all the same.
          Effect.catchSomeDefect((defect) =>
            defect instanceof SqlError ? Option.some(Effect.fail(transactionFailure(defect))) : Option.none()
          )
        )
    })
)

/** `Transactor` from the `SqlClient` in context. */
export const layer: Layer.Layer<Transactor, never, SqlClient.SqlClient> = Layer.effect(Transactor, make)
