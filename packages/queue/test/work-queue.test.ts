/**
 * The work queue's semantics (core's `WorkQueue` port), on every implementation: memory always (on
 * the test clock), Redis when `REDIS_URL` is set (on the live clock: BullMQ and Redis keep real
 * time). Time passes through the kit's `letPass` only, so each test reads the same on both.
 */
import { expect } from "@effect/vitest"
import { QueueError, type WorkItem, type WorkOffer, WorkQueue } from "@verbatim/core"
import { Clock, Deferred, Duration, Effect, Exit, FastCheck as fc, Queue, Ref, Runtime } from "effect"
import { describeEachQueue, drained, eventually, freshLane, TestQueue } from "./harness.js"

const offers = (lane: string, accountId: string, count: number, from = 0): Array<WorkOffer> =>
  Array.from({ length: count }, (_, i) => ({ lane, id: `${accountId}-${from + i}`, accountId }))

/** Consumes the lane, recording every delivered item; the handler waits `holdMs` before finishing. */
const record = (lane: string, concurrency: number, holdMs = 0) =>
  Effect.gen(function* () {
    const queue = yield* WorkQueue
    const seen = yield* Queue.unbounded<WorkItem>()
    yield* queue.consume(lane, { concurrency }, (item) =>
      Queue.offer(seen, item).pipe(
        Effect.zipRight(holdMs > 0 ? Effect.sleep(Duration.millis(holdMs)) : Effect.void)
      )
    )
    return seen
  })

const takeN = (seen: Queue.Queue<WorkItem>, n: number) =>
  Effect.forEach(Array.from({ length: n }), () => Queue.take(seen)).pipe(
    Effect.timeoutFail({
      duration: Duration.seconds(20),
      onTimeout: () => new Error(`fewer than ${n} deliveries`)
    })
  )

/** Lets `duration` pass for the suite's queue (see `QueueKit.letPass`). */
const letPass = (duration: Duration.DurationInput) =>
  Effect.flatMap(TestQueue, (kit) => kit.letPass(duration))

/** Waits until the lane is drained, time passing as the suite's queue lets it. */
const drainedLane = (lane: string) => Effect.flatMap(TestQueue, (kit) => drained(lane, kit.letPass))

/**
 * Runs `effect` while time passes in 5 ms steps, so the handlers' own waits end. Each step is
 * uninterruptible: a `TestClock.adjust` cut short may have taken a sleep off the clock unwoken.
 */
const asTimePasses = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.raceFirst(effect, Effect.forever(Effect.uninterruptible(letPass(Duration.millis(5)))))

