/**
 * Playlist and channel batch (collection) status and its machine. The spec leaves the values open;
 * ours: resolved (listed, nothing submitted yet), processing, completed, partial, failed.
 */
import { Either, Schema } from "effect"
import { batchOutcome, summarize } from "./batch.js"
import type { JobStatus } from "./job.js"
import type { IllegalTransition } from "./machine.js"
import { StateMachine } from "./machine.js"

export const CollectionStatus = Schema.Literal(
  "resolved",
  "processing",
  "completed",
  "partial",
  "failed"
).annotations({ identifier: "CollectionStatus" })
export type CollectionStatus = typeof CollectionStatus.Type

/**
 * The collection machine. Spec, "Playlist and channel batch status": "A string. Allowed values: not
 * shown." Ours: a resolve creates the record `resolved`; submitting its videos moves it to
 * processing, or straight to completed, partial or failed when every submitted video finished within
 * the request (as a batch may start finished); processing ends completed, partial or failed by the
 * batch rule. A collection whose videos are never submitted stays resolved. Finished is final.
 */
export const CollectionMachine = StateMachine.make({
  name: "collection",
  states: CollectionStatus.literals,
  initial: ["resolved"],
  transitions: {
    resolved: ["processing", "completed", "partial", "failed"],
    processing: ["completed", "partial", "failed"],
    completed: [],
    partial: [],
    failed: []
  },
  final: ["completed", "partial", "failed"]
})

/**
 * The status a collection's videos stand for. Each video carries its job status, or null while it
 * has not been submitted: all null is resolved; otherwise the batch rule over the submitted videos.
 */
export const collectionOutcome = (videos: Iterable<JobStatus | null>): CollectionStatus => {
  const submitted: Array<JobStatus> = []
  for (const status of videos) if (status !== null) submitted.push(status)
  return submitted.length === 0 ? "resolved" : batchOutcome(summarize(submitted))
}

/**
 * The status a collection moves to once its videos stand as given: unchanged when the outcome is
 * the current status, the move when the machine allows it, IllegalTransition otherwise (a finished
 * collection never changes, and none goes back to resolved).
 */
export const advanceCollection = (
  current: CollectionStatus,
  videos: Iterable<JobStatus | null>
): Either.Either<CollectionStatus, IllegalTransition> => {
  const outcome = collectionOutcome(videos)
  return outcome === current ? Either.right(current) : CollectionMachine.move(current, outcome)
}
