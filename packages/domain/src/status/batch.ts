/** Batch status. */
import { Schema } from "effect"

export const BatchStatus = Schema.Literal("completed", "partial", "processing", "failed").annotations({
  identifier: "BatchStatus"
})
export type BatchStatus = typeof BatchStatus.Type