describeEachQueue("WorkQueue", (it, implementation) => {
  it.scoped("delivers every offered item exactly once", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      const all = [...offers(lane, "a", 20), ...offers(lane, "b", 15), ...offers(lane, "c", 5)]
      const seen = yield* record(lane, 4)
      // In several batches, while the consumer runs.
      yield* queue.offer(all.slice(0, 10))
      yield* queue.offer(all.slice(10, 25))
      yield* queue.offer(all.slice(25))
      const delivered = yield* takeN(seen, all.length)
      yield* drainedLane(lane)
      yield* letPass(Duration.millis(200))
      expect(yield* Queue.size(seen)).toBe(0)
      expect(delivered.map((item) => item.id).sort()).toEqual(all.map((item) => item.id).sort())
      for (const item of delivered) {
        expect(item).toEqual({ lane, id: item.id, accountId: item.id.split("-")[0], key: item.id })
      }
    })
  )

  it.scoped("an offer whose key is waiting does nothing, within one call and across calls", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      yield* queue.offer([
        { lane, id: "job-1", accountId: "a" },
        { lane, id: "job-1", accountId: "a" },
        { lane, id: "job-2", accountId: "a", key: "shared" },
        { lane, id: "job-3", accountId: "b", key: "shared" }
      ])
      yield* queue.offer([{ lane, id: "job-1", accountId: "a" }])
      expect(yield* queue.depth(lane)).toEqual({ waiting: 2, delayed: 0, active: 0 })
      const seen = yield* record(lane, 2)
      const delivered = yield* takeN(seen, 2)
      yield* drainedLane(lane)
      expect(yield* Queue.size(seen)).toBe(0)
      expect(delivered.map((item) => [item.id, item.key]).sort()).toEqual([
        ["job-1", "job-1"],
        ["job-2", "shared"]
      ])
    })
  )

  it.scoped("an offer whose key is running does nothing; once finished the key may be offered again", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      const started = yield* Queue.unbounded<WorkItem>()
      const release = yield* Queue.unbounded<void>()
      yield* queue.consume(lane, { concurrency: 2 }, (item) =>
        Queue.offer(started, item).pipe(Effect.zipRight(Queue.take(release)))
      )
      yield* queue.offer([{ lane, id: "row-1", accountId: "a" }])
      expect((yield* Queue.take(started)).id).toBe("row-1")
      yield* queue.offer([{ lane, id: "row-1", accountId: "a" }])
      expect(yield* queue.depth(lane)).toEqual({ waiting: 0, delayed: 0, active: 1 })
      yield* Queue.offer(release, undefined)
      yield* drainedLane(lane)
      yield* letPass(Duration.millis(100))
      expect(yield* Queue.size(started)).toBe(0)
      // Finished: the same key is a new item.
      yield* queue.offer([{ lane, id: "row-1", accountId: "a" }])
      expect((yield* Queue.take(started)).id).toBe("row-1")
      yield* Queue.offer(release, undefined)
      yield* drainedLane(lane)
    })
  )

  it.scoped("an offer whose key is delayed does nothing, even without a delay", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      yield* queue.offer([{ lane, id: "w-1", accountId: "a", delayMs: 60_000 }])
      yield* queue.offer([{ lane, id: "w-1", accountId: "a" }])
      expect(yield* queue.depth(lane)).toEqual({ waiting: 0, delayed: 1, active: 0 })
    })
  )

  it.scoped("a delayed item is not delivered before its delay has passed", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      const started = yield* Queue.unbounded<{ id: string; at: number }>()
      yield* queue.consume(lane, { concurrency: 2 }, (item) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(started, { id: item.id, at }))
      )
      const before = yield* Clock.currentTimeMillis
      yield* queue.offer([
        { lane, id: "later", accountId: "a", delayMs: 700 },
        { lane, id: "now", accountId: "a" }
      ])
      const first = yield* Queue.take(started)
      expect(first.id).toBe("now")
      expect((yield* queue.depth(lane)).delayed).toBe(1)
      if (implementation.name === "memory") {
        // On the test clock the delay is exact: nothing is delivered a millisecond before it.
        yield* letPass(Duration.millis(699))
        expect(yield* Queue.size(started)).toBe(0)
      }
      const second = yield* asTimePasses(Queue.take(started))
      expect(second.id).toBe("later")
      expect(second.at - before).toBeGreaterThanOrEqual(700)
    })
  )

  it.scoped("never runs more than `concurrency` handlers of a consumer at once", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      const running = yield* Ref.make(0)
      const most = yield* Ref.make(0)
      const done = yield* Queue.unbounded<string>()
      yield* queue.consume(lane, { concurrency: 3 }, (item) =>
        Effect.gen(function* () {
          const now = yield* Ref.updateAndGet(running, (n) => n + 1)
          yield* Ref.update(most, (m) => Math.max(m, now))
          yield* Effect.sleep(Duration.millis(15))
          yield* Ref.update(running, (n) => n - 1)
          yield* Queue.offer(done, item.id)
        })
      )
      yield* queue.offer([...offers(lane, "a", 20), ...offers(lane, "b", 10)])
      yield* asTimePasses(Effect.forEach(Array.from({ length: 30 }), () => Queue.take(done)))
      expect(yield* Ref.get(most)).toBe(3)
    })
  )

  it.scoped("fairness: one item of a second account runs among the first few after 200 of another", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      yield* queue.offer(offers(lane, "a", 200))
      yield* queue.offer([{ lane, id: "b-only", accountId: "b" }])
      const seen = yield* record(lane, 1)
      const firstFew = yield* takeN(seen, 3)
      expect(firstFew.map((item) => item.id)).toContain("b-only")
    })
  )

  it.scoped("fairness: accounts interleave round robin, each in offer order", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      yield* queue.offer(offers(lane, "a", 3))
      yield* queue.offer(offers(lane, "b", 3))
      yield* queue.offer(offers(lane, "c", 1))
      const seen = yield* record(lane, 1)
      const order = yield* takeN(seen, 7)
      expect(order.map((item) => item.id)).toEqual(["a-0", "b-0", "c-0", "a-1", "b-1", "a-2", "b-2"])
    })
  )

  it.scoped("fairness: an account that keeps offering while its items run keeps its order", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      yield* queue.offer(offers(lane, "a", 6))
      const seen = yield* record(lane, 1, 50)
      const firstHalf = yield* asTimePasses(takeN(seen, 3))
      yield* queue.offer(offers(lane, "a", 3, 6))
      yield* queue.offer(offers(lane, "b", 2))
      const rest = yield* asTimePasses(takeN(seen, 8))
      // The last item's hold ends, so closing the consumer does not wait for time that never passes.
      yield* letPass(Duration.millis(50))
      const order = [...firstHalf, ...rest].map((item) => item.id)
      expect(order.filter((id) => id.startsWith("a-"))).toEqual(Array.from({ length: 9 }, (_, i) => `a-${i}`))
      // b's first item waits for at most the item in hand and one more of a.
      expect(order.indexOf("b-0")).toBeLessThanOrEqual(5)
    })
  )

  it.effect(
    "fairness: for any offers made before consuming, (position in its account, offer order) decides",
    () =>
      Effect.gen(function* () {
        const runtime = yield* Effect.runtime<WorkQueue>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(fc.array(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 5 }), {
                maxLength: 8
              }),
              (batches) =>
                Runtime.runPromise(runtime)(
                  Effect.scoped(
                    Effect.gen(function* () {
                      const queue = yield* WorkQueue
                      const lane = freshLane("prop")
                      const counts = new Map<string, number>()
                      const expected: Array<{ id: string; position: number; order: number }> = []
                      for (const batch of batches) {
                        yield* queue.offer(
                          batch.map((accountId) => {
                            const position = (counts.get(accountId) ?? 0) + 1
                            counts.set(accountId, position)
                            const id = `${accountId}-${position}`
                            expected.push({ id, position, order: expected.length })
                            return { lane, id, accountId }
                          })
                        )
                      }
                      const seen = yield* record(lane, 1)
                      const delivered = yield* takeN(seen, expected.length)
                      expected.sort((x, y) => x.position - y.position || x.order - y.order)
                      expect(delivered.map((item) => item.id)).toEqual(expected.map((e) => e.id))
                    })
                  )
                )
            ),
            { numRuns: implementation.name === "memory" ? 50 : 15 }
          )
        )
      }),
    60_000
  )

  it.scoped("a handler that dies or is interrupted does not stop the consumer", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      const done = yield* Queue.unbounded<string>()
      yield* queue.consume(lane, { concurrency: 1 }, (item) =>
        item.id === "boom"
          ? Effect.die(new Error("handler bug"))
          : item.id === "stop"
            ? Effect.interrupt
            : Queue.offer(done, item.id)
      )
      yield* queue.offer([
        { lane, id: "boom", accountId: "a" },
        { lane, id: "stop", accountId: "a" },
        { lane, id: "fine", accountId: "a" }
      ])
      expect(yield* Queue.take(done)).toBe("fine")
      yield* drainedLane(lane)
      // Finished, even though it died: the key is free again.
      yield* queue.offer([
        { lane, id: "boom", accountId: "a" },
        { lane, id: "after", accountId: "a" }
      ])
      expect(yield* Queue.take(done)).toBe("after")
    })
  )

  it.scoped("closing the consumer's scope waits for the handler in hand, then takes nothing more", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      const started = yield* Deferred.make<void>()
      const finished = yield* Ref.make(false)
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* queue.consume(lane, { concurrency: 1 }, () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.zipRight(Effect.sleep(Duration.millis(300))),
              Effect.zipRight(Ref.set(finished, true))
            )
          )
          yield* queue.offer([{ lane, id: "slow", accountId: "a" }])
          yield* Deferred.await(started)
        })
      ).pipe(asTimePasses)
      expect(yield* Ref.get(finished)).toBe(true)
      yield* drainedLane(lane)
      yield* queue.offer([{ lane, id: "orphan", accountId: "a" }])
      yield* letPass(Duration.millis(300))
      expect(yield* queue.depth(lane)).toEqual({ waiting: 1, delayed: 0, active: 0 })
      // A new consumer picks it up.
      const seen = yield* record(lane, 1)
      expect((yield* Queue.take(seen)).id).toBe("orphan")
    })
  )

  it.scoped("depth counts waiting, delayed and active items", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const lane = freshLane()
      expect(yield* queue.depth(lane)).toEqual({ waiting: 0, delayed: 0, active: 0 })
      yield* queue.offer([
        ...offers(lane, "a", 3),
        { lane, id: "d-1", accountId: "a", delayMs: 60_000 },
        { lane, id: "d-2", accountId: "b", delayMs: 60_000 }
      ])
      expect(yield* queue.depth(lane)).toEqual({ waiting: 3, delayed: 2, active: 0 })
      const started = yield* Queue.unbounded<string>()
      const release = yield* Deferred.make<void>()
      yield* queue.consume(lane, { concurrency: 1 }, (item) =>
        Queue.offer(started, item.id).pipe(Effect.zipRight(Deferred.await(release)))
      )
      // Runs before the consumer's finalizer, which waits for the handler in hand.
      yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
      yield* Queue.take(started)
      const kit = yield* TestQueue
      yield* eventually(
        Effect.map(queue.depth(lane), (d) => d.waiting === 2 && d.delayed === 2 && d.active === 1),
        Duration.seconds(10),
        kit.letPass
      )
    }).pipe(Effect.timeout(Duration.seconds(20)))
  )

  it.effect("lanes are independent", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const one = freshLane()
      const two = freshLane()
      yield* queue.offer([
        { lane: one, id: "x", accountId: "a" },
        { lane: two, id: "x", accountId: "a" },
        { lane: two, id: "y", accountId: "a" }
      ])
      expect(yield* queue.depth(one)).toEqual({ waiting: 1, delayed: 0, active: 0 })
      expect(yield* queue.depth(two)).toEqual({ waiting: 2, delayed: 0, active: 0 })
    })
  )

  it.scoped("refuses lane names that cannot be keys, and a concurrency below 1", () =>
    Effect.gen(function* () {
      const queue = yield* WorkQueue
      const badOffer = yield* Effect.exit(queue.offer([{ lane: "a:b", id: "x", accountId: "a" }]))
      expect(
        Exit.isFailure(badOffer) && badOffer.cause._tag === "Fail" && badOffer.cause.error
      ).toBeInstanceOf(QueueError)
      const badConsume = yield* Effect.exit(queue.consume(freshLane(), { concurrency: 0 }, () => Effect.void))
      expect(Exit.isFailure(badConsume)).toBe(true)
      const badDepth = yield* Effect.exit(queue.depth(""))
      expect(Exit.isFailure(badDepth)).toBe(true)
    })
  )
})
