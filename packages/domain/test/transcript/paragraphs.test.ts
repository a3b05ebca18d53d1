import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { endsSentence, paragraphGapMs, paragraphsOf } from "../../src/transcript/paragraphs.js"
import { Segment } from "../../src/transcript/segment.js"
import { normalizeText, textOf } from "../../src/transcript/text.js"
import { anySegments, crowdedSegments, orderedSegments } from "./arbitraries.js"

const seg = (text: string, start: number, end: number) => new Segment({ text, start, end })
const segments = fc.oneof(anySegments, crowdedSegments, orderedSegments)
const nonEmpty = (s: ReadonlyArray<Segment>) => s.filter((x) => normalizeText(x.text).length > 0)

describe("paragraphs", () => {
  it("cover the same text as the segments", () => {
    fc.assert(fc.property(segments, (s) => textOf(paragraphsOf(s)) === textOf(s)))
  })

  it("are in order, non-empty, and never overlap", () => {
    fc.assert(
      fc.property(segments, (s) => {
        const ps = paragraphsOf(s)
        return ps.every(
          (p, i) =>
            p.text.length > 0 && p.start <= p.end && (i + 1 >= ps.length || p.end <= (ps[i + 1]?.start ?? 0))
        )
      })
    )
  })

  it("start with the first segment and end with the latest end", () => {
    fc.assert(
      fc.property(segments, (s) => {
        const kept = nonEmpty(s)
        const ps = paragraphsOf(s)
        if (kept.length === 0) return ps.length === 0
        const last = ps[ps.length - 1]
        return (
          ps[0]?.start === Math.min(...kept.map((x) => x.start)) &&
          last?.end === Math.max(last?.start ?? 0, ...kept.map((x) => x.end))
        )
      })
    )
  })

  it("start a new paragraph after every silence of the gap or longer", () => {
    fc.assert(
      fc.property(orderedSegments, (s) => {
        const kept = nonEmpty(s)
        const starts = new Set(paragraphsOf(s).map((p) => p.start))
        let latestEnd = Number.NEGATIVE_INFINITY
        for (const x of kept) {
          if (x.start - latestEnd >= paragraphGapMs && !starts.has(x.start)) return false
          latestEnd = Math.max(latestEnd, x.end)
        }
        return true
      })
    )
  })

  it("keep the words of the segments they group", () => {
    fc.assert(
      fc.property(orderedSegments, (s) => {
        expect(paragraphsOf(s).flatMap((p) => p.words ?? [])).toEqual(
          nonEmpty(s).flatMap((x) => x.words ?? [])
        )
      })
    )
  })

  it("break on a silence of 2000 ms, not on 1999 ms", () => {
    const ps = paragraphsOf([seg("One.", 0, 1000), seg("Two.", 2999, 4000), seg("Three.", 6000, 7000)])
    expect(ps.map((p) => [p.text, p.start, p.end])).toEqual([
      ["One. Two.", 0, 4000],
      ["Three.", 6000, 7000]
    ])
  })

  it("break at a sentence end once the target size is reached", () => {
    const options = { gapMs: 2000, targetChars: 10, maxChars: 100 }
    const ps = paragraphsOf(
      [
        seg("short one", 0, 1000),
        seg("then more.", 1000, 2000),
        seg("Next", 2000, 3000),
        seg("bit.", 3000, 4000)
      ],
      options
    )
    expect(ps.map((p) => p.text)).toEqual(["short one then more.", "Next bit."])
  })

  it("break at any segment once the maximum size is reached", () => {
    const options = { gapMs: 2000, targetChars: 5, maxChars: 12 }
    const ps = paragraphsOf(
      [seg("no punctuation", 0, 1000), seg("at all", 1000, 2000), seg("here", 2000, 3000)],
      options
    )
    expect(ps.map((p) => p.text)).toEqual(["no punctuation", "at all here"])
  })

  it("cut a paragraph's end at the next paragraph's start when segments overlap", () => {
    const options = { gapMs: 2000, targetChars: 1, maxChars: 100 }
    const ps = paragraphsOf([seg("One.", 0, 5000), seg("Two.", 3000, 6000)], options)
    expect(ps.map((p) => [p.start, p.end])).toEqual([
      [0, 3000],
      [3000, 6000]
    ])
  })

  it("recognize sentence ends, closing quotes and brackets included", () => {
    expect(["Yes.", "Why?", "No!", 'He said "go."', "(done.)", "end. "].every(endsSentence)).toBe(true)
    expect(["and", "e.g", "3.5 km", ""].some(endsSentence)).toBe(false)
  })
})
