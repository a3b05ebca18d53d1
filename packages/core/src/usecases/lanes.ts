/**
 * What every kind of queued work shares (jobs and webhook deliveries in `worker.ts`, batch items in
 * `batch.ts`, theme detections in `themes.ts`):
 *
 * - a lease's heartbeat: extended every third of the lease (at least every 50 ms) until an extension
 *   finds it lost; an extension that fails is logged and counts as kept (tried again next beat);
 * - work run while its lease is kept, interrupted when the lease is lost;
 * - lane runners: each lane's items handed to their handler, interruptibly (the heartbeat and the
 *   shutdown hand-back rely on interrupting the work), and a reconciler on a schedule, for as long
 *   as the scope is open.
 */
import { Duration, Effect, Option, Schedule, type Scope } from "effect"
import type { QueueError, WorkItem, WorkQueue } from "../ports/work-queue.js"

/** How often a lease of `leaseMs` is extended. */
export const beatEvery = (leaseMs: number): Duration.Duration =>
  Duration.millis(Math.max(50, Math.floor(leaseMs / 3)))

/**
 * Extends a lease every beat until `extend` answers false (the lease was lost), then ends; an
 * `extend` that always answers true beats for as long as it runs. A failed extension is logged
 * (`what`) and counts as kept.
 */
export const heartbeat = <E, R>(
  leaseMs: number,
  extend: Effect.Effect<boolean, E, R>,
  what: string
): Effect.Effect<void, never, R> =>
  extend.pipe(
    Effect.catchAllCause((cause) => Effect.as(Effect.logWarning(`could not extend ${what}`, cause), true)),
    Effect.delay(beatEvery(leaseMs)),
    Effect.repeat({ while: (kept) => kept }),
    Effect.asVoid
  )

/**
 * Runs `work` while its lease is kept alive by `extend` (see `heartbeat`): its result, or none (and
 * `work` interrupted) when the lease was lost.
 */
export const whileLeased = <A, E, R, E2, R2>(
  lease: { readonly leaseMs: number; readonly extend: Effect.Effect<boolean, E2, R2>; readonly what: string },
  work: Effect.Effect<A, E, R>
): Effect.Effect<Option.Option<A>, E, R | R2> =>
  Effect.raceFirst(
    Effect.map(work, Option.some),
    Effect.as(heartbeat(lease.leaseMs, lease.extend, lease.what), Option.none<A>())
  )

/** One lane consumed by a process: at most `concurrency` items at once, each to `handle`. */
export interface LaneRunner {
  readonly lane: string
  readonly concurrency: number
  /** Handles one item; cannot fail (see `WorkQueue.consume`). */
  readonly handle: (item: WorkItem) => Effect.Effect<void>
}

/**
 * Consumes every lane, each item's handler interruptible whatever the queue's own handler region
 * is, and runs `reconcile` every `reconcileEveryMs`, while the scope is open.
 */
export const runLanes = (
  queue: WorkQueue["Type"],
  options: {
    readonly lanes: ReadonlyArray<LaneRunner>
    readonly reconcile: Effect.Effect<unknown>
    readonly reconcileEveryMs: number
  }
): Effect.Effect<void, QueueError, Scope.Scope> =>
  Effect.gen(function* () {
    for (const { lane, concurrency, handle } of options.lanes) {
      yield* queue.consume(lane, { concurrency }, (item) => Effect.interruptible(handle(item)))
    }
    yield* Effect.forkScoped(
      options.reconcile.pipe(Effect.repeat(Schedule.spaced(Duration.millis(options.reconcileEveryMs))))
    )
  })
