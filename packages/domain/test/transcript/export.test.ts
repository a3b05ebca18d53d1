import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { cuesOf, minCueMs } from "../../src/transcript/cue.js"
import { toSrt } from "../../src/transcript/export/srt.js"
import { toTxt } from "../../src/transcript/export/txt.js"
import { toVtt } from "../../src/transcript/export/vtt.js"
import { parseSrt } from "../../src/transcript/parse/srt.js"
import { parseVtt } from "../../src/transcript/parse/vtt.js"
import { Segment } from "../../src/transcript/segment.js"
import { normalizeText, textOf } from "../../src/transcript/text.js"
import { anySegments, crowdedSegments, orderedSegments } from "./arbitraries.js"

const seg = (text: string, start: number, end: number) => new Segment({ text, start, end })
const segments = fc.oneof(anySegments, crowdedSegments, orderedSegments)
const nonEmpty = (s: ReadonlyArray<Segment>) => s.filter((x) => normalizeText(x.text).length > 0)

const sample = [
  seg("Hello  world", 0, 1500),
  seg("  ", 1600, 1700),
  seg("Fish & <chips>\n\n line two ", 2000, 3000),
  seg("Zero", 4000, 4000),
  seg("a --> b", 4500, 3_723_004)
]

describe("SRT export", () => {
  it("writes the exact expected file for a small transcript", () => {
    expect(toSrt(sample)).toBe(
      [
        "1",
        "00:00:00,000 --> 00:00:01,500",
        "Hello world",
        "",
        "2",
        "00:00:02,000 --> 00:00:03,000",
        "Fish & <chips>",
        "line two",
        "",
        "3",
        "00:00:04,000 --> 00:00:04,500",
        "Zero",
        "",
        "4",
        "00:00:04,500 --> 01:02:03,004",
        "a -> b",
        ""
      ].join("\n")
    )
    expect(toSrt([])).toBe("")
  })

  it("numbers cues 1..n", () => {
    fc.assert(
      fc.property(segments, (s) => {
        const out = toSrt(s)
        const numbers =
          out === ""
            ? []
            : out
                .trimEnd()
                .split("\n\n")
                .map((block) => block.split("\n")[0])
        expect(numbers).toEqual(cuesOf(s).map((_, i) => String(i + 1)))
      })
    )
  })

  it("reads back as the cues it was written from", () => {
    fc.assert(
      fc.property(segments, (s) => {
        expect(parseSrt(toSrt(s))).toEqual(Either.right(cuesOf(s)))
      })
    )
  })
})

describe("WebVTT export", () => {
  it("writes the exact expected file for a small transcript", () => {
    expect(toVtt(sample)).toBe(
      [
        "WEBVTT",
        "",
        "00:00:00.000 --> 00:00:01.500",
        "Hello world",
        "",
        "00:00:02.000 --> 00:00:03.000",
        "Fish &amp; &lt;chips&gt;",
        "line two",
        "",
        "00:00:04.000 --> 00:00:04.500",
        "Zero",
        "",
        "00:00:04.500 --> 01:02:03.004",
        "a -&gt; b",
        ""
      ].join("\n")
    )
    expect(toVtt([])).toBe("WEBVTT\n")
  })

  it("starts with the WEBVTT header and a blank line", () => {
    fc.assert(fc.property(segments, (s) => /^WEBVTT\n(\n|$)/.test(toVtt(s))))
  })

  it("never writes a raw < or an & that is not a character reference in cue text", () => {
    fc.assert(
      fc.property(segments, (s) =>
        toVtt(s)
          .split("\n")
          .filter((line) => !line.includes(" --> "))
          .every((line) => !/[<>]/.test(line) && !/&(?!amp;|lt;|gt;)/.test(line))
      )
    )
  })

  it("reads back as the cues it was written from", () => {
    fc.assert(
      fc.property(segments, (s) => {
        expect(parseVtt(toVtt(s))).toEqual(Either.right(cuesOf(s)))
      })
    )
  })
})

