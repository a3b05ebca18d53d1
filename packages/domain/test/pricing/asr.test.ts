import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { AddOn, allAddOns } from "../../src/asr/add-on.js"
import { Credits } from "../../src/credits.js"
import {
  addOnBreakdown,
  addOnCredits,
  asrBaseCredits,
  asrCredits,
  asrPrice,
  explainAsrPrice
} from "../../src/pricing/asr.js"
import { billableSeconds, DurationSeconds, maxPricedSeconds } from "../../src/pricing/duration.js"
import { addOnCreditsPerHour, addOnRatePerHour } from "../../src/pricing/rates.js"
import * as R from "../../src/pricing/rational.js"

const duration = Arbitrary.make(DurationSeconds)
const wholeSeconds = fc.integer({ min: 0, max: 10 * 24 * 3600 })
const addOn = Arbitrary.make(AddOn)
const addOns = fc.array(addOn, { maxLength: 20 })
/** A set B of add-ons and a subset A of it. */
const subsetPair = addOns.chain((b) => fc.tuple(fc.subarray(b), fc.constant(b)))
/** A list of add-ons and a permutation of it. */
const permutedPair = addOns.chain((a) =>
  fc.tuple(fc.constant(a), fc.shuffledSubarray(a, { minLength: a.length }))
)
const hour = 3600

describe("ASR pricing laws", () => {
  it("every amount is a whole, non-negative number of credits", () => {
    fc.assert(
      fc.property(duration, addOns, (d, a) => {
        const price = asrPrice(d, a)
        return [price.baseCredits, price.addOnCredits, price.totalCredits].every(Schema.is(Credits))
      })
    )
  })

  it("the price is monotone in duration", () => {
    fc.assert(
      fc.property(duration, duration, addOns, (x, y, a) => {
        const [d1, d2] = x <= y ? [x, y] : [y, x]
        return (
          asrCredits(d1, a) <= asrCredits(d2, a) &&
          asrBaseCredits(d1) <= asrBaseCredits(d2) &&
          addOnCredits(d1, a) <= addOnCredits(d2, a)
        )
      })
    )
  })

  it("the price is monotone in the set of add-ons", () => {
    fc.assert(fc.property(duration, subsetPair, (d, [a, b]) => addOnCredits(d, a) <= addOnCredits(d, b)))
  })

  it("the total is the base plus the add-on surcharge", () => {
    fc.assert(
      fc.property(duration, addOns, (d, a) => {
        const price = asrPrice(d, a)
        return (
          price.totalCredits === price.baseCredits + price.addOnCredits &&
          price.totalCredits === asrCredits(d, a) &&
          price.baseCredits === asrBaseCredits(d) &&
          price.addOnCredits === addOnCredits(d, a)
        )
      })
    )
  })

  it("no add-ons cost nothing extra", () => {
    fc.assert(
      fc.property(duration, (d) => addOnCredits(d, []) === 0 && asrCredits(d, []) === asrBaseCredits(d))
    )
  })

  it("the base is 1 credit per 90 whole seconds, rounded up", () => {
    fc.assert(
      fc.property(duration, (d) => {
        const s = billableSeconds(d)
        const base = asrBaseCredits(d)
        return base * 90 >= s && (base - 1) * 90 < s && (d > 0 ? base >= 1 : base === 0)
      })
    )
  })

  it("the surcharge is the exact prorated value rounded up once: exact <= addon < exact + 1", () => {
    fc.assert(
      fc.property(duration, addOns, (d, a) => {
        const s = billableSeconds(d)
        const exactNumerator = addOnRatePerHour(a) * s // over 3600
        const addon = addOnCredits(d, a)
        return addon * hour >= exactNumerator && (addon - 1) * hour < exactNumerator
      })
    )
  })

  it("order and repeats of add-ons do not change the price", () => {
    fc.assert(
      fc.property(duration, permutedPair, (d, [a, shuffled]) => {
        const doubled = [...a, ...a]
        const once = Array.from(new Set(a))
        const price = asrCredits(d, a)
        return (
          asrCredits(d, shuffled) === price &&
          asrCredits(d, doubled) === price &&
          asrCredits(d, once) === price
        )
      })
    )
  })

  it("fractional seconds are billed as the next whole second", () => {
    fc.assert(fc.property(duration, addOns, (d, a) => asrCredits(d, a) === asrCredits(Math.ceil(d), a)))
  })

  it("the breakdown explains the surcharge exactly", () => {
    fc.assert(
      fc.property(wholeSeconds, addOns, (s, a) => {
        const b = addOnBreakdown(s, a)
        const distinct = new Set(a)
        return (
          b.lines.length === distinct.size &&
          b.lines.every(
            (line) =>
              distinct.has(line.addOn) &&
              line.creditsPerHour === addOnCreditsPerHour[line.addOn] &&
              line.share.numerator * hour === line.creditsPerHour * s * line.share.denominator
          ) &&
          R.equals(R.sum(b.lines.map((line) => line.share)), b.exact) &&
          b.exact.numerator * hour === addOnRatePerHour(a) * s * b.exact.denominator &&
          b.creditsPerHour === addOnRatePerHour(a) &&
          b.credits === R.ceil(b.exact) &&
          b.credits === addOnCredits(s, a) &&
          b.lines.every((line) => Schema.is(R.Rational)(line.share))
        )
      })
    )
  })

  it("rounding once never costs more than rounding each add-on", () => {
    fc.assert(
      fc.property(wholeSeconds, addOns, (s, a) => {
        const perAddOn = Array.from(new Set(a)).reduce((t, x) => t + addOnCredits(s, [x]), 0)
        return addOnCredits(s, a) <= perAddOn
      })
    )
  })

  it("the price is total: nonsense durations are clamped", () => {
    expect(asrCredits(Number.NaN, allAddOns)).toBe(0)
    expect(asrCredits(-5, allAddOns)).toBe(0)
    expect(asrCredits(Number.POSITIVE_INFINITY, [])).toBe(asrCredits(maxPricedSeconds, []))
    expect(Number.isSafeInteger(asrCredits(maxPricedSeconds, allAddOns))).toBe(true)
  })
})

