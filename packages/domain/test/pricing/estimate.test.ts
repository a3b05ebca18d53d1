import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { AddOn, allAddOns } from "../../src/asr/add-on.js"
import { asrPrice } from "../../src/pricing/asr.js"
import { billableSeconds, DurationSeconds } from "../../src/pricing/duration.js"
import { AsrEstimate, durationMinutes, estimate, exceedsMaxDuration } from "../../src/pricing/estimate.js"

const duration = Arbitrary.make(DurationSeconds)
const addOns = fc.array(Arbitrary.make(AddOn), { maxLength: 12 })

describe("estimate laws", () => {
  it("is a valid estimate whose total is its parts and whose price is the ASR price", () => {
    fc.assert(
      fc.property(duration, addOns, (d, a) => {
        const e = estimate({ durationSeconds: d, addOns: a })
        const price = asrPrice(d, a)
        return (
          Schema.is(AsrEstimate)(e) &&
          e.estimated_credits === e.base_credits + e.addon_credits &&
          e.base_credits === price.baseCredits &&
          e.addon_credits === price.addOnCredits &&
          e.duration_seconds === billableSeconds(d) &&
          e.max_duration_minutes === 480
        )
      })
    )
  })

  it("flags exactly the durations over 480 minutes, and still prices them", () => {
    fc.assert(
      fc.property(duration, (d) => {
        const e = estimate({ durationSeconds: d, addOns: [] })
        return (
          e.exceeds_max_duration === Math.ceil(d) > 480 * 60 &&
          e.exceeds_max_duration === exceedsMaxDuration(d)
        )
      })
    )
  })

  it("reports minutes within half a hundredth of the billed seconds / 60, on a 0.01 grid", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (s) => {
        const m = durationMinutes(s)
        return Math.abs(m - s / 60) <= 0.005 + 1e-9 && Math.abs(m * 100 - Math.round(m * 100)) < 1e-6
      })
    )
  })

  it("minutes are monotone in duration", () => {
    fc.assert(
      fc.property(duration, duration, (x, y) => {
        const [d1, d2] = x <= y ? [x, y] : [y, x]
        return durationMinutes(d1) <= durationMinutes(d2)
      })
    )
  })
})

describe("estimate examples", () => {
  it("an unknown duration estimates 0 with null durations", () => {
    expect(estimate({ durationSeconds: null, addOns: allAddOns })).toEqual({
      base_credits: 0,
      addon_credits: 0,
      estimated_credits: 0,
      duration_seconds: null,
      duration_minutes: null,
      max_duration_minutes: 480,
      exceeds_max_duration: false
    })
  })

  it("one hour with diarization", () => {
    expect(estimate({ durationSeconds: 3600, addOns: ["diarization"] })).toEqual({
      base_credits: 40,
      addon_credits: 6,
      estimated_credits: 46,
      duration_seconds: 3600,
      duration_minutes: 60,
      max_duration_minutes: 480,
      exceeds_max_duration: false
    })
  })

  it("exactly 480 minutes does not exceed; one second more does, and is priced", () => {
    expect(estimate({ durationSeconds: 28800, addOns: [] }).exceeds_max_duration).toBe(false)
    const over = estimate({ durationSeconds: 28801, addOns: [] })
    expect(over.exceeds_max_duration).toBe(true)
    expect(over.base_credits).toBe(321)
  })

  it("rounds minutes half-up to 2 decimals from whole seconds", () => {
    expect(durationMinutes(1)).toBe(0.02)
    expect(durationMinutes(90)).toBe(1.5)
    expect(durationMinutes(100)).toBe(1.67)
    expect(durationMinutes(125.2)).toBe(2.1)
    expect(durationMinutes(0)).toBe(0)
    expect(estimate({ durationSeconds: 61.5, addOns: [] }).duration_seconds).toBe(62)
  })
})
