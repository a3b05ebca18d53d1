/**
 * The in-memory `WorkQueue` for the embedded default: one process, worker fibers beside the
 * server. Semantics are those of core's port (lanes, deduplication, fairness, delays), checked by
 * the suite it shares with the Redis queue.
 *
 * - Each lane's state is one `TRef` (persistent red-black trees and maps): an offer, a take and a
 *   finish are STM transactions, and a consumer waiting for work simply retries until the lane
 *   changes. A take is atomic with the item's removal, so an item is delivered to one consumer.
 * - Delays run on Effect's `Clock` (so `TestClock` can drive them): one fiber per lane sleeps until
 *   the earliest delayed item is due, or until an earlier one is offered.
 * - Interrupt-safe: a consumer is interrupted only while it waits; once an item is taken its
 *   handler is forked (uninterruptibly) and always finishes the item. Closing the consumer's scope
 *   stops the taking and waits for the handlers in hand.
 * - Bounded: finished items leave no trace; a lane holds at most `capacity` waiting and delayed
 *   items (an offer beyond that fails with `QueueError`, and PostgreSQL's reconciler offers the
 *   rows again later).
 * - At least once, within the process: nothing survives the process; the rows whose items were
 *   lost are offered again by the reconciler, from PostgreSQL.
 */
import {
  type ConsumeOptions,
  type LaneDepth,
  QueueError,
  type WorkItem,
  type WorkOffer,
  WorkQueue
} from "@verbatim/core"
import {
  Cause,
  Clock,
  Duration,
  Effect,
  Fiber,
  HashMap,
  HashSet,
  Layer,
  Option,
  Order,
  RedBlackTree,
  type Scope,
  STM,
  SynchronizedRef,
  TRef
} from "effect"
import { checkConcurrency, checkLane, delayOf, delivered, rankOf } from "./fairness.js"

export interface MemoryWorkQueueOptions {
  /** Most waiting plus delayed items a lane holds (default 100,000). */
  readonly capacity?: number | undefined
}

export const defaultCapacity = 100_000

type Item = WorkItem & { readonly key: string }

interface Entry {
  readonly item: Item
  readonly rank: number
}

/** `[rank or due time, sequence]`: the sequence breaks ties in offer (or promotion) order. */
type Position = readonly [number, number]

const byPosition: Order.Order<Position> = Order.tuple(Order.number, Order.number)

interface LaneState {
  readonly sequence: number
  /** The highest rank delivered since the lane was last empty. */
  readonly virtualTime: number
  /** Each account's latest rank since the lane was last empty. */
  readonly lastRank: HashMap.HashMap<string, number>
  readonly ready: RedBlackTree.RedBlackTree<Position, Entry>
  readonly delayed: RedBlackTree.RedBlackTree<Position, Entry>
  /** Keys waiting, delayed or running. */
  readonly keys: HashSet.HashSet<string>
  readonly active: number
}

const emptyLane: LaneState = {
  sequence: 0,
  virtualTime: 0,
  lastRank: HashMap.empty(),
  ready: RedBlackTree.empty(byPosition),
  delayed: RedBlackTree.empty(byPosition),
  keys: HashSet.empty(),
  active: 0
}

/** Adds the offers to a lane, or tells that the lane would hold more than `capacity`. */
const addOffers = (
  state: LaneState,
  offers: ReadonlyArray<WorkOffer>,
  nowMs: number,
  capacity: number
): LaneState | undefined => {
  let next = state
  for (const offer of offers) {
    const item = delivered(offer)
    if (HashSet.has(next.keys, item.key)) continue
    const rank = rankOf(next.virtualTime, Option.getOrUndefined(HashMap.get(next.lastRank, item.accountId)))
    const delay = delayOf(offer.delayMs)
    const entry: Entry = { item, rank }
    next = {
      ...next,
      sequence: next.sequence + 1,
      lastRank: HashMap.set(next.lastRank, item.accountId, rank),
      keys: HashSet.add(next.keys, item.key),
      ...(delay === 0
        ? { ready: RedBlackTree.insert(next.ready, [rank, next.sequence] as const, entry) }
        : { delayed: RedBlackTree.insert(next.delayed, [nowMs + delay, next.sequence] as const, entry) })
    }
  }
  const held = RedBlackTree.size(next.ready) + RedBlackTree.size(next.delayed)
  return held > capacity && held > RedBlackTree.size(state.ready) + RedBlackTree.size(state.delayed)
    ? undefined
    : next
}

