/**
 * POST /transcripts/{video_id}/translate. `provider` left out lets the service choose;
 * `allow_ai_fallback` defaults to false, so AI translation is never used unless asked for.
 */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { LanguageCode } from "../language.js"
import { optionalField, requestAnnotations } from "./fields.js"
import { TranscriptPayload } from "./transcribe.js"

export const TranslateProvider = Schema.Literal("ai", "platform").annotations({
  identifier: "TranslateProvider",
  description: "ai: a language model; platform: the video platform's translated captions"
})
export type TranslateProvider = typeof TranslateProvider.Type

export class TranslateRequest extends Schema.Class<TranslateRequest>("TranslateRequest")(
  {
    target_language: LanguageCode,
    /** The language to translate from; null or absent means the best owned transcript. */
    source_language: optionalField(LanguageCode),
    provider: optionalField(TranslateProvider),
    allow_ai_fallback: Schema.optionalWith(Schema.Boolean, { default: () => false, nullable: true })
  },
  requestAnnotations("TranslateRequest", "Translate an owned transcript into target_language")
) {}

export class TranslateResponse extends Schema.Class<TranslateResponse>("TranslateResponse")(
  {
    success: Schema.Boolean,
    message: Schema.String,
    language: LanguageCode,
    /** The language the translation was made from (null only when an owned original was returned). */
    translated_from: Schema.NullOr(LanguageCode),
    credits_used: Credits,
    /** Null when an owned translation was returned. */
    provider_used: Schema.NullOr(TranslateProvider),
    transcript: TranscriptPayload
  },
  { description: "The translated transcript; an owned translation is returned for 0 credits" }
) {}
