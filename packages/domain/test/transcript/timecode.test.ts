import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Option } from "effect"
import {
  clockTimecode,
  parseTimecode,
  srtTimecode,
  vttTimecode
} from "../../src/transcript/export/timecode.js"

const hundredHours = 100 * 3_600_000
const ms = fc.integer({ min: 0, max: hundredHours })

describe("timecodes", () => {
  it("SRT timecodes round-trip for every ms up to 100 hours", () => {
    fc.assert(fc.property(ms, (t) => Option.getOrNull(parseTimecode(srtTimecode(t), "srt")) === t))
  })

  it("WebVTT timestamps round-trip for every ms up to 100 hours", () => {
    fc.assert(fc.property(ms, (t) => Option.getOrNull(parseTimecode(vttTimecode(t), "vtt")) === t))
  })

  it("have at least two hour digits, two for minutes and seconds, three for ms", () => {
    fc.assert(
      fc.property(
        ms,
        (t) =>
          /^\d{2,}:[0-5]\d:[0-5]\d,\d{3}$/.test(srtTimecode(t)) &&
          /^\d{2,}:[0-5]\d:[0-5]\d$/.test(clockTimecode(t))
      )
    )
  })

  it("order as the times do", () => {
    fc.assert(
      fc.property(ms, ms, (a, b) => {
        const [x, y] = [vttTimecode(a), vttTimecode(b)]
        return a < b === (x.length < y.length || (x.length === y.length && x < y))
      })
    )
  })

  it("print exact values, hours growing past 99", () => {
    expect(srtTimecode(0)).toBe("00:00:00,000")
    expect(srtTimecode(3_723_004)).toBe("01:02:03,004")
    expect(vttTimecode(3_723_004)).toBe("01:02:03.004")
    expect(clockTimecode(3_723_999)).toBe("01:02:03")
    expect(srtTimecode(hundredHours)).toBe("100:00:00,000")
    expect(vttTimecode(hundredHours + 59_999)).toBe("100:00:59.999")
  })

  it("read WebVTT timestamps without hours", () => {
    expect(parseTimecode("01:02.003", "vtt")).toEqual(Option.some(62_003))
    expect(parseTimecode("01:02,003", "srt")).toEqual(Option.none())
  })

  it("refuse malformed timecodes", () => {
    for (const [text, format] of [
      ["00:60:00,000", "srt"],
      ["00:00:60,000", "srt"],
      ["0:00:00,000", "srt"],
      ["00:00:00.000", "srt"],
      ["00:00:00,00", "srt"],
      ["00:00:00,000", "vtt"],
      ["1:02.003", "vtt"],
      ["00:00:00.0000", "vtt"],
      [" 00:00:00.000", "vtt"]
    ] as const) {
      expect(parseTimecode(text, format)).toEqual(Option.none())
    }
  })
})
