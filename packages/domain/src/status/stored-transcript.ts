/** Stored transcript status, as reported in transcript list items. */
import { Schema } from "effect"

export const StoredTranscriptStatus = Schema.Literal(
  "queued",
  "processing",
  "succeeded",
  "failed"
).annotations({
  identifier: "StoredTranscriptStatus"
})
export type StoredTranscriptStatus = typeof StoredTranscriptStatus.Type
