import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { AsrOptions, defaults } from "../src/asr/options.js"

describe("asr options", () => {
  it("applies the spec's defaults", () => {
    expect(defaults.language).toBe("auto")
    expect(defaults.fillerWords).toBe(true)
    expect(defaults.customFormatDate).toBe("mm/dd/yyyy")
    expect(
      Schema.decodeUnknownEither(AsrOptions)({ keyTerms: ["one two three four five six seven"] })._tag
    ).toBe("Left")
  })
})
