import { describe, expect, it } from "@effect/vitest"
import { misplacedAnchors, ThemesEngine, type ThemesInput } from "@verbatim/core"
import { Language, Transcript } from "@verbatim/domain"
import { Effect, Either, Layer } from "effect"
import { AiThemes } from "../src/index.js"
import { json, LlmStandIn, layerWithStandIn, serverError, themeing } from "../src/testing.js"

const engineOn = (
  respond: Parameters<typeof layerWithStandIn>[0]["respond"],
  overrides: Parameters<typeof layerWithStandIn>[1] = {}
) => {
  const model = layerWithStandIn({ respond }, { retries: 1, ...overrides })
  return Layer.merge(AiThemes.layer.pipe(Layer.provide(model)), model)
}

const input: ThemesInput = {
  videoId: "dQw4w9WgXcQ",
  language: Language.LanguageCode.make("en"),
  title: null,
  segments: [
    "Compost is the gardener's best friend.",
    "Good compost makes good soil.",
    "Water the tomatoes in the morning.",
    "Add compost again every spring."
  ].map((text, i) => new Transcript.Segment({ text, start: 1_000 + i * 4_000, end: 4_500 + i * 4_000 }))
}

// Live clock: the model is the Responses API stand-in, a real HTTP server on a local port.
describe("AI themes engine over the stand-in", () => {
  it.live(
    "builds the answer from the transcript: times, quotes and counts of the segments the model names",
    () =>
      Effect.gen(function* () {
        const engine = yield* ThemesEngine
        const found = yield* engine.detect(input)
        expect(misplacedAnchors(input.segments, found)).toEqual([])
        expect(found.tldr).toBe("A talk about gardener.")
        const [theme] = found.themes
        expect(theme).toMatchObject({
          name: "gardener",
          share: 1,
          mention_count: 1,
          moment_count: 1,
          color_hex: "#2563EB"
        })
        expect(theme?.keywords[0]?.mentions).toEqual([{ segment_index: 0, start: 1_000 }])
        expect(found.moments[0]).toMatchObject({
          start: 1_000,
          end: 8_500,
          segment_start: 0,
          segment_end: 1,
          quote: "Compost is the gardener's best friend. Good compost makes good soil.",
          theme_id: theme?.id
        })
        const server = yield* LlmStandIn
        expect(server.requests).toHaveLength(1)
        expect(JSON.parse(server.requests[0]?.prompt ?? "[]")).toHaveLength(4)
      }).pipe(Effect.provide(engineOn(themeing())))
  )

  it.live("asks again when a reply names segments that do not exist, and uses the answer that fits", () =>
    Effect.gen(function* () {
      const server = yield* LlmStandIn
      const wrong = themeing(10)
      server.inject(
        1,
        wrong({
          body: {},
          model: "m",
          system: "",
          prompt: JSON.stringify([{ i: 0, text: "compost" }]),
          authorization: null
        })
      )
      const found = yield* Effect.flatMap(ThemesEngine, (engine) => engine.detect(input))
      expect(misplacedAnchors(input.segments, found)).toEqual([])
      expect(server.requests).toHaveLength(2)
    }).pipe(Effect.provide(engineOn(themeing())))
  )

  it.live("fails with ThemesEngineError when no reply fits, or the model server keeps failing", () =>
    Effect.gen(function* () {
      for (const respond of [
        themeing(10),
        () => json({ tldr: "x", themes: [], moments: [] }),
        () => serverError
      ]) {
        const outcome = yield* Effect.flatMap(ThemesEngine, (engine) => engine.detect(input)).pipe(
          Effect.either,
          Effect.provide(engineOn(respond, { retries: 1 }))
        )
        expect(Either.isLeft(outcome) && outcome.left._tag).toBe("ThemesEngineError")
      }
    })
  )

  it.live("cuts each segment in proportion when the transcript exceeds the budget, keeping every index", () =>
    Effect.gen(function* () {
      const long: ThemesInput = {
        ...input,
        segments: Array.from(
          { length: 50 },
          (_, i) =>
            new Transcript.Segment({
              text: `segment ${i} ${"words about compost ".repeat(10)}`,
              start: i * 1000,
              end: i * 1000 + 900
            })
        )
      }
      const found = yield* Effect.flatMap(ThemesEngine, (engine) => engine.detect(long))
      expect(misplacedAnchors(long.segments, found)).toEqual([])
      const server = yield* LlmStandIn
      const sent = JSON.parse(server.requests[0]?.prompt ?? "[]") as ReadonlyArray<{
        i: number
        text: string
      }>
      expect(sent.map((s) => s.i)).toEqual(long.segments.map((_, i) => i))
      expect(sent.reduce((n, s) => n + s.text.length, 0)).toBeLessThanOrEqual(2_000 + 50)
    }).pipe(Effect.provide(engineOn(themeing(), { maxInputCharacters: 2_000 })))
  )
})
