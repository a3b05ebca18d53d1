/**
 * Batch status, its machine, and the rule that turns the items' statuses into the batch's
 * (DESIGN decision 3: completed when every item succeeded, failed when none did, partial otherwise).
 */
import { Either, Schema } from "effect"
import type { JobStatus } from "./job.js"
import type { IllegalTransition } from "./machine.js"
import { StateMachine } from "./machine.js"

export const BatchStatus = Schema.Literal("completed", "partial", "processing", "failed").annotations({
  identifier: "BatchStatus"
})
export type BatchStatus = typeof BatchStatus.Type

/**
 * The batch machine. Spec, "Batch status":
 *
 * | (none)     | POST /batch          | Accepted, work pending | processing                     |
 * | processing | GET /batch/{id}      | Still running          | processing (not a move)        |
 * | processing | GET /batch/{id}      | Finished               | completed, partial or failed   |
 *
 * "A finished batch (completed, partial, failed) never changes." POST /batch answers 200 completed
 * or partial when every item finished within the request, so a batch may also start finished
 * (failed too, when every item failed at once).
 */
export const BatchMachine = StateMachine.make({
  name: "batch",
  states: BatchStatus.literals,
  initial: ["processing", "completed", "partial", "failed"],
  transitions: {
    completed: [],
    partial: [],
    processing: ["completed", "partial", "failed"],
    failed: []
  },
  final: ["completed", "partial", "failed"]
})

/** The batch response's summary: how many items there are and where they stand. */
export const BatchSummary = Schema.Struct({
  total: Schema.NonNegativeInt,
  succeeded: Schema.NonNegativeInt,
  failed: Schema.NonNegativeInt,
  processing: Schema.NonNegativeInt
}).annotations({ identifier: "BatchSummary" })
export type BatchSummary = typeof BatchSummary.Type

/**
 * Counts the items' statuses. completed counts as succeeded, processing as processing; failed and
 * requires_asr_confirmation (finished without a transcript) count as failed, so
 * total = succeeded + failed + processing.
 */
export const summarize = (items: Iterable<JobStatus>): BatchSummary => {
  let total = 0
  let succeeded = 0
  let failed = 0
  let processing = 0
  for (const status of items) {
    total++
    if (status === "completed") succeeded++
    else if (status === "processing") processing++
    else failed++
  }
  return { total, succeeded, failed, processing }
}

/**
 * The batch status a summary stands for: processing while any item is processing; then completed
 * when every item succeeded (an empty batch included), failed when none did, partial otherwise.
 */
export const batchOutcome = (summary: BatchSummary): BatchStatus => {
  if (summary.processing > 0) return "processing"
  if (summary.succeeded >= summary.total) return "completed"
  if (summary.succeeded === 0) return "failed"
  return "partial"
}

/**
 * The status a batch moves to once its items stand as `summary`: unchanged when the outcome is the
 * current status, the move when the machine allows it, and IllegalTransition when a finished batch
 * would change.
 */
export const advanceBatch = (
  current: BatchStatus,
  summary: BatchSummary
): Either.Either<BatchStatus, IllegalTransition> => {
  const outcome = batchOutcome(summary)
  return outcome === current ? Either.right(current) : BatchMachine.move(current, outcome)
}
