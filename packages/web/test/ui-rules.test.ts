/**
 * The pages' own small rules, without a browser: where a search matched in a transcript (the
 * passages the library shows with their time), how times read, and the video's address at a moment.
 */
import { describe, expect, it } from "@effect/vitest"
import { clock, isUpload, videoAt } from "../src/ui/format.js"
import { holdsStem, matchingSegments, searchStems } from "../src/ui/snippets.js"

const segments = [
  { text: "We documented everything.", start: 0, end: 1000 },
  { text: "Nothing here.", start: 1000, end: 2000 },
  { text: "Documentation answers questions.", start: 2000, end: 3000 },
  { text: "Undocumented code hurts.", start: 3000, end: 4000 },
  { text: "More documentation later.", start: 4000, end: 5000 }
]

describe("search passages", () => {
  it("takes stems of the searched words, leaving out -excluded words, or, quotes and one letter", () => {
    expect(searchStems('documentation -salt or "add  it" a')).toEqual(["document", "add", "it"])
  })

  it("finds segments holding a word that starts with a stem, at a word's start only, up to the maximum", () => {
    expect(matchingSegments(segments, "documentation").map((s) => s.start)).toEqual([0, 2000, 4000])
    expect(matchingSegments(segments, "documented", 3).map((s) => s.start)).toEqual([0, 2000, 4000])
    expect(matchingSegments(segments, "documents", 1).map((s) => s.start)).toEqual([0])
    expect(matchingSegments(segments, "-documentation")).toEqual([])
    expect(holdsStem("Undocumented", ["document"])).toBe(false)
  })
})

describe("times and addresses", () => {
  it("reads times as m:ss and h:mm:ss", () => {
    expect([0, 999, 61_000, 3_600_000, 3_725_000].map(clock)).toEqual([
      "0:00",
      "0:00",
      "1:01",
      "1:00:00",
      "1:02:05"
    ])
  })

  it("opens the video at the second a segment starts", () => {
    expect(videoAt("Rt7mN0pWzYe", 26_400)).toBe("https://www.youtube.com/watch?v=Rt7mN0pWzYe&t=26s")
    expect(isUpload("Rt7mN0pWzYe")).toBe(false)
    expect(isUpload("6f1c7a0e-3333-4a4a-8a8a-000000000001")).toBe(true)
  })
})
