/**
 * The body of `POST /v2/transcript`, as a Schema (the stand-in decodes it with the same schema and
 * refuses unknown fields, as AssemblyAI does), and how the effective `asr_options` map onto it.
 *
 * | asr_options | AssemblyAI |
 * |---|---|
 * | language (a code) | `language_code` (`en-US` → `en_us`, `pt-BR` → `pt`), `language_detection: false` |
 * | language `auto` | `language_detection: true` |
 * | codeSwitching | `language_detection_options.code_switching: true` (only with auto) |
 * | medicalMode | `domain: "medical-v1"` |
 * | keyTerms | `keyterms_prompt` |
 * | speakerLabels | `speaker_labels` |
 * | speakersExpected / Min / Max | `speakers_expected` / `speaker_options.min_speakers_expected` / `max_speakers_expected` |
 * | multichannel | `multichannel` |
 * | topicDetection | `iab_categories`, and with it `auto_highlights` and `entity_detection` (key phrases and named entities are what the spec's `asr_intelligence` reports beside topics, and no other option asks for them) |
 * | summarization | `summarization`, `summary_model` (`conversational` with speakers or channels, else `informative`), `summary_type` (setting) |
 * | contentModeration | `content_safety` |
 * | piiRedaction | `redact_pii`, `redact_pii_policies` and `redact_pii_sub` (settings) |
 * | profanityFiltering | `filter_profanity` |
 * | sentimentAnalysis | `sentiment_analysis` |
 * | autoPunctuation | `punctuate` |
 * | textFormatting | `format_text` |
 * | fillerWords | `disfluencies`, always sent (AssemblyAI's default is false, ours true); false where AssemblyAI has no filler words (a known non-English language), which it would refuse |
 * | translateTo | `speech_understanding.request.translation.target_languages` |
 * | speakerId, speakerIdType, speakerIdKnownValues | `speech_understanding.request.speaker_identification` (`speaker_type`, `known_values`) |
 * | customFormatting, customFormatDate/Phone/Email | `speech_understanding.request.custom_formatting` (`date`, `phone_number`, `email`) |
 *
 * Auto chapters (`auto_chapters`) are never sent: AssemblyAI takes either chapters or
 * summarization in one transcription, and `summarization` is the option the spec names, so
 * `chapters` of `asr_intelligence` stays absent (docs/decisions/asr.md).
 */
import type { Asr } from "@verbatim/domain"
import { Schema } from "effect"
import type { AssemblyAiSettings } from "./config.js"
import { assemblyAiCode, englishOnly } from "./languages.js"

const Int = Schema.Int

export const TranslationRequest = Schema.Struct({
  target_languages: Schema.Array(Schema.String),
  formal: Schema.optionalWith(Schema.Boolean, { exact: true }),
  match_original_utterance: Schema.optionalWith(Schema.Boolean, { exact: true })
})

export const SpeakerIdentificationRequest = Schema.Struct({
  speaker_type: Schema.Literal("name", "role"),
  known_values: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})

export const CustomFormattingRequest = Schema.Struct({
  date: Schema.optionalWith(Schema.String, { exact: true }),
  phone_number: Schema.optionalWith(Schema.String, { exact: true }),
  email: Schema.optionalWith(Schema.String, { exact: true })
})

