/** Job and per-video result status, and the job machine. */
import { Schema } from "effect"
import { StateMachine } from "./machine.js"

export const JobStatus = Schema.Literal(
  "completed",
  "processing",
  "failed",
  "requires_asr_confirmation"
).annotations({
  identifier: "JobStatus"
})
export type JobStatus = typeof JobStatus.Type

/**
 * The job machine, also used for each per-video result of a batch. Spec, "Job and per-video result
 * status":
 *
 * | (none)     | POST /transcribe  | Captions are available and served | completed                  |
 * | (none)     | POST /transcribe  | ASR path started                  | processing                 |
 * | processing | GET /jobs/{id}    | Job still running                 | processing (not a move)    |
 * | processing | GET /jobs/{id}    | Job finished                      | completed                  |
 * | (none)     | POST /transcribe  | ASR would be needed               | requires_asr_confirmation  |
 *
 * The spec leaves failed and the moves out of failed and requires_asr_confirmation open. Ours: a job
 * may start failed (rejected within the request) and a running job may fail; completed, failed and
 * requires_asr_confirmation are final. Confirming a quote is a new request with an explicit mode
 * (DESIGN decision 1), so it creates a new job rather than moving the quoted one.
 */
export const JobMachine = StateMachine.make({
  name: "job",
  states: JobStatus.literals,
  initial: ["completed", "processing", "requires_asr_confirmation", "failed"],
  transitions: {
    completed: [],
    processing: ["completed", "failed"],
    failed: [],
    requires_asr_confirmation: []
  },
  final: ["completed", "failed", "requires_asr_confirmation"]
})
