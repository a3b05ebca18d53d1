/**
 * The `Transactor` port on SQL: `sql.withTransaction`, so every repository call inside the work runs
 * on the transaction's connection and commits or rolls back with it; a transaction inside another
 * becomes a savepoint. The work must stay on its fiber (a forked fiber loses the transaction, and on
 * PGlite would wait for the session the transaction holds).
 *
 * When PostgreSQL rolls the transaction back to break a deadlock or a serialization conflict, the
 * outermost transaction runs its work again (a few times, soon after): the work must be database
 * work only, which every transaction of the use cases is.
 *
 * A failure of the transaction itself (taking a connection, `BEGIN`, and `COMMIT` or `ROLLBACK`,
 * which @effect/sql raises as defects) is a `PersistenceError`, marked `unavailable` when it is the
 * database being unavailable, like a repository's: the boundary answers it 503 with `Retry-After`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PersistenceError, Transactor } from "@verbatim/core"
import { Effect, Layer, Option } from "effect"
import { isDatabaseUnavailable, isDiskFull, isTransientConflict } from "./postgres-error.js"
import { conflictRetries } from "./repositories/failure.js"

/** A failure of the work that was PostgreSQL rolling the transaction back for a deadlock or a conflict. */
const rolledBackForConflict = (error: unknown): boolean =>
  isTransientConflict(error) || (error instanceof PersistenceError && isTransientConflict(error.cause))

const transactionFailure = (cause: SqlError): PersistenceError =>
  new PersistenceError({
    operation: "Transactor.transaction",
    cause,
    unavailable: isDatabaseUnavailable(cause),
    full: isDiskFull(cause)
  })

/** Builds the transactor over the `SqlClient` in context. */
export const make: Effect.Effect<Transactor["Type"], never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) =>
    Transactor.of({
      transaction: (work) =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) => {
          const once = sql.withTransaction(work)
          // The outermost transaction runs again when the server rolled it back to break a
          // deadlock (a savepoint cannot: the whole transaction is gone, so its owner retries).
          return Option.isSome(outer)
            ? once
            : Effect.retry(once, { schedule: conflictRetries, while: rolledBackForConflict })
        }).pipe(
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
