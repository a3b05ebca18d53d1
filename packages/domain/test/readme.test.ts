/** The README's examples of the domain package, run as written. */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Pricing } from "../src/index.js"

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")

describe("README examples", () => {
  it("an estimate in three lines", () => {
    expect(readme).toContain(
      'const quote = Pricing.estimate({ durationSeconds: 3600, addOns: ["diarization", "summarization"] })'
    )
    const quote = Pricing.estimate({ durationSeconds: 3600, addOns: ["diarization", "summarization"] })
    expect(readme).toContain("console.log(quote.estimated_credits) // 54: 40 base + 14 for the add-ons")
    expect(quote.estimated_credits).toBe(54)
    expect(quote.base_credits).toBe(40)
    expect(quote.addon_credits).toBe(14)
  })

  it("a quote from ASR options charges only what applies", () => {
    expect(readme).toContain(
      "const quote = Pricing.quote(5400, { speakerLabels: true, multichannel: true, sentimentAnalysis: true })"
    )
    const quote = Pricing.quote(5400, { speakerLabels: true, multichannel: true, sentimentAnalysis: true })
    expect(Either.isRight(quote)).toBe(true)
    if (Either.isRight(quote)) {
      // 90 minutes: base 60; sentiment 6/h → 9; diarization is off because multichannel wins.
      expect(quote.right.estimated_credits).toBe(69)
      expect(quote.right.add_ons).toEqual(["sentiment"])
      expect(quote.right.ignored.map((i) => i.option)).toContain("speakerLabels")
    }
  })

  it("a quote refuses invalid options", () => {
    expect(Either.isLeft(Pricing.quote(60, { speakersExpectedMin: 5, speakersExpectedMax: 2 }))).toBe(true)
    expect(Either.isLeft(Pricing.quote(60, { speakersExpected: 21 }))).toBe(true)
  })
})
