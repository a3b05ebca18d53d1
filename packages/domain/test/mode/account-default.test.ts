import { describe, expect, it } from "@effect/vitest"
import { DateTime, FastCheck as fc } from "effect"
import { autoDefaultSince, defaultModeFor } from "../../src/mode/account-default.js"

const since = DateTime.toEpochMillis(autoDefaultSince)
const minDate = new Date("1970-01-01T00:00:00Z")
const maxDate = new Date("2100-01-01T00:00:00Z")

describe("defaultModeFor", () => {
  it("is auto from 2026-10-01T00:00:00Z and captions_only before", () => {
    expect(defaultModeFor(new Date("2026-10-01T00:00:00Z"))).toBe("auto")
    expect(defaultModeFor(new Date("2026-09-30T23:59:59.999Z"))).toBe("captions_only")
    expect(defaultModeFor(new Date("2026-09-30T23:30:00-02:00"))).toBe("auto")
    expect(defaultModeFor(DateTime.unsafeMake("2026-10-01T00:00:00.000Z"))).toBe("auto")
    expect(defaultModeFor(DateTime.unsafeMake("2020-01-01T00:00:00Z"))).toBe("captions_only")
  })

  it("treats an invalid date as an old account", () => {
    expect(defaultModeFor(new Date("not a date"))).toBe("captions_only")
  })

  it("is monotone in the creation date and agrees for Date and DateTime", () => {
    fc.assert(
      fc.property(
        fc.date({ min: minDate, max: maxDate }),
        fc.date({ min: minDate, max: maxDate }),
        (a, b) => {
          const [early, late] = a.getTime() <= b.getTime() ? [a, b] : [b, a]
          if (defaultModeFor(early) === "auto") expect(defaultModeFor(late)).toBe("auto")
          expect(defaultModeFor(DateTime.unsafeMake(a))).toBe(defaultModeFor(a))
          expect(defaultModeFor(a)).toBe(a.getTime() >= since ? "auto" : "captions_only")
        }
      )
    )
  })

  it("the zoned and UTC forms of one instant agree", () => {
    fc.assert(
      fc.property(fc.date({ min: minDate, max: maxDate }), fc.integer({ min: -12, max: 14 }), (at, hours) => {
        const zoned = DateTime.unsafeMakeZoned(at, { timeZone: DateTime.zoneMakeOffset(hours * 3_600_000) })
        expect(defaultModeFor(zoned)).toBe(defaultModeFor(at))
      })
    )
  })
})
