/**
 * The `Translator` port on the model (`Llm`): the segments' texts in chunks within
 * `maxInputCharacters` that keep segment boundaries (`Translation.chunkTexts`), each chunk one
 * structured request `{ segments: [{ i, text }] }` answering one text per piece. A chunk whose
 * answer misses or repeats a piece, or that fails (after `Llm`'s own retries of the request), is
 * asked again up to `retries` times; what still fails is `TranslationFailed`, and the whole
 * translation fails with it (nothing half-translated is returned). Chunks run `concurrency` at a
 * time. Any ISO 639-1 pair of different languages is supported.
 */
import { TranslationFailed, type TranslationInput, TranslationUnsupported, Translator } from "@verbatim/core"
import { Language, Translation } from "@verbatim/domain"
import { Effect, Layer, Schema } from "effect"
import { Llm } from "./model.js"

/** What the model answers for one chunk. */
export const TranslatedChunk = Schema.Struct({
  segments: Schema.Array(Schema.Struct({ i: Schema.Int, text: Schema.String }))
})

/** The instructions of every chunk. */
export const systemPrompt = (source: string, target: string) =>
  [
    `You translate parts of a video transcript from the language with ISO 639-1 code "${source}" into the language with code "${target}".`,
    'The user message is a JSON array of {"i": number, "text": string}. Answer {"segments": [...]} with exactly one item per input item, the same "i", and "text" the translation of that item alone.',
    "Keep each item's meaning inside that item: do not merge, split, reorder, summarise or skip items. Keep names, numbers and URLs. An empty text stays empty."
  ].join("\n")

/** The user message of a chunk: its pieces numbered in order. */
export const chunkPrompt = (chunk: Translation.Chunk) =>
  JSON.stringify(chunk.pieces.map((piece, i) => ({ i, text: piece.text })))

export const make = Effect.gen(function* () {
  const llm = yield* Llm
  const engine = `model ${llm.settings.model}`

  const supports = (source: Language.LanguageCode, target: Language.LanguageCode) => {
    const bad = [source, target].find((code) => !Language.isIsoLanguage(code))
    if (bad !== undefined) {
      return Effect.fail(
        new TranslationUnsupported({ engine, source, target, reason: `${bad} is not an ISO 639-1 language` })
      )
    }
    if (Language.samePrimary(source, target)) {
      return Effect.fail(
        new TranslationUnsupported({
          engine,
          source,
          target,
          reason: "source and target are the same language"
        })
      )
    }
    return Effect.void
  }

  const translateChunk = (input: TranslationInput, chunk: Translation.Chunk, index: number) =>
    Effect.gen(function* () {
      const answer = yield* llm.generateObject({
        name: "TranslatedChunk",
        schema: TranslatedChunk,
        system: systemPrompt(input.source, input.target),
        prompt: chunkPrompt(chunk)
      })
      const texts = new Map<number, string>()
      for (const item of answer.segments) {
        if (texts.has(item.i)) return yield* Effect.fail(`item ${item.i} answered twice`)
        texts.set(item.i, item.text)
      }
      const missing = chunk.pieces.findIndex((_, i) => !texts.has(i))
      if (missing >= 0 || texts.size !== chunk.pieces.length) {
        return yield* Effect.fail(
          `the answer has ${texts.size} items for ${chunk.pieces.length}${missing >= 0 ? ` (item ${missing} missing)` : ""}`
        )
      }
      return chunk.pieces.map((piece, i) => ({ segment: piece.segment, text: texts.get(i) ?? "" }))
    }).pipe(
      Effect.tapError((error) =>
        Effect.logWarning(
          `translation chunk ${index} failed`,
          typeof error === "string" ? error : error.reason
        )
      ),
      // Asked again only for an answer of the wrong shape: the model client has already retried
      // the requests worth retrying, and stops on the others (a wrong key, a refused request).
      Effect.retry({ times: llm.settings.retries, while: (error) => typeof error === "string" }),
      Effect.mapError(
        (error) =>
          new TranslationFailed({
            engine,
            reason: `chunk ${index + 1} (${chunk.pieces.length} segments) failed: ${typeof error === "string" ? error : error.reason}`
          })
      ),
      Effect.withSpan("AiTranslator.chunk", {
        attributes: { "translation.chunk": index, "translation.characters": chunk.characters },
        captureStackTrace: false
      })
    )

  const translate = (input: TranslationInput) =>
    Effect.gen(function* () {
      yield* supports(input.source, input.target)
      const chunks = Translation.chunkTexts(
        input.texts.map((t) => (t.trim().length === 0 ? "" : t)),
        llm.settings.maxInputCharacters
      ).map((chunk) => ({ ...chunk, pieces: chunk.pieces.filter((p) => p.text.trim().length > 0) }))
      const work = chunks.filter((chunk) => chunk.pieces.length > 0)
      const pieces = yield* Effect.forEach(work, (chunk, i) => translateChunk(input, chunk, i), {
        concurrency: llm.settings.concurrency
      })
      return Translation.joinPieces(input.texts.length, pieces.flat())
    }).pipe(
      Effect.withSpan("AiTranslator.translate", {
        attributes: { "translation.segments": input.texts.length, "translation.target": input.target },
        captureStackTrace: false
      })
    )

  return Translator.of({ engine, supports, translate })
})

/** The `Translator` on the model in context. */
export const layer: Layer.Layer<Translator, never, Llm> = Layer.effect(Translator, make)
