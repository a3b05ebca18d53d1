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
  QueryCanceled: "57014",
  DiskFull: "53100"
} as const

/**
 * Whether the server could not write for want of disk space (`disk_full`: PostgreSQL's and PGlite's
 * answer to ENOSPC in their data folder), which the boundary answers 507, not 500.
 */
export const isDiskFull = (error: unknown): boolean => hasPostgresErrorCode(PostgresErrorCode.DiskFull)(error)

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

/**
 * SQLSTATEs that mean the database is not there for us right now, rather than that a statement is
 * wrong: connection exceptions (class 08), the server shutting down or starting (57P01-57P03), too
 * many connections (53300), and a statement cancelled by `statement_timeout` (57014).
 */
const unavailableStates: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03", "53300", "57014"])

/** Node's socket errors of a server that is down, unreachable or hung. */
const unavailableNodeCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN"
])

/**
 * What node-postgres says (with no code) when a connection died, could not be made in time, no
 * pooled connection freed up in time, or a query got no answer within `query_timeout`.
 */
const unavailableMessages: ReadonlyArray<RegExp> = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout$/,
  /^Connection timed out$/,
  /not queryable/
]

const causesOf = (error: object): ReadonlyArray<unknown> => [
  ...(error instanceof SqlError || (Predicate.hasProperty(error, "cause") && error.cause !== undefined)
    ? [(error as { readonly cause: unknown }).cause]
    : []),
  ...(error instanceof AggregateError ? error.errors : [])
]

/**
 * Whether a failure means the database is unavailable (down, unreachable, hung, out of
 * connections) rather than a statement or a row being wrong; looks through `SqlError` and every
 * nested cause, since node reports a refused connection as an `AggregateError` of its addresses.
 */
export const isDatabaseUnavailable = (error: unknown, depth = 0): boolean => {
  if (!Predicate.isObject(error) || depth > 5) return false
  const code = Predicate.hasProperty(error, "code") && typeof error.code === "string" ? error.code : undefined
  if (code !== undefined && sqlState.test(code) && (code.startsWith("08") || unavailableStates.has(code))) {
    return true
  }
  if (code !== undefined && unavailableNodeCodes.has(code)) return true
  if (!(error instanceof SqlError) && error instanceof Error) {
    if (unavailableMessages.some((pattern) => pattern.test(error.message))) return true
  }
  return causesOf(error).some((cause) => isDatabaseUnavailable(cause, depth + 1))
}

/**
 * Whether the server gave up on the statement's transaction to break a deadlock (40P01) or a
 * serialization conflict (40001): nothing of that transaction was kept, and running it again is
 * what PostgreSQL asks for.
 */
export const isTransientConflict = (error: unknown): boolean =>
  hasPostgresErrorCode(PostgresErrorCode.DeadlockDetected)(error) ||
  hasPostgresErrorCode(PostgresErrorCode.SerializationFailure)(error)
