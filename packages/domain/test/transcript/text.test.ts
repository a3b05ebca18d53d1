import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { sortByStart } from "../../src/transcript/order.js"
import { bySourceKind, Segment, type SourceKind } from "../../src/transcript/segment.js"
import { countWords, textOf } from "../../src/transcript/text.js"
import { hasWords, wordsOf } from "../../src/transcript/words.js"
import { anySegments, crowdedSegments, orderedSegments } from "./arbitraries.js"

const seg = (text: string, start: number, end: number) => new Segment({ text, start, end })

describe("text", () => {
  it("joins segments with single spaces, collapsing line breaks and skipping empty segments", () => {
    expect(
      textOf([seg(" Hello\n  world ", 0, 1), seg("", 1, 2), seg("   ", 2, 3), seg("again\t!", 3, 4)])
    ).toBe("Hello world again !")
    expect(textOf([])).toBe("")
  })

  it("counts a text's words as its runs of non-whitespace; a transcript's as its text's", () => {
    expect(countWords("")).toBe(0)
    expect(countWords("  \n ")).toBe(0)
    expect(countWords(" one  two\nthree ")).toBe(3)
    fc.assert(
      fc.property(anySegments, (s) => {
        const text = textOf(s)
        return countWords(text) === (text === "" ? 0 : text.split(" ").length)
      })
    )
  })

  it("orders source kinds best first: human captions, auto captions, speech recognition", () => {
    const kinds: Array<SourceKind> = ["asr", "manual", "auto"]
    expect(kinds.sort(bySourceKind)).toEqual(["manual", "auto", "asr"])
  })

  it("takes segments in start order, equal starts in the given order", () => {
    expect(textOf([seg("b", 5, 6), seg("a", 0, 1), seg("c", 5, 6)])).toBe("a b c")
  })

  it("has no leading, trailing or repeated whitespace and no line break", () => {
    fc.assert(
      fc.property(fc.oneof(anySegments, crowdedSegments), (s) => !/^\s|\s$|\s\s|[^ \S]/.test(textOf(s)))
    )
  })

  it("keeps every word of every segment, in start order", () => {
    fc.assert(
      fc.property(fc.oneof(anySegments, crowdedSegments), (s) => {
        const words = sortByStart(s).flatMap((x) => x.text.split(/\s+/).filter((w) => w.length > 0))
        expect(textOf(s)).toBe(words.join(" "))
      })
    )
  })
})

describe("words", () => {
  it("flattens the segments' words in start order", () => {
    fc.assert(
      fc.property(orderedSegments, (s) => {
        expect(wordsOf([...s].reverse())).toEqual(s.flatMap((x) => x.words ?? []))
        expect(hasWords(s)).toBe(s.some((x) => (x.words?.length ?? 0) > 0))
      })
    )
  })
})
