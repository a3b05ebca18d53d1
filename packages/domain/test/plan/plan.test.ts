import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Option, Schema } from "effect"
import { allows, isPaid, PaidFeature, Plan, paidOnlyFeatures } from "../../src/plan/plan.js"
import {
  batchSizeAllowed,
  channelJobMonth,
  channelResolveLimit,
  limitsFor,
  PlanLimits,
  planLimits,
  remainingChannelJobs,
  withinMonthlyChannelJobs
} from "../../src/plan/plan-limits.js"

const plan = Arbitrary.make(Plan)
const feature = Arbitrary.make(PaidFeature)
const order: ReadonlyArray<Plan> = ["free", "basic", "pro", "business"]

describe("plans and paid features", () => {
  it("only the free plan is unpaid", () => {
    expect(order.map(isPaid)).toEqual([false, true, true, true])
  })

  it("a plan allows a paid-only feature iff it is paid", () => {
    fc.assert(fc.property(plan, feature, (p, f) => allows(p, f) === isPaid(p)))
    expect(paidOnlyFeatures).toEqual(["playlist_resolve", "channel_resolve"])
    expect(allows("free", "channel_resolve")).toBe(false)
    expect(allows("basic", "playlist_resolve")).toBe(true)
  })
})

describe("plan limits", () => {
  it("match the spec's table", () => {
    expect(order.map((p) => planLimits[p].requestsPerSecond)).toEqual([1, 25, 50, 100])
    expect(order.map((p) => planLimits[p].batchSize)).toEqual([10, 500, 1500, 3000])
    expect(order.map((p) => planLimits[p].channelResolveCap)).toEqual([0, 500, 1500, 3000])
    expect(order.map((p) => planLimits[p].channelJobsPerMonth)).toEqual([0, 3, 8, null])
    expect(order.map((p) => planLimits[p].burst)).toEqual([2, 25, 50, 100])
  })

  it("are valid, and the burst holds one second of the rate and at least 2 requests", () => {
    fc.assert(
      fc.property(plan, (p) => {
        const l = limitsFor(p)
        return Schema.is(PlanLimits)(l) && l.burst === Math.max(l.requestsPerSecond, 2)
      })
    )
  })

  it("never shrink from one plan to the next", () => {
    for (let i = 1; i < order.length; i++) {
      const lower = planLimits[order[i - 1] ?? "free"]
      const higher = planLimits[order[i] ?? "free"]
      expect(higher.requestsPerSecond).toBeGreaterThan(lower.requestsPerSecond)
      expect(higher.burst).toBeGreaterThanOrEqual(lower.burst)
      expect(higher.batchSize).toBeGreaterThan(lower.batchSize)
      expect(higher.channelResolveCap).toBeGreaterThan(lower.channelResolveCap)
    }
  })
})

describe("batch size", () => {
  it("a batch is allowed iff it holds 1 to the plan's batch size videos", () => {
    fc.assert(
      fc.property(
        plan,
        fc.integer({ min: -10, max: 4000 }),
        (p, n) => batchSizeAllowed(p, n) === (n >= 1 && n <= planLimits[p].batchSize)
      )
    )
  })

  it("examples", () => {
    expect(batchSizeAllowed("free", 10)).toBe(true)
    expect(batchSizeAllowed("free", 11)).toBe(false)
    expect(batchSizeAllowed("business", 3000)).toBe(true)
    expect(batchSizeAllowed("business", 3001)).toBe(false)
    expect(batchSizeAllowed("pro", 0)).toBe(false)
    expect(batchSizeAllowed("pro", 2.5)).toBe(false)
  })
})

describe("channel resolve limit", () => {
  it("is refused on the free plan and otherwise between 1 and the plan's cap", () => {
    fc.assert(
      fc.property(
        plan,
        fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        (p, requested) => {
          const limit = channelResolveLimit(p, requested)
          const cap = planLimits[p].channelResolveCap
          if (!isPaid(p)) return Option.isNone(limit)
          return Option.isSome(limit) && limit.value === Math.min(requested ?? cap, cap) && limit.value >= 1
        }
      )
    )
  })

  it("defaults to the plan maximum and is capped by it", () => {
    expect(channelResolveLimit("basic")).toEqual(Option.some(500))
    expect(channelResolveLimit("pro", 2000)).toEqual(Option.some(1500))
    expect(channelResolveLimit("business", 42)).toEqual(Option.some(42))
    expect(channelResolveLimit("free", 5)).toEqual(Option.none())
  })
})

describe("channel jobs per month", () => {
  it("one more is allowed iff fewer than the cap were used; business is unlimited", () => {
    fc.assert(
      fc.property(plan, fc.nat({ max: 1_000_000 }), (p, used) => {
        const cap = planLimits[p].channelJobsPerMonth
        const within = withinMonthlyChannelJobs(p, used)
        const remaining = remainingChannelJobs(p, used)
        return cap === null
          ? within && Option.isNone(remaining)
          : within === used < cap && Option.getOrThrow(remaining) === Math.max(0, cap - used)
      })
    )
  })

  it("examples", () => {
    expect(withinMonthlyChannelJobs("basic", 2)).toBe(true)
    expect(withinMonthlyChannelJobs("basic", 3)).toBe(false)
    expect(withinMonthlyChannelJobs("pro", 7)).toBe(true)
    expect(withinMonthlyChannelJobs("pro", 8)).toBe(false)
    expect(withinMonthlyChannelJobs("business", 1_000_000)).toBe(true)
    expect(withinMonthlyChannelJobs("free", 0)).toBe(false)
  })

  it("counts per calendar month in UTC", () => {
    expect(channelJobMonth(Date.UTC(2026, 10, 30, 23, 59, 59, 999))).toBe("2026-11")
    expect(channelJobMonth(Date.UTC(2026, 11, 1, 0, 0, 0))).toBe("2026-12")
    expect(channelJobMonth(Date.UTC(2027, 0, 1))).toBe("2027-01")
  })
})
