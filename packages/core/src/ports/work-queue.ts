/**
 * The work queue: how accepted work (a job to run, a webhook delivery to send) reaches a worker.
 * In memory for the embedded default (worker fibers in the server process), on Redis when many
 * servers and workers share the work. Both implementations pass one shared test suite.
 *
 * PostgreSQL stays the record of every job's state: the queue only carries *which* row to work on
 * next. A worker claims the row (with a lease) before working on it, so an item delivered twice
 * runs once; a reconciler offers again the rows whose items the queue lost.
 *
 * Semantics every implementation keeps:
 * - Lanes: each kind of work has its own lane, consumed with its own concurrency bound.
 * - At least once: an item whose handler has not finished when its process dies is delivered
 *   again (after the implementation's stall timeout); an item whose handler finished (succeeded
 *   or failed) is done: retries are the caller's decision, by offering a new item.
 * - Deduplication: offering an item whose `key` is already waiting, delayed or running in the
 *   lane does nothing; once it has finished, the same key may be offered again.
 * - Fairness: within a lane, items of an account that has many waiting do not starve another
 *   account's: the implementation interleaves accounts (round robin by each account's backlog),
 *   earliest offer first within an account.
 * - Delay: an item offered with `delayMs` is not delivered before that time has passed.
 */
import { Context, type Effect, Schema, type Scope } from "effect"

/** One piece of work: the row to work on, in its lane, for its account. */
export interface WorkItem {
  /** The lane (kind of work), e.g. `job` or `webhook`. */
  readonly lane: string
  /** The id of the row to work on (a job id, a delivery id). */
  readonly id: string
  /** The account the work belongs to (the fairness unit). */
  readonly accountId: string
  /** Deduplication key within the lane; defaults to `id`. */
  readonly key?: string | undefined
}

export interface WorkOffer extends WorkItem {
  /** Deliver no sooner than this many milliseconds from now (0 or absent: now). */
  readonly delayMs?: number | undefined
}

/** Counts of a lane's items, for readiness and metrics. */
export interface LaneDepth {
  /** Ready to be delivered. */
  readonly waiting: number
  /** Offered with a delay that has not passed yet. */
  readonly delayed: number
  /** Delivered to a handler that has not finished. */
  readonly active: number
}

export interface ConsumeOptions {
  /** At most this many handlers of the lane run at once in this process. */
  readonly concurrency: number
}

/** The queue's store failed (Redis unreachable, a command refused). */
export class QueueError extends Schema.TaggedError<QueueError>()("QueueError", {
  operation: Schema.String,
  cause: Schema.Defect
}) {}

export class WorkQueue extends Context.Tag("@verbatim/core/WorkQueue")<
  WorkQueue,
  {
    /** Adds items (see deduplication and delay above). */
    readonly offer: (items: ReadonlyArray<WorkOffer>) => Effect.Effect<void, QueueError>
    /**
     * Delivers the lane's items to `handle`, at most `concurrency` at once, for as long as the
     * scope is open. Closing the scope stops taking new items and waits for the handlers in hand.
     * The handler cannot fail: what a failure means (retry later, give up) is its own decision.
     */
    readonly consume: (
      lane: string,
      options: ConsumeOptions,
      handle: (item: WorkItem) => Effect.Effect<void>
    ) => Effect.Effect<void, QueueError, Scope.Scope>
    readonly depth: (lane: string) => Effect.Effect<LaneDepth, QueueError>
  }
>() {}