/** Takes the lowest rank (retrying until there is one), marking it running. */
const takeNext = (lane: TRef.TRef<LaneState>): STM.STM<Item> =>
  STM.flatMap(TRef.get(lane), (state) =>
    Option.match(RedBlackTree.first(state.ready), {
      onNone: () => STM.retry,
      onSome: ([position, entry]) => {
        const ready = RedBlackTree.removeFirst(state.ready, position)
        const idle = RedBlackTree.size(ready) === 0 && RedBlackTree.size(state.delayed) === 0
        const next: LaneState = {
          ...state,
          ready,
          active: state.active + 1,
          virtualTime: idle ? 0 : Math.max(state.virtualTime, entry.rank),
          lastRank: idle ? HashMap.empty() : state.lastRank
        }
        return STM.as(TRef.set(lane, next), entry.item)
      }
    })
  )

const finish = (lane: TRef.TRef<LaneState>, key: string): STM.STM<void> =>
  TRef.update(lane, (state) => ({
    ...state,
    active: state.active - 1,
    keys: HashSet.remove(state.keys, key)
  }))

/** The due time of the earliest delayed item (retrying while there is none). */
const earliestDue = (lane: TRef.TRef<LaneState>): STM.STM<number> =>
  STM.flatMap(TRef.get(lane), (state) =>
    Option.match(RedBlackTree.first(state.delayed), {
      onNone: () => STM.retry,
      onSome: ([[dueAt]]) => STM.succeed(dueAt)
    })
  )

/** Moves every delayed item due by `nowMs` to the ready items, in due order. */
const promote = (lane: TRef.TRef<LaneState>, nowMs: number): STM.STM<void> =>
  TRef.update(lane, (state) => {
    let { delayed, ready, sequence } = state
    for (;;) {
      const first = RedBlackTree.first(delayed)
      if (first._tag === "None" || first.value[0][0] > nowMs) break
      const [position, entry] = first.value
      delayed = RedBlackTree.removeFirst(delayed, position)
      ready = RedBlackTree.insert(ready, [entry.rank, sequence] as const, entry)
      sequence += 1
    }
    return { ...state, delayed, ready, sequence }
  })

/** Promotes delayed items when they are due, for as long as the queue lives. */
const scheduler = (lane: TRef.TRef<LaneState>): Effect.Effect<never> =>
  Effect.forever(
    Effect.gen(function* () {
      const dueAt = yield* STM.commit(earliestDue(lane))
      const now = yield* Clock.currentTimeMillis
      if (dueAt > now) {
        // Sleep until it is due, or until an earlier item arrives.
        const earlier = STM.flatMap(earliestDue(lane), (due) => (due < dueAt ? STM.void : STM.retry))
        yield* Effect.raceFirst(Effect.sleep(Duration.millis(dueAt - now)), STM.commit(earlier))
        return
      }
      yield* STM.commit(promote(lane, now))
    })
  )