describe("cues", () => {
  it("one per non-empty segment, same starts, ends cut only as documented", () => {
    fc.assert(
      fc.property(orderedSegments, (s) => {
        const kept = nonEmpty(s)
        const expected = kept.map((x, i) => {
          const wanted = x.end > x.start ? x.end : x.start + minCueMs
          const next = kept[i + 1]
          return [x.start, next === undefined ? wanted : Math.min(wanted, next.start)]
        })
        for (const parse of [() => parseSrt(toSrt(s)), () => parseVtt(toVtt(s))]) {
          const cues = Either.getOrThrow(parse())
          expect(cues.map((c) => [c.start, c.end])).toEqual(expected)
        }
      })
    )
  })

  it("one per distinct start of the non-empty segments", () => {
    fc.assert(
      fc.property(segments, (s) => {
        const starts = new Set(nonEmpty(s).map((x) => x.start))
        expect(cuesOf(s).map((c) => c.start)).toEqual([...starts].sort((a, b) => a - b))
      })
    )
  })

  it("never overlap, end after they start, and have monotone times", () => {
    fc.assert(
      fc.property(segments, (s) =>
        cuesOf(s).every((c, i, all) => {
          const next = all[i + 1]
          return c.end > c.start && (next === undefined || (c.end <= next.start && c.start < next.start))
        })
      )
    )
  })

  it("hold no blank line, no surrounding whitespace and no -->, and keep every word", () => {
    fc.assert(
      fc.property(segments, (s) => {
        const cues = cuesOf(s)
        const clean = cues.every(
          (c) =>
            c.text.length > 0 &&
            !c.text.includes("-->") &&
            c.text.split("\n").every((l) => l === l.trim() && l !== "")
        )
        const words = (t: string) =>
          t
            .replace(/--+>/g, "->")
            .split(/\s+/)
            .filter((w) => w.length > 0)
        return clean && textOf(cues).split(" ").join(" ") === words(textOf(s)).join(" ")
      })
    )
  })

  it("give a zero-length segment the minimal duration, cut at the next start", () => {
    expect(cuesOf([seg("a", 1000, 1000)])).toEqual([{ start: 1000, end: 1000 + minCueMs, text: "a" }])
    expect(cuesOf([seg("a", 1000, 900), seg("b", 1200, 2000)])).toEqual([
      { start: 1000, end: 1200, text: "a" },
      { start: 1200, end: 2000, text: "b" }
    ])
  })

  it("merge segments that start together into one cue, lines in the given order", () => {
    expect(cuesOf([seg("b", 0, 500), seg("a", 0, 800), seg("c", 600, 900)])).toEqual([
      { start: 0, end: 600, text: "b\na" },
      { start: 600, end: 900, text: "c" }
    ])
  })
})

describe("text export", () => {
  it("writes paragraphs, or timestamped lines, exactly", () => {
    expect(toTxt(sample)).toBe("Hello world Fish & <chips> line two Zero a --> b\n")
    expect(toTxt([seg("One.", 0, 1000), seg("Two.", 5000, 6000)])).toBe("One.\n\nTwo.\n")
    expect(toTxt(sample, { timestamps: true })).toBe(
      [
        "[00:00:00] Hello world",
        "[00:00:02] Fish & <chips> line two",
        "[00:00:04] Zero",
        "[00:00:04] a --> b",
        ""
      ].join("\n")
    )
    expect(toTxt([])).toBe("")
    expect(toTxt([], { timestamps: true })).toBe("")
  })

  it("without timestamps holds the transcript's text", () => {
    fc.assert(fc.property(segments, (s) => normalizeText(toTxt(s)) === textOf(s)))
  })

  it("with timestamps has one line per non-empty segment, in time order", () => {
    fc.assert(
      fc.property(segments, (s) => {
        const out = toTxt(s, { timestamps: true })
        const lines = out === "" ? [] : out.slice(0, -1).split("\n")
        const stamps = lines.map((l) => /^\[(\d{2,}:\d{2}:\d{2})\] \S/.exec(l)?.[1] ?? "bad")
        return (
          lines.length === nonEmpty(s).length &&
          !stamps.includes("bad") &&
          stamps.every(
            (t, i) => i === 0 || (stamps[i - 1] ?? "") <= t || (stamps[i - 1] ?? "").length < t.length
          )
        )
      })
    )
  })
})
