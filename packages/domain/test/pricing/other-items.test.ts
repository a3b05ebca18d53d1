import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { captionCredits } from "../../src/pricing/captions.js"
import { FreeItem, freeItemCredits, freeItems } from "../../src/pricing/free.js"
import { isTooShortForThemes, minThemesWords, themesCredits } from "../../src/pricing/themes.js"
import {
  translationCharacters,
  translationCredits,
  translationCreditsForText
} from "../../src/pricing/translation.js"

const characters = fc.integer({ min: 0, max: 50_000_000 })

describe("native captions", () => {
  it("cost 1 credit per transcript served, 0 when already owned", () => {
    expect(captionCredits(false)).toBe(1)
    expect(captionCredits(true)).toBe(0)
  })
})

describe("translation", () => {
  it("costs 1 credit per 2,500 characters, rounded up", () => {
    fc.assert(
      fc.property(characters, (n) => {
        const c = translationCredits({ characters: n, owned: false })
        return c * 2500 >= n && (c - 1) * 2500 < n && (n > 0 ? c >= 1 : c === 0)
      })
    )
  })

  it("is monotone in characters", () => {
    fc.assert(
      fc.property(characters, characters, (x, y) => {
        const [a, b] = x <= y ? [x, y] : [y, x]
        return (
          translationCredits({ characters: a, owned: false }) <=
          translationCredits({ characters: b, owned: false })
        )
      })
    )
  })

  it("is free when the translation is already owned", () => {
    fc.assert(fc.property(characters, (n) => translationCredits({ characters: n, owned: true }) === 0))
  })

  it("counts code points and prices the spec's boundaries", () => {
    expect(translationCreditsForText("", false)).toBe(0)
    expect(translationCreditsForText("a", false)).toBe(1)
    expect(translationCreditsForText("a".repeat(2500), false)).toBe(1)
    expect(translationCreditsForText("a".repeat(2501), false)).toBe(2)
    expect(translationCharacters("😀é")).toBe(2)
    expect(translationCreditsForText("😀".repeat(2500), false)).toBe(1)
  })
})

describe("themes", () => {
  it("cost 1 credit exactly when locked and long enough", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.nat({ max: 120 }), fc.nat({ max: 100_000 })),
        fc.boolean(),
        (words, unlocked) => {
          const c = themesCredits({ wordCount: words, unlocked })
          return c === (!unlocked && words >= minThemesWords ? 1 : 0)
        }
      )
    )
  })

  it("too short means fewer than 50 words", () => {
    expect(minThemesWords).toBe(50)
    expect(isTooShortForThemes(49)).toBe(true)
    expect(isTooShortForThemes(50)).toBe(false)
    expect(themesCredits({ wordCount: 49, unlocked: false })).toBe(0)
    expect(themesCredits({ wordCount: 50, unlocked: false })).toBe(1)
    expect(themesCredits({ wordCount: 5000, unlocked: true })).toBe(0)
  })
})

describe("free items", () => {
  it("every free item costs 0", () => {
    expect(freeItems).toEqual(FreeItem.literals)
    for (const item of freeItems) expect(freeItemCredits[item]).toBe(0)
    expect(Object.keys(freeItemCredits).sort()).toEqual([...freeItems].sort())
    expect(freeItems).toEqual(expect.arrayContaining(["recommendations", "estimate", "themes_get"]))
  })
})
