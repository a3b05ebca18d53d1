import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { Plan } from "../../src/plan/plan.js"
import { limitsFor } from "../../src/plan/plan-limits.js"
import {
  available,
  fullBucket,
  type RateBucket,
  type RateDecision,
  refill,
  take
} from "../../src/plan/rate-bucket.js"

const plan = Arbitrary.make(Plan)
const start = fc.integer({ min: 0, max: 2_000_000_000_000 })
/** Gaps between requests in ms: mostly bursts, sometimes pauses. */
const gaps = fc.array(
  fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3000 })),
  {
    minLength: 1,
    maxLength: 300
  }
)

const run = (p: Plan, t0: number, gs: ReadonlyArray<number>) => {
  const limit = limitsFor(p)
  let bucket: RateBucket | undefined
  let now = t0
  const events: Array<{ at: number; decision: RateDecision }> = []
  for (const g of gs) {
    now += g
    const decision = take(bucket, limit, now)
    bucket = decision.bucket
    events.push({ at: now, decision })
  }
  return events
}

/** Takes of several requests at once (an MCP POST of several JSON-RPC requests), with gaps. */
const takes = fc.array(
  fc.tuple(
    gaps.map((g) => g[0] ?? 0),
    fc.integer({ min: 1, max: 120 })
  ),
  {
    minLength: 1,
    maxLength: 200
  }
)

describe("takes of several requests at once", () => {
  it("count each request: never more than burst + rate × elapsed requests in any window, all or none", () => {
    fc.assert(
      fc.property(plan, start, takes, (p, t0, ts) => {
        const limit = limitsFor(p)
        let bucket: RateBucket | undefined
        let now = t0
        const events: Array<{ at: number; requests: number; decision: RateDecision }> = []
        for (const [gap, requests] of ts) {
          now += gap
          const decision = take(bucket, limit, now, requests)
          // All or none: a refused take leaves the bucket as refilled, an allowed one takes them all.
          const before = refill(bucket, limit, now).milliTokens
          if (decision.bucket.milliTokens !== (decision.allowed ? before - requests * 1000 : before))
            return false
          if (requests > limit.burst && decision.allowed) return false
          bucket = decision.bucket
          events.push({ at: now, requests, decision })
        }
        for (let i = 0; i < events.length; i++) {
          let granted = 0
          for (let j = i; j < events.length; j++) {
            const ej = events[j]
            const ei = events[i]
            if (ej === undefined || ei === undefined) return false
            if (ej.decision.allowed) granted += ej.requests
            if (granted * 1000 > limit.burst * 1000 + limit.requestsPerSecond * (ej.at - ei.at)) return false
          }
        }
        return true
      })
    )
  })

  it("a refused take that fits the bucket names a wait after which it passes", () => {
    fc.assert(
      fc.property(plan, start, takes, (p, t0, ts) => {
        const limit = limitsFor(p)
        let bucket: RateBucket | undefined
        let now = t0
        for (const [gap, wanted] of ts) {
          now += gap
          const requests = Math.min(wanted, limit.burst)
          const decision = take(bucket, limit, now, requests)
          if (
            !decision.allowed &&
            !take(decision.bucket, limit, now + decision.retryAfterSeconds * 1000, requests).allowed
          )
            return false
          bucket = decision.bucket
        }
        return true
      })
    )
  })
})

