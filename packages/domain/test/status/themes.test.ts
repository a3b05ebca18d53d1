import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { ReportedThemesStatus, reportedThemesStatus, ThemesStatus } from "../../src/status/themes.js"

describe("themes reported status", () => {
  it("shows refunded as locked and every other status as itself", () => {
    expect(reportedThemesStatus("refunded")).toBe("locked")
    fc.assert(
      fc.property(Arbitrary.make(ThemesStatus), (s) => {
        const shown = reportedThemesStatus(s)
        return ReportedThemesStatus.literals.includes(shown) && (s === "refunded" || shown === s)
      })
    )
  })
})
