/** Failures of the ports that the use cases cannot handle themselves. */
import { Schema } from "effect"

/** The store failed (connection lost, constraint broken unexpectedly, ...). Answered as 500. */
export class PersistenceError extends Schema.TaggedError<PersistenceError>()("PersistenceError", {
  operation: Schema.String,
  cause: Schema.Defect
}) {}
