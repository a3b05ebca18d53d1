/**
 * Reading the PostgreSQL error behind a `SqlError`, identically for PostgreSQL (node-postgres) and
 * PGlite: both keep the server's SQLSTATE in `cause.code` and the constraint in `cause.constraint`.
 */
import { SqlError } from "@effect/sql/SqlError"
import { Option, Predicate } from "effect"

/** SQLSTATE codes repositories map to domain errors. */
export const PostgresErrorCode = {
  NotNullViolation: "23502",
  ForeignKeyViolation: "23503",
  UniqueViolation: "23505",
  CheckViolation: "23514",
  ExclusionViolation: "23P01",
  SerializationFailure: "40001",
  DeadlockDetected: "40P01",
  LockNotAvailable: "55P03",
  QueryCanceled: "57014"
} as const

const sqlState = /^[0-9A-Z]{5}$/

const serverError = (error: unknown): Option.Option<object> => {
  const cause = error instanceof SqlError ? error.cause : error
  return Predicate.isObject(cause) &&
    "code" in cause &&
    typeof cause.code === "string" &&
    sqlState.test(cause.code)
    ? Option.some(cause)
    : Option.none()
}

const field = (error: unknown, name: "code" | "constraint" | "detail" | "table"): Option.Option<string> =>
  Option.flatMap(serverError(error), (cause) =>
    Predicate.hasProperty(cause, name) && typeof cause[name] === "string"
      ? Option.some(cause[name])
      : Option.none()
  )

/** The SQLSTATE of the server error behind a `SqlError` (or of a raw driver error). */
export const postgresErrorCode = (error: unknown): Option.Option<string> => field(error, "code")

/** The name of the constraint the server reported, if any. */
export const postgresConstraint = (error: unknown): Option.Option<string> => field(error, "constraint")

/** The server's detail line (e.g. `Key (email)=(a@b.c) already exists.`), if any. */
export const postgresDetail = (error: unknown): Option.Option<string> => field(error, "detail")

/** Whether the error is a server error with this SQLSTATE. */
export const hasPostgresErrorCode =
  (code: string) =>
  (error: unknown): boolean =>
    Option.contains(postgresErrorCode(error), code)

/** Whether the error is a unique violation, optionally of one named constraint. */
export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  hasPostgresErrorCode(PostgresErrorCode.UniqueViolation)(error) &&
  (constraint === undefined || Option.contains(postgresConstraint(error), constraint))
