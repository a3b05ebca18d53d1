/**
 * What every kind of queued work shares (jobs and webhook deliveries in `worker.ts`, batch items in
 * `batch.ts`, theme detections in `themes.ts`):
 *
 * - a lease's heartbeat: extended every third of the lease (at least every 50 ms) until an extension
 *   finds it lost; an extension that fails is logged and counts as kept (tried again next beat);
 * - work run while its lease is kept, interrupted when the lease is lost;
 * - follow-ups: work an item leaves to run beside the next one, let finish (for a bounded grace)
 *   when the service that forked it closes;
 * - one registry of background work (`BackgroundWork`): each feature contributes its lanes (what
 *   they carry, how many at once, the handler), its reconciler and sweeps, and its shutdown signal;
 * - one runner (`runBackgroundWork`): each lane's items handed to their handler, interruptibly (the
 *   heartbeat and the shutdown hand-back rely on interrupting the work), and every feature's
 *   reconciler on a schedule, for as long as the scope is open.
 */
import { Context, Duration, Effect, FiberSet, Option, Schedule, type Scope } from "effect"
import { type QueueError, type WorkItem, WorkQueue } from "../ports/work-queue.js"

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

/** How long a closing service waits for its follow-ups before it interrupts them. */
export const followUpGrace = Duration.seconds(2)

/**
 * Where a service forks the work its callers leave behind (an offer, a done mark): each runs beside
 * its caller, and when the scope closes, what is still running is awaited for up to `grace`, then
 * interrupted. A shutdown therefore lets a done mark in flight land (interrupted, it would be made
 * again only once the item's lease expired), while a follow-up that hangs cannot hold the shutdown.
 */
export const makeFollowUps = (
  grace: Duration.DurationInput = followUpGrace
): Effect.Effect<
  <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<void, never, R>,
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const running = yield* FiberSet.make()
    // Added after the set's own finalizer (which interrupts what it holds), so it runs first.
    yield* Effect.addFinalizer(() =>
      // Interruptible: finalizers run uninterruptibly, and the timeout must be able to stop the wait.
      Effect.interruptible(FiberSet.awaitEmpty(running)).pipe(
        Effect.timeoutOption(grace),
        Effect.flatMap((drained) =>
          Option.isSome(drained)
            ? Effect.void
            : Effect.flatMap(FiberSet.size(running), (left) =>
                Effect.logWarning(
                  `${left} follow-ups still running after ${Duration.format(grace)}: interrupted`
                )
              )
        )
      )
    )
    return (work) => Effect.asVoid(FiberSet.run(running, work))
  })

/** One lane consumed by a process: at most `concurrency` items at once, each to `handle`. */
export interface Lane {
  readonly lane: string
  readonly concurrency: number
  /** Handles one item; cannot fail (see `WorkQueue.consume`). */
  readonly handle: (item: WorkItem) => Effect.Effect<void>
}

/**
 * What one feature runs in the background (jobs, webhook deliveries, batch items, theme
 * detections): its lanes, the reconciler that offers again what PostgreSQL says is runnable (and
 * runs the feature's sweeps) every round, and what it does when shutdown begins.
 */
export interface BackgroundFeature {
  /** The feature's name, in logs. */
  readonly name: string
  readonly lanes: ReadonlyArray<Lane>
  /** Runs every `reconcileEveryMs`; it logs its own failures. */
  readonly reconcile: Effect.Effect<unknown>
  /**
   * Runs when the scope begins to close, before the feature's consumers wait for their handlers
   * (the worker starts its shutdown grace here).
   */
  readonly stopping?: Effect.Effect<void> | undefined
}

/**
 * The registry of background work: every feature a process runs, in order. Built by the wiring
 * (`@verbatim/runtime`'s `workerOn`) from what each feature contributes; test wiring adds its own.
 */
export class BackgroundWork extends Context.Tag("@verbatim/core/BackgroundWork")<
  BackgroundWork,
  ReadonlyArray<BackgroundFeature>
>() {}

/**
 * Consumes every lane of every registered feature, each item's handler interruptible whatever the
 * queue's own handler region is, and runs each feature's reconciler every `reconcileEveryMs`, while
 * the scope is open. Features are started in order; when the scope closes, the last one stops first.
 */
export const runBackgroundWork = (options: {
  readonly reconcileEveryMs: number
}): Effect.Effect<void, QueueError, Scope.Scope | WorkQueue | BackgroundWork> =>
  Effect.gen(function* () {
    const queue = yield* WorkQueue
    for (const feature of yield* BackgroundWork) {
      for (const { lane, concurrency, handle } of feature.lanes) {
        yield* queue.consume(lane, { concurrency }, (item) => Effect.interruptible(handle(item)))
      }
      yield* Effect.forkScoped(
        feature.reconcile.pipe(Effect.repeat(Schedule.spaced(Duration.millis(options.reconcileEveryMs))))
      )
      // Added after the feature's consumers, so it runs before they wait for their handlers.
      const stopping = feature.stopping
      if (stopping !== undefined) yield* Effect.addFinalizer(() => stopping)
    }
  })
