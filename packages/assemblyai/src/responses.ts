/**
 * AssemblyAI's answers, as Schemas: only the fields this adapter reads. Decoding ignores the many
 * fields it does not read and is lenient where AssemblyAI may leave a field out or null; what it
 * reads must have the right type, or the answer is not understood.
 */
import { Api } from "@verbatim/domain"
import { Schema } from "effect"

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const nullable = <S extends Schema.Schema.Any>(schema: S) => optional(Schema.NullOr(schema))

/** `POST /v2/upload`. */
export const UploadedFile = Schema.Struct({ upload_url: Schema.String })

/** The body of a refusal: `{"error": "..."}`. */
export const ErrorBody = Schema.Struct({ error: Schema.String })

export const TranscriptStatus = Schema.Literal("queued", "processing", "completed", "error")
export type TranscriptStatus = typeof TranscriptStatus.Type

export const TranscriptWord = Schema.Struct({
  text: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  confidence: nullable(Schema.Number),
  speaker: nullable(Schema.String),
  channel: nullable(Schema.String)
})
export type TranscriptWord = typeof TranscriptWord.Type

/** An utterance (`utterances`) or a sentence (`/sentences`): timed text with its words. */
export const TimedText = Schema.Struct({
  text: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  speaker: nullable(Schema.String),
  channel: nullable(Schema.String),
  words: nullable(Schema.Array(TranscriptWord))
})
export type TimedText = typeof TimedText.Type

/** `GET /v2/transcript/{id}/sentences`. */
export const SentencesResponse = Schema.Struct({ sentences: Schema.Array(TimedText) })

/** Topic detection and content moderation results: a summary per label and detailed results. */
export const LabelResults = Schema.Struct({
  status: nullable(Schema.String),
  results: nullable(Schema.Array(Api.FreeFormObject)),
  summary: nullable(Schema.Record({ key: Schema.String, value: Schema.Number }))
})
export type LabelResults = typeof LabelResults.Type

export const SentimentResult = Schema.Struct({
  text: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  sentiment: Schema.String,
  confidence: nullable(Schema.Number)
})

export const EntityResult = Schema.Struct({
  entity_type: Schema.String,
  text: Schema.String,
  start: Schema.Number,
  end: Schema.Number
})

export const AutoHighlightsResult = Schema.Struct({
  results: Schema.Array(Schema.Struct({ text: Schema.String, count: Schema.Number, rank: Schema.Number }))
})

export const ChapterResult = Schema.Struct({
  summary: Schema.String,
  headline: Schema.String,
  gist: Schema.String,
  start: Schema.Number,
  end: Schema.Number
})

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })

export const SpeechUnderstandingResult = Schema.Struct({
  response: nullable(
    Schema.Struct({
      translation: nullable(Schema.Struct({ status: nullable(Schema.String) })),
      speaker_identification: nullable(
        Schema.Struct({ status: nullable(Schema.String), mapping: nullable(StringMap) })
      ),
      custom_formatting: nullable(
        Schema.Struct({
          status: nullable(Schema.String),
          mapping: nullable(StringMap),
          formatted_text: nullable(Schema.String)
        })
      )
    })
  )
})

/** `GET /v2/transcript/{id}` (and the answer of `POST /v2/transcript`). */
export const Transcript = Schema.Struct({
  id: Schema.String,
  status: TranscriptStatus,
  error: nullable(Schema.String),
  text: nullable(Schema.String),
  language_code: nullable(Schema.String),
  /** Seconds. */
  audio_duration: nullable(Schema.Number),
  speech_model_used: nullable(Schema.String),
  words: nullable(Schema.Array(TranscriptWord)),
  utterances: nullable(Schema.Array(TimedText)),
  summary: nullable(Schema.String),
  iab_categories_result: nullable(LabelResults),
  content_safety_labels: nullable(LabelResults),
  sentiment_analysis_results: nullable(Schema.Array(SentimentResult)),
  entities: nullable(Schema.Array(EntityResult)),
  auto_highlights_result: nullable(AutoHighlightsResult),
  chapters: nullable(Schema.Array(ChapterResult)),
  translated_texts: nullable(StringMap),
  speech_understanding: nullable(SpeechUnderstandingResult)
})
export type Transcript = typeof Transcript.Type
