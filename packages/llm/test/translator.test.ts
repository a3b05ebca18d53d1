import { describe, expect, it } from "@effect/vitest"
import { Translator } from "@verbatim/core"
import type { Language } from "@verbatim/domain"
import { Effect, Either, Layer } from "effect"
import { AiTranslator } from "../src/index.js"
import { json, LlmStandIn, layerWithStandIn, serverError, translating } from "../src/testing.js"

const en = "en" as Language.LanguageCode
const es = "es" as Language.LanguageCode

const translatorOn = (
  respond: Parameters<typeof layerWithStandIn>[0]["respond"],
  overrides: Parameters<typeof layerWithStandIn>[1] = {}
) => {
  const model = layerWithStandIn({ respond }, { retries: 1, maxInputCharacters: 100, ...overrides })
  return Layer.merge(AiTranslator.layer.pipe(Layer.provide(model)), model)
}

const texts = Array.from({ length: 30 }, (_, i) => `segment number ${i} says something.`)

// Live clock: the model is the Responses API stand-in, a real HTTP server on a local port.
describe("AI translator over the stand-in", () => {
  it.live("translates every segment in order, in chunks within the budget", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const out = yield* translator.translate({ source: en, target: es, texts: [...texts, "", "  "] })
      expect(out).toEqual([...texts.map((t) => `[es] ${t}`), "", ""])
      const server = yield* LlmStandIn
      // 30 segments of ~33 characters in chunks of at most 100 characters: 3 per chunk
      expect(server.requests.length).toBe(10)
      for (const request of server.requests) {
        const items = JSON.parse(request.prompt) as ReadonlyArray<{ text: string }>
        expect(items.reduce((n, item) => n + item.text.length, 0)).toBeLessThanOrEqual(100)
      }
    }).pipe(Effect.provide(translatorOn(translating())))
  )

  it.live("a segment longer than the budget is sent in pieces and put back together", () =>
    Effect.gen(function* () {
      const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")
      const translator = yield* Translator
      const [out] = yield* translator.translate({ source: en, target: es, texts: [long] })
      expect(out?.replace(/\[es\] /g, "")).toBe(long)
      expect((yield* LlmStandIn).requests.length).toBeGreaterThan(1)
    }).pipe(Effect.provide(translatorOn(translating(), { maxInputCharacters: 50 })))
  )

  it.live("a failed chunk is retried; an answer that misses a segment is asked again", () =>
    Effect.gen(function* () {
      const server = yield* LlmStandIn
      server.inject(1, serverError)
      server.inject(1, json({ segments: [{ i: 0, text: "only one" }] }))
      const translator = yield* Translator
      const out = yield* translator.translate({ source: en, target: es, texts: texts.slice(0, 3) })
      expect(out).toEqual(texts.slice(0, 3).map((t) => `[es] ${t}`))
      expect(server.requests.length).toBe(3)
    }).pipe(Effect.provide(translatorOn(translating(), { concurrency: 1 })))
  )

  it.live("a chunk that keeps failing fails the translation as TranslationFailed", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const result = yield* Effect.either(translator.translate({ source: en, target: es, texts }))
      expect(Either.isLeft(result) && result.left._tag).toBe("TranslationFailed")
    }).pipe(Effect.provide(translatorOn(() => serverError, { retries: 1 })))
  )

  it.live("refuses what is not an ISO 639-1 pair of two languages, naming the engine", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const unknown = yield* Effect.either(translator.supports(en, "zz" as Language.LanguageCode))
      expect(Either.isLeft(unknown) && unknown.left.reason).toContain("zz")
      expect(Either.isLeft(unknown) && unknown.left.engine).toBe("model stand-in")
      const same = yield* Effect.either(translator.supports(en, "en-GB" as Language.LanguageCode))
      expect(Either.isLeft(same)).toBe(true)
      expect(
        Either.isRight(yield* Effect.either(translator.supports(en, "pt-BR" as Language.LanguageCode)))
      ).toBe(true)
      expect((yield* LlmStandIn).requests.length).toBe(0)
    }).pipe(Effect.provide(translatorOn(translating())))
  )
})
