/** Failures of the ports that the use cases cannot handle themselves. */
import { Schema } from "effect"

/**
 * The store failed (connection lost, constraint broken unexpectedly, ...). Answered as 500, unless
 * the adapter marked it `unavailable`: the database could not be reached or did not answer in time
 * (refused or timed-out connections, a statement timeout, no free connection), which the boundary
 * answers 503 `service_unavailable` with `Retry-After`, since the same request succeeds once the
 * database is back; or marked `full`: the database's disk is full (SQLSTATE 53100, on PostgreSQL or
 * the embedded data folder), which the boundary answers 507 `insufficient_storage`.
 */
export class PersistenceError extends Schema.TaggedError<PersistenceError>()("PersistenceError", {
  operation: Schema.String,
  cause: Schema.Defect,
  unavailable: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  full: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}
