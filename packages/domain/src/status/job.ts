/** Job and per-video result status. */
import { Schema } from "effect"

export const JobStatus = Schema.Literal(
  "completed",
  "processing",
  "failed",
  "requires_asr_confirmation"
).annotations({
  identifier: "JobStatus"
})
export type JobStatus = typeof JobStatus.Type