export const SpeechUnderstandingRequest = Schema.Struct({
  request: Schema.Struct({
    translation: Schema.optionalWith(TranslationRequest, { exact: true }),
    speaker_identification: Schema.optionalWith(SpeakerIdentificationRequest, { exact: true }),
    custom_formatting: Schema.optionalWith(CustomFormattingRequest, { exact: true })
  })
})

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** The fields of `POST /v2/transcript` this adapter knows (a subset of AssemblyAI's). */
export const TranscriptRequest = Schema.Struct({
  audio_url: Schema.String,
  speech_models: optional(Schema.Array(Schema.String)),
  language_code: optional(Schema.String),
  language_detection: optional(Schema.Boolean),
  language_detection_options: optional(Schema.Struct({ code_switching: optional(Schema.Boolean) })),
  domain: optional(Schema.Literal("medical-v1")),
  keyterms_prompt: optional(Schema.Array(Schema.String)),
  speaker_labels: optional(Schema.Boolean),
  speakers_expected: optional(Schema.NullOr(Int)),
  speaker_options: optional(
    Schema.Struct({
      min_speakers_expected: optional(Int),
      max_speakers_expected: optional(Int)
    })
  ),
  multichannel: optional(Schema.Boolean),
  iab_categories: optional(Schema.Boolean),
  summarization: optional(Schema.Boolean),
  summary_model: optional(Schema.Literal("informative", "conversational", "catchy")),
  summary_type: optional(Schema.Literal("bullets", "bullets_verbose", "gist", "headline", "paragraph")),
  content_safety: optional(Schema.Boolean),
  redact_pii: optional(Schema.Boolean),
  redact_pii_policies: optional(Schema.Array(Schema.String)),
  redact_pii_sub: optional(Schema.Literal("hash", "entity_type")),
  filter_profanity: optional(Schema.Boolean),
  sentiment_analysis: optional(Schema.Boolean),
  entity_detection: optional(Schema.Boolean),
  auto_highlights: optional(Schema.Boolean),
  auto_chapters: optional(Schema.Boolean),
  punctuate: optional(Schema.Boolean),
  format_text: optional(Schema.Boolean),
  disfluencies: optional(Schema.Boolean),
  speech_understanding: optional(SpeechUnderstandingRequest)
})
export type TranscriptRequest = typeof TranscriptRequest.Type

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** Whether AssemblyAI keeps filler words in this language (`disfluencies` is English only). */
export const hasFillerWords = (language: Asr.AsrOptions["language"]): boolean =>
  language === "auto" || englishOnly.has(assemblyAiCode(language))

/** The body that asks AssemblyAI for exactly what the effective options say. */
export const transcriptRequest = (
  effective: Asr.EffectiveAsrOptions,
  settings: Pick<AssemblyAiSettings, "piiPolicies" | "piiSubstitution" | "speechModels" | "summaryType">,
  audioUrl: string
): TranscriptRequest => {
  const o = effective.options
  const auto = o.language === "auto"
  const body: Mutable<TranscriptRequest> = {
    audio_url: audioUrl,
    ...(settings.speechModels.length > 0 ? { speech_models: [...settings.speechModels] } : {}),
    ...(auto
      ? { language_detection: true }
      : { language_code: assemblyAiCode(o.language), language_detection: false }),
    ...(auto && o.codeSwitching ? { language_detection_options: { code_switching: true } } : {}),
    ...(o.medicalMode ? { domain: "medical-v1" as const } : {}),
    ...(o.keyTerms.length > 0 ? { keyterms_prompt: [...o.keyTerms] } : {}),
    speaker_labels: o.speakerLabels,
    multichannel: o.multichannel,
    iab_categories: o.topicDetection,
    ...(o.topicDetection ? { auto_highlights: true, entity_detection: true } : {}),
    summarization: o.summarization,
    content_safety: o.contentModeration,
    redact_pii: o.piiRedaction,
    filter_profanity: o.profanityFiltering,
    sentiment_analysis: o.sentimentAnalysis,
    punctuate: o.autoPunctuation,
    format_text: o.textFormatting,
    disfluencies: o.fillerWords && hasFillerWords(o.language)
  }
  if (o.speakerLabels) {
    if (o.speakersExpected !== null) body.speakers_expected = o.speakersExpected
    else if (o.speakersExpectedMin !== null || o.speakersExpectedMax !== null) {
      body.speaker_options = {
        ...(o.speakersExpectedMin === null ? {} : { min_speakers_expected: o.speakersExpectedMin }),
        ...(o.speakersExpectedMax === null ? {} : { max_speakers_expected: o.speakersExpectedMax })
      }
    }
  }
  if (o.summarization) {
    body.summary_model = o.speakerLabels || o.multichannel ? "conversational" : "informative"
    body.summary_type = settings.summaryType
  }
  if (o.piiRedaction) {
    body.redact_pii_policies = [...settings.piiPolicies]
    body.redact_pii_sub = settings.piiSubstitution
  }
  const translation =
    o.translateTo === "none" ? undefined : { target_languages: [assemblyAiCode(o.translateTo)] }
  const speakerIdentification = o.speakerId
    ? {
        speaker_type: o.speakerIdType,
        ...(o.speakerIdKnownValues.length > 0 ? { known_values: [...o.speakerIdKnownValues] } : {})
      }
    : undefined
  const customFormatting = o.customFormatting
    ? { date: o.customFormatDate, phone_number: o.customFormatPhone, email: o.customFormatEmail }
    : undefined
  if (translation !== undefined || speakerIdentification !== undefined || customFormatting !== undefined) {
    body.speech_understanding = {
      request: {
        ...(translation === undefined ? {} : { translation }),
        ...(speakerIdentification === undefined ? {} : { speaker_identification: speakerIdentification }),
        ...(customFormatting === undefined ? {} : { custom_formatting: customFormatting })
      }
    }
  }
  return body
}