describe("ASR pricing, spec values", () => {
  it("1 hour: base 40, diarization +6, all add-ons +149", () => {
    expect(asrBaseCredits(hour)).toBe(40)
    expect(addOnCredits(hour, ["diarization"])).toBe(6)
    expect(addOnCredits(hour, allAddOns)).toBe(149)
    expect(asrCredits(hour, allAddOns)).toBe(189)
  })

  it("each add-on's hourly rate as the spec's table", () => {
    const expected: ReadonlyArray<readonly [AddOn, number]> = [
      ["diarization", 6],
      ["sentiment", 6],
      ["profanity", 3],
      ["summarization", 8],
      ["custom_formatting", 8],
      ["translation", 16],
      ["pii_redaction", 22],
      ["topic_detection", 40],
      ["content_moderation", 40]
    ]
    for (const [a, rate] of expected) expect(addOnCredits(hour, [a])).toBe(rate)
  })

  it("base per 90 seconds, rounded up; 0 s costs 0", () => {
    expect(asrBaseCredits(0)).toBe(0)
    expect(asrBaseCredits(0.2)).toBe(1)
    expect(asrBaseCredits(1)).toBe(1)
    expect(asrBaseCredits(90)).toBe(1)
    expect(asrBaseCredits(90.5)).toBe(2)
    expect(asrBaseCredits(91)).toBe(2)
    expect(asrBaseCredits(180)).toBe(2)
  })

  it("the surcharge is rounded once for all add-ons, not per add-on", () => {
    // 10 minutes of profanity (3/h) and summarization (8/h): 11 × 600 / 3600 = 11/6 → 2, not 1 + 2
    expect(addOnCredits(600, ["profanity", "summarization"])).toBe(2)
    expect(addOnCredits(600, ["profanity"]) + addOnCredits(600, ["summarization"])).toBe(3)
    expect(addOnCredits(1, allAddOns)).toBe(1)
    expect(addOnCredits(0, allAddOns)).toBe(0)
    expect(addOnCredits(30 * 60, ["diarization"])).toBe(3)
  })

  it("explains a price line by line", () => {
    const price = asrPrice(600, ["summarization", "profanity"])
    expect(price.addOns.lines.map((l) => [l.addOn, R.format(l.share)])).toEqual([
      ["profanity", "1/2"],
      ["summarization", "4/3"]
    ])
    expect(explainAsrPrice(price)).toEqual([
      "ASR base: 600 s at 1 credit per 90 s = 20/3, rounded up to 7",
      "profanity: 3 credits/hour × 600 s = 1/2",
      "summarization: 8 credits/hour × 600 s = 4/3",
      "add-ons: 11 credits/hour × 600 s = 11/6, rounded up to 2",
      "total: 7 + 2 = 9 credits"
    ])
  })
})