describe("token bucket laws", () => {
  it("never grants more than burst + rate × elapsed in any window", () => {
    fc.assert(
      fc.property(plan, start, gaps, (p, t0, gs) => {
        const { burst, requestsPerSecond: rate } = limitsFor(p)
        const events = run(p, t0, gs)
        for (let i = 0; i < events.length; i++) {
          let granted = 0
          for (let j = i; j < events.length; j++) {
            const ej = events[j]
            const ei = events[i]
            if (ej === undefined || ei === undefined) return false
            if (ej.decision.allowed) granted++
            if (granted * 1000 > burst * 1000 + rate * (ej.at - ei.at)) return false
          }
        }
        return true
      })
    )
  })

  it("refills monotonically with time, up to its capacity", () => {
    fc.assert(
      fc.property(
        plan,
        start,
        gaps,
        fc.nat({ max: 100_000 }),
        fc.nat({ max: 100_000 }),
        (p, t0, gs, a, b) => {
          const limit = limitsFor(p)
          const last = run(p, t0, gs).at(-1)
          const bucket = last?.decision.bucket
          const at = (last?.at ?? t0) + Math.min(a, b)
          const later = (last?.at ?? t0) + Math.max(a, b)
          const x = refill(bucket, limit, at)
          const y = refill(bucket, limit, later)
          return x.milliTokens <= y.milliTokens && y.milliTokens <= limit.burst * 1000 && x.milliTokens >= 0
        }
      )
    )
  })

  it("a refused request names a positive wait after which a request passes", () => {
    fc.assert(
      fc.property(plan, start, gaps, (p, t0, gs) => {
        const limit = limitsFor(p)
        return run(p, t0, gs).every(({ at, decision }) =>
          decision.allowed
            ? decision.retryAfterSeconds === 0
            : decision.retryAfterSeconds > 0 &&
              Number.isInteger(decision.retryAfterSeconds) &&
              take(decision.bucket, limit, at + decision.retryAfterSeconds * 1000).allowed
        )
      })
    )
  })

  it("reports remaining and reset consistently with the bucket", () => {
    fc.assert(
      fc.property(plan, start, gaps, (p, t0, gs) => {
        const limit = limitsFor(p)
        return run(p, t0, gs).every(
          ({ at, decision }) =>
            decision.remaining === available(decision.bucket, limit, at) &&
            decision.remaining >= 0 &&
            decision.remaining < limit.burst &&
            available(decision.bucket, limit, at + decision.resetSeconds * 1000) === limit.burst
        )
      })
    )
  })

  it("a clock that goes backwards refills nothing", () => {
    fc.assert(
      fc.property(plan, start, fc.nat({ max: 10_000 }), (p, t0, back) => {
        const limit = limitsFor(p)
        const emptied = Array.from({ length: limit.burst }).reduce<RateBucket>(
          (b) => take(b, limit, t0).bucket,
          fullBucket(limit, t0)
        )
        const later = refill(emptied, limit, t0 - back)
        return later.milliTokens === 0 && later.updatedAtMs === t0
      })
    )
  })

  it("lets the sustained rate through forever", () => {
    fc.assert(
      fc.property(fc.constantFrom<Plan>("free", "basic", "pro", "business"), start, (p, t0) => {
        const gap = 1000 / limitsFor(p).requestsPerSecond
        return run(
          p,
          t0,
          Array.from({ length: 500 }, () => gap)
        ).every((e) => e.decision.allowed)
      })
    )
  })
})

describe("token bucket examples", () => {
  it("free plan: 2 at once, the third waits 1 second", () => {
    const events = run("free", 0, [0, 0, 0])
    expect(events.map((e) => e.decision.allowed)).toEqual([true, true, false])
    expect(events[2]?.decision.retryAfterSeconds).toBe(1)
    expect(events[1]?.decision.resetSeconds).toBe(2)
  })

  it("business plan: 100 at once, then 1 per 10 ms", () => {
    const events = run(
      "business",
      0,
      Array.from({ length: 101 }, () => 0)
    )
    expect(events.filter((e) => e.decision.allowed)).toHaveLength(100)
    const last = events.at(-1)?.decision
    expect(last?.allowed).toBe(false)
    expect(take(last?.bucket, limitsFor("business"), 9).allowed).toBe(false)
    expect(take(last?.bucket, limitsFor("business"), 10).allowed).toBe(true)
  })

  it("a missing bucket is full", () => {
    const d = take(undefined, limitsFor("basic"), 5)
    expect(d).toMatchObject({ allowed: true, remaining: 24, retryAfterSeconds: 0, resetSeconds: 1 })
  })
})
