/**
 * Rules of the in-memory queue checked as properties (random offer sequences, `TestClock` delays),
 * and what only it has: a capacity, and consumers opened and closed at any moment.
 */
import { describe, expect, it } from "@effect/vitest"
import { QueueError, type WorkItem, type WorkOffer } from "@verbatim/core"
import { Clock, Duration, Effect, Exit, Fiber, FastCheck as fc, Queue, Random, TestClock } from "effect"
import { MemoryWorkQueue } from "../src/index.js"

const accounts = fc.constantFrom("a", "b", "c", "d")

/** Waits (live clock) until `check` holds. */
const until = <E>(check: Effect.Effect<boolean, E>): Effect.Effect<void, E> =>
  Effect.flatMap(check, (ok) =>
    ok ? Effect.void : Effect.zipRight(Effect.sleep(Duration.millis(1)), until(check))
  )

describe("MemoryWorkQueue", () => {
  it(
    "interleaves accounts: the lowest (position in its account, offer order) is delivered first",
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(accounts, { minLength: 1, maxLength: 6 }), { maxLength: 12 }),
          (batches) =>
            Effect.runPromise(
              Effect.scoped(
                Effect.gen(function* () {
                  const queue = yield* MemoryWorkQueue.make()
                  const counts = new Map<string, number>()
                  const expected: Array<{ id: string; position: number; order: number }> = []
                  for (const batch of batches) {
                    const offers: Array<WorkOffer> = batch.map((accountId) => {
                      const position = (counts.get(accountId) ?? 0) + 1
                      counts.set(accountId, position)
                      const id = `${accountId}-${position}`
                      expected.push({ id, position, order: expected.length })
                      return { lane: "l", id, accountId }
                    })
                    yield* queue.offer(offers)
                  }
                  const seen = yield* Queue.unbounded<string>()
                  yield* queue.consume("l", { concurrency: 1 }, (item) => Queue.offer(seen, item.id))
                  const delivered = yield* Effect.forEach(expected, () => Queue.take(seen))
                  expected.sort((x, y) => x.position - y.position || x.order - y.order)
                  expect(delivered).toEqual(expected.map((e) => e.id))
                })
              )
            )
        ),
        { numRuns: 100 }
      ),
    60_000
  )

  it(
    "while items run: each account keeps its order, and an idle account waits at most 2 items of any other",
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              { arbitrary: fc.record({ offer: accounts, count: fc.integer({ min: 1, max: 5 }) }), weight: 2 },
              { arbitrary: fc.constant({ finish: true as const }), weight: 3 }
            ),
            { maxLength: 80 }
          ),
          (actions) =>
            Effect.runPromise(
              Effect.scoped(
                Effect.gen(function* () {
                  const queue = yield* MemoryWorkQueue.make()
                  const started = yield* Queue.unbounded<WorkItem>()
                  const release = yield* Queue.unbounded<void>()
                  yield* queue.consume("l", { concurrency: 1 }, (item) =>
                    Queue.offer(started, item).pipe(Effect.zipRight(Queue.take(release)))
                  )
                  // The model: what each account has waiting (offered, not delivered), and the log.
                  const waiting = new Map<string, Array<string>>()
                  const log: Array<{
                    kind: "offer" | "deliver"
                    id: string
                    accountId: string
                    idle?: boolean
                  }> = []
                  let inHand: WorkItem | undefined
                  let offered = 0
                  const deliver = (item: WorkItem) => {
                    log.push({ kind: "deliver", id: item.id, accountId: item.accountId })
                    const queueOf = waiting.get(item.accountId) ?? []
                    queueOf.splice(queueOf.indexOf(item.id), 1)
                    inHand = item
                  }
                  const settle = Effect.gen(function* () {
                    // After a change, let the consumer take the next item if there is one: wait until
                    // it reports one, or until it has nothing in hand and nothing to take.
                    yield* until(
                      Effect.map(
                        Effect.all([Queue.size(started), queue.depth("l")]),
                        ([size, depth]) =>
                          size > 0 || inHand !== undefined || (depth.waiting === 0 && depth.active === 0)
                      )
                    )
                    const next = yield* Queue.poll(started)
                    if (next._tag === "Some") deliver(next.value)
                  })
                  for (const action of actions) {
                    if ("offer" in action) {
                      for (let i = 0; i < action.count; i++) {
                        offered += 1
                        const id = `${action.offer}-${offered}`
                        const queueOf = waiting.get(action.offer) ?? []
                        log.push({ kind: "offer", id, accountId: action.offer, idle: queueOf.length === 0 })
                        waiting.set(action.offer, [...queueOf, id])
                        yield* queue.offer([{ lane: "l", id, accountId: action.offer }])
                      }
                    } else if (inHand !== undefined) {
                      inHand = undefined
                      yield* Queue.offer(release, undefined)
                    }
                    yield* settle
                  }
                  // Finish everything.
                  while (inHand !== undefined) {
                    inHand = undefined
                    yield* Queue.offer(release, undefined)
                    yield* settle
                  }
                  const deliveries = log.filter((e) => e.kind === "deliver")
                  expect(deliveries).toHaveLength(offered)
                  // Each account in offer order.
                  for (const accountId of ["a", "b", "c", "d"]) {
                    const offers = log
                      .filter((e) => e.kind === "offer" && e.accountId === accountId)
                      .map((e) => e.id)
                    expect(deliveries.filter((e) => e.accountId === accountId).map((e) => e.id)).toEqual(
                      offers
                    )
                  }
                  // An account with nothing waiting is served after at most 2 items of each other account.
                  log.forEach((entry, at) => {
                    if (entry.kind !== "offer" || entry.idle !== true) return
                    const deliveredAt = log.findIndex((e) => e.kind === "deliver" && e.id === entry.id)
                    const between = log.slice(at + 1, deliveredAt).filter((e) => e.kind === "deliver")
                    const perAccount = new Map<string, number>()
                    for (const e of between)
                      perAccount.set(e.accountId, (perAccount.get(e.accountId) ?? 0) + 1)
                    for (const count of perAccount.values()) expect(count).toBeLessThanOrEqual(2)
                  })
                })
              )
            )
        ),
        { numRuns: 60 }
      ),
    120_000
  )

  it.scoped("delays run on the Effect clock: nothing before its time, everything once due", () =>
    Effect.gen(function* () {
      const queue = yield* MemoryWorkQueue.make()
      const seen = yield* Queue.unbounded<{ id: string; at: number }>()
      yield* queue.consume("l", { concurrency: 4 }, (item) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(seen, { id: item.id, at }))
      )
      const offers: Array<WorkOffer & { readonly dueAt: number }> = []
      for (let i = 0; i < 60; i++) {
        const delayMs = yield* Random.nextIntBetween(0, 5_000)
        const now = yield* Clock.currentTimeMillis
        const offer = { lane: "l", id: `x-${i}`, accountId: `acc-${i % 3}`, delayMs, dueAt: now + delayMs }
        offers.push(offer)
        yield* queue.offer([offer])
        if (i % 10 === 9) yield* TestClock.adjust(Duration.millis(137))
      }
      for (let t = 0; t < 60; t++) {
        yield* TestClock.adjust(Duration.millis(100))
        // Let the scheduler and the consumer run at this instant.
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      }
      const delivered = yield* Queue.takeAll(seen)
      expect(delivered.length).toBe(offers.length)
      for (const { id, at } of delivered) {
        const offer = offers.find((o) => o.id === id)
        expect(at).toBeGreaterThanOrEqual(offer?.dueAt ?? Number.POSITIVE_INFINITY)
      }
    })
  )

  it.scoped("a lane holds at most `capacity` waiting and delayed items; a refused offer adds nothing", () =>
    Effect.gen(function* () {
      const queue = yield* MemoryWorkQueue.make({ capacity: 5 })
      const refused = yield* Effect.exit(
        queue.offer(Array.from({ length: 6 }, (_, i) => ({ lane: "l", id: `x-${i}`, accountId: "a" })))
      )
      expect(Exit.isFailure(refused) && refused.cause._tag === "Fail" && refused.cause.error).toBeInstanceOf(
        QueueError
      )
      expect(yield* queue.depth("l")).toEqual({ waiting: 0, delayed: 0, active: 0 })
      yield* queue.offer([
        ...Array.from({ length: 4 }, (_, i) => ({ lane: "l", id: `x-${i}`, accountId: "a" })),
        { lane: "l", id: "later", accountId: "a", delayMs: 1_000 }
      ])
      // A duplicate adds nothing, so it is not refused.
      yield* queue.offer([{ lane: "l", id: "x-0", accountId: "a" }])
      expect(
        Exit.isFailure(yield* Effect.exit(queue.offer([{ lane: "l", id: "x-9", accountId: "a" }])))
      ).toBe(true)
      // Other lanes have their own room.
      yield* queue.offer([{ lane: "other", id: "x-9", accountId: "a" }])
      expect(yield* queue.depth("l")).toEqual({ waiting: 4, delayed: 1, active: 0 })
    })
  )

  // Live clock on purpose: the property is about interleavings, not time; real scheduling gives the
  // closes their moments (on the test clock, moved in 1 ms steps, it closes only at steps and took
  // 1.0-1.4 s instead of 0.16 s).
  it.live("consumers opened and closed at any moment never lose or repeat an item", () =>
    Effect.gen(function* () {
      const queue = yield* MemoryWorkQueue.make()
      const seen = yield* Queue.unbounded<string>()
      const ids = Array.from({ length: 400 }, (_, i) => `item-${i}`)
      const offering = yield* Effect.fork(
        Effect.forEach(
          ids,
          (id, i) =>
            queue
              .offer([{ lane: "l", id, accountId: `acc-${i % 5}` }])
              .pipe(Effect.zipRight(i % 20 === 0 ? Effect.sleep(Duration.millis(1)) : Effect.void)),
          { discard: true }
        )
      )
      // Short-lived consumers, closed while they wait or while their handlers run.
      yield* Effect.forEach(
        Array.from({ length: 40 }),
        () =>
          Effect.gen(function* () {
            const concurrency = yield* Random.nextIntBetween(1, 5)
            const life = yield* Random.nextIntBetween(0, 4)
            yield* Effect.scoped(
              Effect.zipRight(
                queue.consume("l", { concurrency }, (item) =>
                  Queue.offer(seen, item.id).pipe(Effect.zipRight(Effect.sleep(Duration.millis(1))))
                ),
                Effect.sleep(Duration.millis(life))
              )
            )
          }),
        { concurrency: 3, discard: true }
      )
      yield* Fiber.join(offering)
      // One last consumer drains the rest.
      yield* Effect.scoped(
        Effect.zipRight(
          queue.consume("l", { concurrency: 2 }, (item) => Queue.offer(seen, item.id)),
          until(Effect.map(queue.depth("l"), (d) => d.waiting === 0 && d.active === 0))
        )
      )
      const delivered = yield* Queue.takeAll(seen)
      expect(delivered.length).toBe(ids.length)
      expect(new Set(delivered).size).toBe(ids.length)
    }).pipe(Effect.scoped)
  )
})