const logHandlerFailure = (item: Item, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  (Cause.isInterruptedOnly(cause)
    ? Effect.logDebug("work item handler was interrupted", cause)
    : Effect.logError("work item handler died", cause)
  ).pipe(Effect.annotateLogs({ lane: item.lane, itemId: item.id, accountId: item.accountId }))

/** The queue, living as long as the scope (its delay schedulers run in it). */
export const make = (
  options: MemoryWorkQueueOptions = {}
): Effect.Effect<WorkQueue["Type"], never, Scope.Scope> =>
  Effect.gen(function* () {
    const capacity = options.capacity ?? defaultCapacity
    const queueScope = yield* Effect.scope
    const lanes = yield* SynchronizedRef.make(HashMap.empty<string, TRef.TRef<LaneState>>())

    const laneOf = (name: string): Effect.Effect<TRef.TRef<LaneState>> =>
      SynchronizedRef.modifyEffect(lanes, (map) =>
        Option.match(HashMap.get(map, name), {
          onSome: (lane) => Effect.succeed([lane, map] as const),
          onNone: () =>
            Effect.gen(function* () {
              const lane = yield* TRef.make(emptyLane)
              yield* Effect.forkIn(scheduler(lane), queueScope)
              return [lane, HashMap.set(map, name, lane)] as const
            })
        })
      )

    const offer = (items: ReadonlyArray<WorkOffer>): Effect.Effect<void, QueueError> =>
      Effect.gen(function* () {
        const byLane = new Map<string, Array<WorkOffer>>()
        for (const item of items) {
          yield* checkLane("offer", item.lane)
          const list = byLane.get(item.lane)
          if (list === undefined) byLane.set(item.lane, [item])
          else list.push(item)
        }
        const targets = yield* Effect.forEach(Array.from(byLane), ([name, offers]) =>
          Effect.map(laneOf(name), (lane) => ({ name, lane, offers }))
        )
        const now = yield* Clock.currentTimeMillis
        // One transaction for every lane: either the whole offer is taken, or none of it.
        yield* STM.commit(
          STM.forEach(targets, ({ name, lane, offers }) =>
            STM.flatMap(TRef.get(lane), (state) => {
              const next = addOffers(state, offers, now, capacity)
              return next === undefined
                ? STM.fail(
                    new QueueError({
                      operation: "offer",
                      cause: new Error(`lane ${name} holds ${capacity} items already`)
                    })
                  )
                : TRef.set(lane, next)
            })
          )
        )
      })

    const consume = (
      name: string,
      consumeOptions: ConsumeOptions,
      handle: (item: WorkItem) => Effect.Effect<void>
    ): Effect.Effect<void, QueueError, Scope.Scope> =>
      Effect.gen(function* () {
        yield* checkLane("consume", name)
        yield* checkConcurrency(consumeOptions.concurrency)
        const lane = yield* laneOf(name)
        const permits = yield* Effect.makeSemaphore(consumeOptions.concurrency)

        const run = (item: Item): Effect.Effect<void> =>
          handle(item).pipe(
            Effect.catchAllCause((cause) => logHandlerFailure(item, cause)),
            Effect.ensuring(Effect.zipRight(STM.commit(finish(lane, item.key)), permits.release(1)))
          )

        // Interruptible only while waiting for a permit or an item: once taken, the item's handler
        // is forked before anything can interrupt this fiber.
        const step = Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            yield* restore(permits.take(1))
            const item = yield* restore(STM.commit(takeNext(lane))).pipe(
              Effect.onInterrupt(() => permits.release(1))
            )
            yield* Effect.forkDaemon(run(item))
          })
        )

        const taker = yield* Effect.forkDaemon(Effect.forever(step))
        yield* Effect.addFinalizer(() =>
          Fiber.interrupt(taker).pipe(
            // Every permit back means every handler in hand has finished.
            Effect.zipRight(permits.take(consumeOptions.concurrency)),
            Effect.zipRight(permits.release(consumeOptions.concurrency))
          )
        )
      })

    const depth = (name: string): Effect.Effect<LaneDepth, QueueError> =>
      Effect.gen(function* () {
        yield* checkLane("depth", name)
        const map = yield* SynchronizedRef.get(lanes)
        const lane = HashMap.get(map, name)
        if (lane._tag === "None") return { waiting: 0, delayed: 0, active: 0 }
        const state = yield* STM.commit(TRef.get(lane.value))
        return {
          waiting: RedBlackTree.size(state.ready),
          delayed: RedBlackTree.size(state.delayed),
          active: state.active
        }
      })

    return WorkQueue.of({ offer, consume, depth })
  })

export const layer: Layer.Layer<WorkQueue> = Layer.scoped(WorkQueue, make())

export const layerWith = (options: MemoryWorkQueueOptions): Layer.Layer<WorkQueue> =>
  Layer.scoped(WorkQueue, make(options))
