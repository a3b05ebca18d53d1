import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  applyMapping,
  durationOf,
  groupWords,
  intelligenceOf,
  segmentsOf,
  wordsOf
} from "../src/recognition.js"
import type { TranscriptRequest } from "../src/request.js"
import type { Transcript } from "../src/responses.js"

const word = (text: string, start: number, end: number) => ({ text, start, end })
const transcript = (fields: Partial<Transcript> = {}): Transcript => ({
  id: "t",
  status: "completed",
  ...fields
})
const body = (fields: Partial<TranscriptRequest> = {}): TranscriptRequest => ({ audio_url: "u", ...fields })

describe("reading a completed transcript", () => {
  it("makes whole, ordered word times and drops empty words", () => {
    expect(
      wordsOf([word("b", 500.4, 900.6), word(" ", 0, 1), word("a", 0, 400), word("c", 1000, 990)])
    ).toEqual([
      { text: "a", start: 0, end: 400 },
      { text: "b", start: 500, end: 901 },
      { text: "c", start: 1000, end: 1000 }
    ])
  })

  it("orders segments and keeps their words inside them", () => {
    const segments = segmentsOf([
      { text: "second", start: 2000, end: 2500, words: [word("second", 1990, 2600)] },
      { text: "first", start: 0, end: 900, words: [word("first", 100, 800)] }
    ])
    expect(segments.map((s) => [s.text, s.start, s.end])).toEqual([
      ["first", 0, 900],
      ["second", 1990, 2600]
    ])
    for (const s of segments) {
      for (const w of s.words ?? []) expect(w.start >= s.start && w.end <= s.end).toBe(true)
    }
  })

  it("groups words into sentences at punctuation, pauses and 40 words", () => {
    const words = wordsOf([
      word("Hello", 0, 100),
      word("there.", 100, 200),
      word("After", 200, 300),
      word("a", 300, 400),
      word("pause", 3000, 3100),
      ...Array.from({ length: 45 }, (_, i) => word(`w${i}`, 4000 + i * 10, 4005 + i * 10))
    ])
    expect(groupWords(words).map((s) => s.words?.length)).toEqual([2, 2, 40, 6])
    expect(groupWords(words)[0]?.text).toBe("Hello there.")
  })

  it("applies a custom-formatting mapping, longest entity first", () => {
    expect(
      applyMapping("call five five five one two one two on march fifth", {
        "five five five one two one two": "555-1212",
        "march fifth": "03/05",
        "": "never"
      })
    ).toBe("call 555-1212 on 03/05")
  })

  it("never reports a duration before the last word", () => {
    const words = wordsOf([word("a", 0, 2400)])
    expect(durationOf(transcript({ audio_duration: 2 }), [], words, null)).toBe(2400)
    expect(durationOf(transcript({ audio_duration: 3.25 }), [], words, null)).toBe(3250)
    expect(durationOf(transcript({ audio_duration: null }), [], [], 7)).toBe(7000)
  })
})

describe("asr_intelligence", () => {
  it.effect("is null when no feature was asked for", () =>
    Effect.gen(function* () {
      expect(yield* intelligenceOf(body({ redact_pii: true, speaker_labels: true }), transcript())).toBeNull()
    })
  )

  it.effect("fills the fields asked for, null where AssemblyAI gave nothing, and nothing else", () =>
    Effect.gen(function* () {
      const result = yield* intelligenceOf(
        body({ summarization: true, iab_categories: true, sentiment_analysis: true }),
        transcript({
          summary: "  A summary.  ",
          iab_categories_result: {
            status: "success",
            results: [{ text: "x" }],
            summary: { Sports: 1.2, News: 0.4 }
          },
          sentiment_analysis_results: null
        })
      )
      expect(result?.summary).toBe("A summary.")
      expect(result?.topics?.summary).toEqual({ Sports: 1, News: 0.4 })
      expect(result?.topics?.results).toEqual([{ text: "x" }])
      expect(result?.sentiment).toBeNull()
      expect(result).not.toHaveProperty("content_safety")
      expect(result).not.toHaveProperty("entities")
    })
  )

  it.effect("reads sentiment, entities, key phrases and chapters in whole ms", () =>
    Effect.gen(function* () {
      const result = yield* intelligenceOf(
        body({
          sentiment_analysis: true,
          entity_detection: true,
          auto_highlights: true,
          auto_chapters: true
        }),
        transcript({
          sentiment_analysis_results: [
            { text: "good", start: 10.4, end: 20.6, sentiment: "positive", confidence: 0.8 },
            { text: "odd", start: 30, end: 40, sentiment: "MIXED", confidence: 1.5 }
          ],
          entities: [{ entity_type: "location", text: "Paris", start: 5, end: 9 }],
          auto_highlights_result: { results: [{ text: "key phrase", count: 2, rank: 0.07 }] },
          chapters: [{ summary: "s", headline: "h", gist: "g", start: 0, end: 1000 }]
        })
      )
      expect(result?.sentiment?.map((s) => [s.sentiment, s.confidence, s.start, s.end])).toEqual([
        ["POSITIVE", 0.8, 10, 21],
        ["NEUTRAL", 1, 30, 40]
      ])
      expect(result?.entities?.[0]).toMatchObject({
        text: "Paris",
        entity_type: "location",
        start: 5,
        end: 9
      })
      expect(result?.auto_highlights?.results[0]).toMatchObject({ text: "key phrase", count: 2, rank: 0.07 })
      expect(result?.chapters?.[0]).toMatchObject({ headline: "h", start: 0, end: 1000 })
    })
  )
})
