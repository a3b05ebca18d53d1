/**
 * The rate limiter's semantics (core's `RateLimiter` port, DESIGN decision 10), on every
 * implementation: memory always, Redis when `REDIS_URL` is set (driven by `TestClock` through the
 * Effect clock option; the Redis clock has its own tests in `redis-rate-limiter.test.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import { RateLimiter } from "@verbatim/core"
import { Plan } from "@verbatim/domain"
import { Arbitrary, Duration, Effect, FastCheck as fc, type Scope, TestClock, TestContext } from "effect"
import { MemoryRateLimiter } from "../src/index.js"
import { describeEachLimiter } from "./harness.js"

const plans = Arbitrary.make(Plan.Plan)

/** One step of a client: wait `gapMs`, then send `burst` requests at once. */
const steps = fc.array(
  fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2500 })),
    requests: fc.integer({ min: 1, max: 40 })
  }),
  { minLength: 1, maxLength: 60 }
)

const runTest = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) =>
  Effect.runPromise(Effect.provide(Effect.scoped(effect), TestContext.TestContext))

describeEachLimiter("RateLimiter", (implementation) => {
  it(
    "never grants more than burst + rate × elapsed over any window, with concurrent takes",
    () =>
      fc.assert(
        fc.asyncProperty(plans, steps, (plan, script) =>
          runTest(
            Effect.gen(function* () {
              const limiter = yield* implementation.make
              const limit = Plan.limitsFor(plan)
              const grants: Array<{ at: number; count: number }> = []
              let now = 0
              for (const step of script) {
                yield* TestClock.adjust(Duration.millis(step.gapMs))
                now += step.gapMs
                const verdicts = yield* Effect.all(
                  Array.from({ length: step.requests }, () => limiter.take("account:a", limit)),
                  { concurrency: "unbounded" }
                )
                grants.push({ at: now, count: verdicts.filter((v) => v.allowed).length })
              }
              for (let i = 0; i < grants.length; i++) {
                let granted = 0
                for (let j = i; j < grants.length; j++) {
                  granted += grants[j]?.count ?? 0
                  const elapsedMs = (grants[j]?.at ?? 0) - (grants[i]?.at ?? 0)
                  expect(granted).toBeLessThanOrEqual(
                    limit.burst + (limit.requestsPerSecond * elapsedMs) / 1000
                  )
                }
              }
            })
          )
        ),
        { numRuns: 60 }
      ),
    120_000
  )

  it.scoped("a full bucket grants exactly burst requests at one instant, however many arrive together", () =>
    Effect.gen(function* () {
      const limiter = yield* implementation.make
      for (const plan of Plan.allPlans) {
        const limit = Plan.limitsFor(plan)
        const verdicts = yield* Effect.all(
          Array.from({ length: limit.burst * 3 }, () => limiter.take(`account:${plan}`, limit)),
          { concurrency: "unbounded" }
        )
        expect(verdicts.filter((v) => v.allowed).length).toBe(limit.burst)
      }
    })
  )

  it.scoped("keys are independent: emptying one bucket leaves the others full", () =>
    Effect.gen(function* () {
      const limiter = yield* implementation.make
      const free = Plan.limitsFor("free")
      for (let i = 0; i < 10; i++) yield* limiter.take("account:a", free)
      expect((yield* limiter.take("account:a", free)).allowed).toBe(false)
      const other = yield* limiter.take("account:b", free)
      expect(other.allowed).toBe(true)
      expect(other.remaining).toBe(free.burst - 1)
    })
  )

  it.scoped("the verdict carries the header values: limit, remaining, reset and Retry-After", () =>
    Effect.gen(function* () {
      const limiter = yield* implementation.make
      const free = Plan.limitsFor("free")
      const first = yield* limiter.take("k", free)
      expect(first).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1, retryAfterSeconds: 0 })
      const second = yield* limiter.take("k", free)
      expect(second).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 2, retryAfterSeconds: 0 })
      const refused = yield* limiter.take("k", free)
      expect(refused.allowed).toBe(false)
      expect(refused.retryAfterSeconds).toBe(1)
      yield* TestClock.adjust(Duration.seconds(refused.retryAfterSeconds))
      expect((yield* limiter.take("k", free)).allowed).toBe(true)
    })
  )

  it.scoped("sustained traffic passes at the plan's rate", () =>
    Effect.gen(function* () {
      const limiter = yield* implementation.make
      const basic = Plan.limitsFor("basic")
      let granted = 0
      // 10 seconds, 10 attempts every 100 ms (the last at 9,900 ms): the burst, then 25 per second.
      for (let ms = 0; ms < 10_000; ms += 100) {
        const verdicts = yield* Effect.all(Array.from({ length: 10 }, () => limiter.take("k", basic)))
        granted += verdicts.filter((v) => v.allowed).length
        yield* TestClock.adjust(Duration.millis(100))
      }
      expect(granted).toBe(basic.burst + Math.floor((basic.requestsPerSecond * 9_900) / 1000))
    })
  )

  it.effect("the layer provides the RateLimiter port", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter
      const verdict = yield* limiter.take("k", Plan.limitsFor("business"))
      expect(verdict).toMatchObject({ allowed: true, limit: 100, remaining: 99 })
    }).pipe(Effect.provide(implementation.layer))
  )
})

// Sweeping is how the memory limiter stays bounded; Redis keys expire instead (tested on their own).
describe("MemoryRateLimiter", () => {
  it.effect("idle full buckets are swept, so memory stays bounded", () =>
    Effect.gen(function* () {
      const limiter = yield* MemoryRateLimiter.make
      const pro = Plan.limitsFor("pro")
      for (let i = 0; i < 1000; i++) yield* limiter.take(`account:${i}`, pro)
      expect(yield* limiter.size).toBe(1000)
      yield* TestClock.adjust(Duration.millis(MemoryRateLimiter.sweepIntervalMs))
      yield* limiter.take("account:new", pro)
      expect(yield* limiter.size).toBe(1)
      // A swept bucket comes back full: eviction never changes a verdict.
      const again = yield* limiter.take("account:1", pro)
      expect(again.remaining).toBe(pro.burst - 1)
    })
  )

  it.effect("a bucket that is still refilling survives the sweep", () =>
    Effect.gen(function* () {
      const limiter = yield* MemoryRateLimiter.make
      const free = Plan.limitsFor("free")
      yield* TestClock.adjust(Duration.millis(MemoryRateLimiter.sweepIntervalMs - 500))
      yield* limiter.take("busy", free)
      yield* limiter.take("busy", free)
      yield* TestClock.adjust(Duration.millis(500))
      yield* limiter.take("other", free)
      expect(yield* limiter.size).toBe(2)
      expect((yield* limiter.take("busy", free)).allowed).toBe(false)
    })
  )
})
