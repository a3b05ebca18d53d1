/**
 * The local engine: every mention and moment points at a segment and time that exist (a property
 * over generated transcripts), keywords are mentioned where they say, shares add up, and a known
 * text gets the themes a reader would expect.
 */
import { describe, expect, it } from "@effect/vitest"
import { misplacedAnchors, ThemesEngine, type ThemesInput } from "@verbatim/core"
import { Language, Transcript } from "@verbatim/domain"
import { Effect, FastCheck as fc } from "effect"
import { layer } from "../src/index.js"

const en = Language.LanguageCode.make("en")

const vocabulary = [
  "the",
  "a",
  "garden",
  "gardens",
  "soil",
  "compost",
  "tomato",
  "tomatoes",
  "water",
  "sun",
  "bees",
  "money",
  "budget",
  "market",
  "prices",
  "engine",
  "car",
  "road",
  "travel",
  "city",
  "music",
  "guitar",
  "song",
  "teacher",
  "students",
  "school",
  "and",
  "is",
  "are",
  "we",
  "grow",
  "sell",
  "drive",
  "play",
  "learn",
  "good",
  "old",
  "new",
  "green",
  "fast",
  "very",
  "every",
  "in",
  "on",
  "with",
  "healthy"
]

/** A transcript of 1 to 120 segments of vocabulary words, with increasing times (gaps allowed). */
const transcripts: fc.Arbitrary<ThemesInput> = fc
  .array(
    fc.record({
      words: fc.array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 16 }),
      end: fc.boolean(),
      gap: fc.nat({ max: 2_000 }),
      length: fc.integer({ min: 0, max: 6_000 })
    }),
    { minLength: 1, maxLength: 120 }
  )
  .map((parts) => {
    let at = 0
    const segments = parts.map((part) => {
      const start = at + part.gap
      const end = start + part.length
      at = end
      return new Transcript.Segment({ text: `${part.words.join(" ")}${part.end ? "." : ""}`, start, end })
    })
    return { videoId: "dQw4w9WgXcQ", language: en, title: null, segments }
  })

const detectWith = (input: ThemesInput) =>
  Effect.flatMap(ThemesEngine, (engine) => engine.detect(input)).pipe(Effect.provide(layer()))

const gardening = [
  "Today we talk about gardening and soil.",
  "Good soil is the base of every vegetable garden.",
  "Compost feeds the soil and the worms.",
  "Tomatoes need sun and water.",
  "Water your tomatoes in the morning.",
  "Tomato plants grow tall, so stake them early.",
  "Pests are a problem in the garden.",
  "Aphids attack the tomato leaves.",
  "Ladybirds eat aphids, so they help the garden.",
  "Next, money: a garden saves money on vegetables.",
  "Seeds are cheap, and compost is free if you make it yourself.",
  "Finally the soil again: test your soil every spring.",
  "A soil test tells you what compost to add."
].map((text, i) => new Transcript.Segment({ text, start: i * 3_000, end: i * 3_000 + 2_800 }))

describe("local themes engine", () => {
  it.effect("points every mention and moment at a segment and time of the transcript", () =>
    Effect.gen(function* () {
      const engine = yield* Effect.provide(ThemesEngine, layer())
      const samples = fc.sample(transcripts, { numRuns: 150, seed: 12 })
      for (const input of samples) {
        const detection = yield* engine.detect(input)
        expect(misplacedAnchors(input.segments, detection)).toEqual([])
        for (const theme of detection.themes) {
          expect(theme.share).toBeGreaterThanOrEqual(0)
          expect(theme.share).toBeLessThanOrEqual(1)
          expect(theme.mention_count).toBe(theme.keywords.reduce((n, k) => n + k.mention_count, 0))
          expect(theme.moment_count).toBe(detection.moments.filter((m) => m.theme_id === theme.id).length)
          for (const keyword of theme.keywords) {
            expect(keyword.mention_count).toBe(keyword.mentions.length)
            for (const mention of keyword.mentions) {
              const text = (input.segments[mention.segment_index]?.text ?? "").toLowerCase()
              expect([keyword.term, ...keyword.aliases].some((form) => text.includes(form))).toBe(true)
            }
          }
        }
        const shares = detection.themes.reduce((sum, t) => sum + t.share, 0)
        if (detection.themes.length > 0) expect(shares).toBeCloseTo(1, 6)
        const ids = detection.themes.map((t) => t.id)
        expect(new Set(ids).size).toBe(ids.length)
      }
    })
  )

  it.effect("finds the themes of a text about gardening, with the mentions where they are", () =>
    Effect.gen(function* () {
      const detection = yield* detectWith({
        videoId: "dQw4w9WgXcQ",
        language: en,
        title: null,
        segments: gardening
      })
      const keywords = detection.themes.flatMap((t) => t.keywords)
      const soil = keywords.find((k) => k.term === "soil")
      expect(soil?.mentions.map((m) => m.segment_index)).toEqual([0, 1, 2, 11, 12])
      expect(soil?.mentions.map((m) => m.start)).toEqual([0, 3_000, 6_000, 33_000, 36_000])
      // No dictionary here: a keyword is defined by the first segment that says it.
      expect(soil?.definition).toBe('As said: "Today we talk about gardening and soil."')
      const tomato = keywords.find((k) => k.term === "tomato")
      expect(tomato?.aliases).toContain("tomatoes")
      expect(tomato?.mentions.map((m) => m.segment_index)).toEqual([3, 4, 5, 7])
      expect(detection.themes[0]?.name).toContain("Soil")
      expect(detection.tldr).toContain("soil")
      expect(detection.moments.length).toBe(detection.themes.length)
    })
  )

  it.effect("answers a transcript without nouns with no themes and no moments", () =>
    Effect.gen(function* () {
      const segments = ["we go and we come", "very fast and very slow", "we go again"].map(
        (text, i) => new Transcript.Segment({ text, start: i * 1_000, end: i * 1_000 + 900 })
      )
      const detection = yield* detectWith({ videoId: "dQw4w9WgXcQ", language: en, title: null, segments })
      expect(detection.themes).toEqual([])
      expect(detection.moments).toEqual([])
    })
  )
})
