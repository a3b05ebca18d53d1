/**
 * Fields and helpers that several tool families share: the inputs with their descriptions for a
 * model, the output fields, and the JSON encoding of values carried as free-form objects.
 */
import { IdempotencyKey, maxIdempotencyKeyLength } from "@verbatim/core"
import { Api, Asr, Errors, Language, Mode, Plan, Reference, Transcript } from "@verbatim/domain"
import { Effect, Either, ParseResult, Schema } from "effect"
import type { Snippet } from "../snippets.js"

// ---------------------------------------------------------------------------------------------
// Fields of the inputs, with descriptions for a model
// ---------------------------------------------------------------------------------------------

export const VideoInput = Api.ReferenceInput.annotations({
  description: "The video: a YouTube URL (watch, youtu.be, shorts or embed link) or its 11-character video id"
})

/** The language to transcribe in: captions fall back to another language (DESIGN decision 9). */
export const LanguageInput = Language.LanguageCode.annotations({
  description:
    "Preferred language as an ISO 639-1 code (en, de, pt-BR). If the video has no captions in it, another language is returned and the answer's language field says which"
})

/** The language of an owned transcript to read: no fallback, a missing one is an error. */
export const OwnedLanguageInput = Language.LanguageCode.annotations({
  description:
    "Which owned transcript, by language (ISO 639-1: en, de, pt-BR); leave out for the best one. A language not owned is an error naming translate_transcript or transcribe_video"
})

/** A filter of a list of owned transcripts by language. */
export const FilterLanguageInput = Language.LanguageCode.annotations({
  description: "Only transcripts in this language (ISO 639-1: en, de, pt-BR)"
})

export const ModeInput = Mode.Mode.annotations({
  description:
    "captions_only: captions, never speech recognition (1 credit). human_captions_only: human captions only. auto: captions, else speech recognition. speech_to_text_only: always speech recognition. The last two can cost many credits: leave mode out unless the user asked"
})

export const AsrOptionsInput = Asr.AsrOptions.annotations({
  description:
    "Speech recognition options, used only when the audio is transcribed. Billable features (speakerLabels, sentimentAnalysis, summarization, topicDetection, contentModeration, piiRedaction, profanityFiltering, customFormatting, translateTo) raise the price in proportion to the duration"
})

/** asr_options where another tool than transcribe_video takes it: described there in full. */
export const asrOptionsNamed =
  "Speech recognition options, the same fields as transcribe_video's asr_options (described there); billable ones raise the price by duration"

/** A video key (a video id or an upload id) as it is, or a YouTube video URL as its video id. */
const VideoKeyOrUrl = Schema.transformOrFail(Api.ReferenceInput, Api.VideoKey, {
  strict: true,
  decode: (input, _, ast) =>
    Schema.is(Api.VideoKey)(input)
      ? ParseResult.succeed(input)
      : Either.match(Reference.parseVideo(input), {
          onLeft: () =>
            ParseResult.fail(
              new ParseResult.Type(ast, input, "a video id, a YouTube video URL or an upload id")
            ),
          onRight: (id) => ParseResult.succeed(id)
        }),
  encode: ParseResult.succeed
})

/** A video already transcribed, named as every tool names one: its id or URL, or an upload id. */
export const VideoIdInput = VideoKeyOrUrl.annotations({
  description:
    "The video: its id (11 characters, as returned by the other tools) or a YouTube URL (watch, youtu.be, shorts or embed link), or an upload id for uploads"
})

export const SourceInput = Transcript.SourceKind.annotations({
  description:
    "Which transcript when the video has several: manual (human captions), auto (auto captions), asr"
})

/** The REST API's `Idempotency-Key`, as a tool input: core's rule (which core checks again). */
export const IdempotencyKeyInput = IdempotencyKey.annotations({
  description: `Optional retry key (e.g. a UUID; 1 to ${maxIdempotencyKeyLength} visible ASCII characters): the same key and arguments within 24 hours answer the first answer, charging nothing again; other arguments are a conflict`
})

export const bounded = (min: number, max: number, value: number, description: string) =>
  Schema.optionalWith(
    Schema.Int.pipe(Schema.between(min, max)).annotations({ description, default: value }),
    { default: () => value }
  )

export const PageInput = Schema.optionalWith(
  Plan.Page.annotations({ description: "Page of results, from 1", default: 1 }),
  { default: () => 1 }
)

// ---------------------------------------------------------------------------------------------
// Fields of the outputs
// ---------------------------------------------------------------------------------------------

export const Count = Api.Count
export const Minutes = Api.NonNegativeNumber

export const SnippetOutput = Schema.Struct({
  start: Transcript.Millis,
  end: Transcript.Millis,
  timestamp: Schema.String.annotations({ description: "start as HH:MM:SS" }),
  text: Schema.String
}).annotations({ description: "A passage of the transcript with its time (ms)" })

export const snippetOutput = (snippet: Snippet): typeof SnippetOutput.Type => ({
  start: snippet.start,
  end: snippet.end,
  timestamp: Transcript.clockTimecode(snippet.start),
  text: snippet.text
})

/**
 * ASR intelligence in an output: as the API gives it, documented there (its full schema would
 * make every listing that carries it several kilobytes longer).
 */
export const IntelligenceOutput = Schema.optionalWith(
  Api.FreeFormObject.annotations({
    description:
      "What the asr_options asked for (summary, topics, content_safety, sentiment, entities, auto_highlights, chapters), as the API's asr_intelligence"
  }),
  { exact: true }
)

export const previewLength = 600

export const preview = (text: string): string =>
  text.length <= previewLength ? text : `${text.slice(0, previewLength).trimEnd()}…`

export const asrModes: ReadonlyArray<Mode.Mode> = ["auto", "speech_to_text_only"]

/** A value as the JSON object its schema encodes it to (outputs carry it as a free-form object). */
export const asJson = <A, I extends { readonly [key: string]: unknown }>(
  schema: Schema.Schema<A, I>,
  value: A
) =>
  Schema.encode(schema)(value).pipe(
    Effect.orDie,
    Effect.map((encoded): Api.FreeFormObject => encoded)
  )

/** The intelligence of a transcript, as JSON, when there is some. */
export const intelligenceOf = (data: Api.TranscribeData) =>
  data.asr_intelligence === undefined
    ? Effect.succeed({})
    : Effect.map(asJson(Api.AsrIntelligence, data.asr_intelligence), (asr_intelligence) => ({
        asr_intelligence
      }))

/** "1 credit", "2 credits": a count as a person writes it. */
export const plural = (count: number, unit: string): string => `${count} ${unit}${count === 1 ? "" : "s"}`

/**
 * An error with the next step a model should take added to its message and as
 * `details.next_step`: the tool and arguments that would succeed. Codes without a step pass as
 * they are.
 */
export const withNextStep =
  (steps: { readonly [code: string]: (error: Errors.ApiError) => string | undefined }) =>
  (error: Errors.ApiError): Errors.ApiError => {
    const step = steps[error.code]?.(error)
    return step === undefined
      ? error
      : new Errors.ApiError({
          code: error.code,
          message: `${error.message}. ${step}`,
          details: { ...error.details, next_step: step }
        })
  }

/** What to call when the account owns no transcript of a video: transcribe it first. */
export const transcribeFirst = (videoId: string) =>
  `Call transcribe_video with video "${videoId}" first (captions cost 1 credit; estimate_cost or get_video_info price it for free)`
