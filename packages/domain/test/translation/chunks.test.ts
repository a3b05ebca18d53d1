import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { translationCharacters } from "../../src/pricing/translation.js"
import { chunkTexts, cutText, joinPieces, minimumBudget } from "../../src/translation/chunks.js"

/** Segment texts with words, long runs without spaces, astral characters and blank segments. */
const text = fc.stringOf(
  fc.constantFrom("a", "bc", "é", " ", "  ", "\n", "😀", "漢字", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "."),
  {
    maxLength: 60
  }
)
const texts = fc.array(text, { maxLength: 40 })
const budget = fc.integer({ min: 1, max: 200 })

describe("translation chunks", () => {
  it.prop(
    "every chunk is within the budget (at least the minimum) and none is empty",
    [texts, budget],
    ([ts, b]) => {
      const limit = Math.max(minimumBudget, b)
      for (const chunk of chunkTexts(ts, b)) {
        expect(chunk.pieces.length).toBeGreaterThan(0)
        expect(chunk.characters).toBe(chunk.pieces.reduce((n, p) => n + translationCharacters(p.text), 0))
        expect(chunk.characters).toBeLessThanOrEqual(limit)
      }
    }
  )

  it.prop(
    "the chunks' pieces joined per segment give back every segment's text exactly",
    [texts, budget],
    ([ts, b]) => {
      const pieces = chunkTexts(ts, b).flatMap((c) => c.pieces)
      const rebuilt = ts.map((_, i) =>
        pieces
          .filter((p) => p.segment === i)
          .map((p) => p.text)
          .join("")
      )
      expect(rebuilt).toEqual(ts)
    }
  )

  it.prop(
    "segments stay in order, and a segment is split across chunks only when it alone exceeds the budget",
    [texts, budget],
    ([ts, b]) => {
      const limit = Math.max(minimumBudget, b)
      const chunks = chunkTexts(ts, b)
      const order = chunks.flatMap((c) => c.pieces.map((p) => p.segment))
      expect(order).toEqual([...order].sort((x, y) => x - y))
      expect(new Set(order)).toEqual(new Set(ts.map((_, i) => i)))
      ts.forEach((t, i) => {
        const holding = chunks.filter((c) => c.pieces.some((p) => p.segment === i)).length
        if (translationCharacters(t) <= limit) {
          expect(holding).toBe(1)
        }
      })
    }
  )

  it.prop(
    "a chunk is closed only when the next piece would not fit (greedy, so no needless requests)",
    [texts, budget],
    ([ts, b]) => {
      const limit = Math.max(minimumBudget, b)
      const chunks = chunkTexts(ts, b)
      chunks.slice(0, -1).forEach((chunk, i) => {
        const next = chunks[i + 1]?.pieces[0]
        expect(chunk.characters + translationCharacters(next?.text ?? "")).toBeGreaterThan(limit)
      })
    }
  )

  it("cuts a long segment after whitespace, and a run without whitespace at the budget", () => {
    expect(cutText("one two three four", 9)).toEqual(["one two ", "three ", "four"])
    expect(cutText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"])
    expect(cutText("😀😀😀", 2)).toEqual(["😀😀", "😀"])
  })

  it("joins translated pieces per segment; a segment without pieces is empty", () => {
    expect(
      joinPieces(3, [
        { segment: 0, text: "uno " },
        { segment: 0, text: " dos" },
        { segment: 2, text: "tres" }
      ])
    ).toEqual(["uno dos", "", "tres"])
  })
})
