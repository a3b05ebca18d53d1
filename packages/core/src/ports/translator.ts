/**
 * Machine translation of a transcript's segments: an OpenAI-compatible model (`@verbatim/llm`) in
 * production, Debian's Apertium language pairs on the embedded default. The platform's own caption
 * translation is not an engine of this port: it is read through `VideoPlatform.captions` with
 * `translateTo`, and chosen by the translate use case.
 *
 * The use case calls `supports` before anything is charged, so a pair the engine cannot translate
 * is refused with a message naming the pair and the engine. `translate` answers one text per
 * segment, in order; the use case puts them on the source segments' times, so no engine can move
 * a segment. Long transcripts are the engine's to chunk within its limits
 * (`Translation.chunkTexts` keeps segment boundaries), and a failed chunk is the engine's to retry.
 */
import type { Language } from "@verbatim/domain"
import { Context, type Effect, Schema } from "effect"

/** What to translate: the texts of a transcript's segments, in order. */
export interface TranslationInput {
  readonly source: Language.LanguageCode
  readonly target: Language.LanguageCode
  readonly texts: ReadonlyArray<string>
}

/** The engine does not translate this pair (or no engine is configured); nothing was done. */
export class TranslationUnsupported extends Schema.TaggedError<TranslationUnsupported>()(
  "TranslationUnsupported",
  {
    engine: Schema.String,
    source: Schema.String,
    target: Schema.String,
    reason: Schema.String
  }
) {}

/** The translation failed after the engine's retries; nothing is stored or charged. */
export class TranslationFailed extends Schema.TaggedError<TranslationFailed>()("TranslationFailed", {
  engine: Schema.String,
  reason: Schema.String
}) {}

export class Translator extends Context.Tag("@verbatim/core/Translator")<
  Translator,
  {
    /** The engine's name, for messages and the ledger: `model gpt-4.1-mini`, `apertium`, `none`. */
    readonly engine: string
    /** Succeeds when the engine translates `source` into `target`. */
    readonly supports: (
      source: Language.LanguageCode,
      target: Language.LanguageCode
    ) => Effect.Effect<void, TranslationUnsupported>
    /** One translated text per input text, in order (an empty text stays empty). */
    readonly translate: (
      input: TranslationInput
    ) => Effect.Effect<ReadonlyArray<string>, TranslationUnsupported | TranslationFailed>
  }
>() {}
