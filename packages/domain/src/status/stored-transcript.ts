/** Stored transcript status, as reported in transcript list items, and its machine. */
import { Schema } from "effect"
import { StateMachine } from "./machine.js"

export const StoredTranscriptStatus = Schema.Literal(
  "queued",
  "processing",
  "succeeded",
  "failed"
).annotations({
  identifier: "StoredTranscriptStatus"
})
export type StoredTranscriptStatus = typeof StoredTranscriptStatus.Type

/**
 * The stored transcript machine. Spec, "Stored transcript status": "Values in list items: queued,
 * processing, succeeded, failed. Transitions: not shown." Ours: a caption transcript is stored
 * succeeded at once; an ASR transcript starts queued (waiting for a worker) or processing (started
 * within the request); queued → processing | failed (failed without starting, e.g. the job could
 * not be submitted); processing → succeeded | failed. No record starts failed: a request that fails
 * at once stores no transcript. Succeeded and failed are final.
 */
export const StoredTranscriptMachine = StateMachine.make({
  name: "stored_transcript",
  states: StoredTranscriptStatus.literals,
  initial: ["queued", "processing", "succeeded"],
  transitions: {
    queued: ["processing", "failed"],
    processing: ["succeeded", "failed"],
    succeeded: [],
    failed: []
  },
  final: ["succeeded", "failed"]
})
