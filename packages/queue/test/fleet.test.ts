/**
 * The fleet ports on every implementation (memory always, Redis when `REDIS_URL` is set, driven by
 * `TestClock` through the Effect clock option): the egress budget keeps core's pacing rule under
 * concurrent reservations and push-backs, and the shared cache keeps values for their time to live
 * within its bound.
 */
import { expect, it } from "@effect/vitest"
import {
  type EgressRate,
  type EgressState,
  egressBackoff,
  egressIntervalMs,
  freshEgress,
  pushBackEgress,
  reserveEgress
} from "@verbatim/core"
import { Duration, Effect, FastCheck as fc, Option, TestClock, TestContext } from "effect"
import { describeEachFleet } from "./harness.js"

const rates = fc.record({
  ratePerSecond: fc.oneof(
    fc.constant(4),
    fc.integer({ min: 1, max: 50 }),
    fc.double({ min: 0.2, max: 20, noNaN: true })
  ),
  burst: fc.integer({ min: 1, max: 6 })
})

/** Steps of a client: wait `gapMs`, push back or not, then reserve `requests` slots at once. */
const scripts = fc.array(
  fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 400_000 })),
    pushBack: fc.boolean(),
    requests: fc.integer({ min: 0, max: 8 })
  }),
  { minLength: 1, maxLength: 25 }
)

const run = <A, E>(effect: Effect.Effect<A, E, import("effect").Scope.Scope>) =>
  Effect.runPromise(Effect.provide(Effect.scoped(effect), TestContext.TestContext))

describeEachFleet("EgressBudget", (fleet) => {
  it(
    "gives every reservation the start core's rule gives, concurrent ones included (a model test)",
    () =>
      fc.assert(
        fc.asyncProperty(rates, scripts, (rate: EgressRate, script) =>
          run(
            Effect.gen(function* () {
              const budget = yield* fleet.budget
              let model: EgressState = freshEgress
              let now = 0
              for (const step of script) {
                yield* TestClock.adjust(Duration.millis(step.gapMs))
                now += step.gapMs
                if (step.pushBack) {
                  yield* budget.pushBack("proxy-a", rate)
                  model = pushBackEgress(model, rate, now)
                }
                const waits = yield* Effect.all(
                  Array.from({ length: step.requests }, () => budget.reserve("proxy-a", rate)),
                  { concurrency: "unbounded" }
                )
                // Concurrent reservations are served one at a time in some order: as a set, they are
                // the waits the rule gives to that many reservations in a row.
                const expected: Array<number> = []
                for (let i = 0; i < step.requests; i++) {
                  const next = reserveEgress(model, rate, now)
                  expected.push(next.waitMs)
                  model = next.state
                }
                expect(waits.map(Duration.toMillis).sort((a, b) => a - b)).toEqual(
                  expected.sort((a, b) => a - b)
                )
                expect(yield* budget.strikes("proxy-a")).toBe(now < model.strikesUntil ? model.strikes : 0)
              }
            })
          )
        ),
        { numRuns: 40 }
      ),
    60_000
  )

  it(
    "never lets more than burst + elapsed / interval requests start in any window",
    () =>
      fc.assert(
        fc.asyncProperty(
          rates,
          fc.array(
            fc.record({
              gapMs: fc.integer({ min: 0, max: 2_000 }),
              requests: fc.integer({ min: 1, max: 10 })
            }),
            { minLength: 1, maxLength: 20 }
          ),
          (rate, script) =>
            run(
              Effect.gen(function* () {
                const budget = yield* fleet.budget
                const starts: Array<number> = []
                let now = 0
                for (const step of script) {
                  yield* TestClock.adjust(Duration.millis(step.gapMs))
                  now += step.gapMs
                  const waits = yield* Effect.all(
                    Array.from({ length: step.requests }, () => budget.reserve("direct", rate)),
                    { concurrency: "unbounded" }
                  )
                  for (const wait of waits) starts.push(now + Duration.toMillis(wait))
                }
                const interval = egressIntervalMs(rate, 0)
                starts.sort((a, b) => a - b)
                for (let i = 0; i < starts.length; i++) {
                  for (let j = i; j < starts.length; j++) {
                    const window = (starts[j] ?? 0) - (starts[i] ?? 0)
                    expect(j - i + 1).toBeLessThanOrEqual(
                      Math.max(1, rate.burst) + Math.floor(window / interval)
                    )
                  }
                }
              })
            )
        ),
        { numRuns: 40 }
      ),
    60_000
  )

  it.scoped(
    "push-backs halve the rate, collapse the egress at collapseAt strikes, and expire after the cooldown",
    () =>
      Effect.gen(function* () {
        const budget = yield* fleet.budget
        const rate: EgressRate = { ratePerSecond: 4, burst: 1 }
        for (let i = 1; i <= egressBackoff.maxStrikes + 2; i++) {
          yield* budget.pushBack("proxy-b", rate)
          expect(yield* budget.strikes("proxy-b")).toBe(Math.min(i, egressBackoff.maxStrikes))
        }
        expect(yield* budget.strikes("proxy-b")).toBeGreaterThanOrEqual(egressBackoff.collapseAt)
        expect(yield* budget.strikes("proxy-c")).toBe(0)
        yield* TestClock.adjust(Duration.millis(egressBackoff.cooldownMs))
        expect(yield* budget.strikes("proxy-b")).toBe(0)
        // Back to full rate: two reservations one interval apart.
        yield* TestClock.adjust(Duration.hours(1))
        const first = yield* budget.reserve("proxy-b", rate)
        const second = yield* budget.reserve("proxy-b", rate)
        expect(Duration.toMillis(first)).toBe(0)
        expect(Duration.toMillis(second)).toBe(egressIntervalMs(rate, 0))
      }).pipe(Effect.provide(TestContext.TestContext))
  )
})

describeEachFleet("SharedCache", (fleet) => {
  it.scoped("keeps a value for its time to live, then misses", () =>
    Effect.gen(function* () {
      const cache = yield* fleet.cache(10)
      expect(yield* cache.get("video:a")).toEqual(Option.none())
      yield* cache.set("video:a", '{"title":"A"}', Duration.seconds(60))
      expect(yield* cache.get("video:a")).toEqual(Option.some('{"title":"A"}'))
      yield* cache.set("video:a", '{"title":"B"}', Duration.seconds(60))
      expect(yield* cache.get("video:a")).toEqual(Option.some('{"title":"B"}'))
      yield* cache.set("video:none", "x", Duration.zero)
      expect(yield* cache.get("video:none")).toEqual(Option.none())
    }).pipe(Effect.provide(TestContext.TestContext))
  )

  it.scoped("holds at most its capacity, dropping the oldest first", () =>
    Effect.gen(function* () {
      const cache = yield* fleet.cache(3)
      for (const key of ["a", "b", "c", "d", "e"]) yield* cache.set(key, key.toUpperCase(), Duration.hours(1))
      const held = yield* Effect.forEach(["a", "b", "c", "d", "e"], (key) => cache.get(key))
      expect(held.map(Option.getOrNull)).toEqual([null, null, "C", "D", "E"])
    })
  )
})
