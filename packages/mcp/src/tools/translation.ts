/**
 * translate_transcript: an owned transcript into another language, stored beside it.
 */
import { Api, Credits, Language, Pricing } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { AccountOperations } from "../operations.js"
import { defineTool } from "../tool.js"
import { Count, plural, transcribeFirst, VideoIdInput, withNextStep } from "./shared.js"

const TranslateOutput = Schema.Struct({
  video_id: Schema.String,
  language: Language.LanguageCode,
  translated_from: Schema.NullOr(Language.LanguageCode).annotations({
    description:
      "The language the machine translation was made from; null when an owned original was returned"
  }),
  credits_used: Credits.Credits,
  provider_used: Schema.NullOr(Api.TranslateProvider).annotations({
    description:
      "platform (the video platform's caption translation), ai (the server's engine), null when already owned"
  }),
  message: Schema.String,
  segment_count: Count,
  character_count: Count,
  next_step: Schema.String
})

/**
 * The next step when a translation is refused: a language the platform cannot translate goes to
 * the server's machine translation; a video or source language not owned is transcribed first.
 */
const translationSteps = (input: {
  readonly video_id: string
  readonly target_language: string
  readonly source_language?: string | undefined
}) =>
  withNextStep({
    unsupported_language: () =>
      `Call translate_transcript again with video_id "${input.video_id}", target_language "${input.target_language}" and provider "ai" (the server's machine translation, when this server has one), or allow_ai_fallback true`,
    not_found: () => transcribeFirst(input.video_id),
    forbidden: () =>
      `Leave source_language out to translate the best transcript owned, or call transcribe_video with video "${input.video_id}"${input.source_language === undefined ? "" : ` and language "${input.source_language}"`} first`
  })

export const translateTranscript = defineTool({
  name: "translate_transcript",
  title: "Translate a stored transcript",
  description:
    "Translates a transcript the user owns into target_language and stores the translation in the user's library, with the source's segment times. Costs 1 credit per 2,500 characters of the source (tell the user first); a translation already owned is free. provider platform (the default) uses the video platform's caption translation when transcript_languages lists the language; set provider ai, or allow_ai_fallback true, to use the server's machine translation. Read the result with get_transcript and language set to target_language.",
  input: Schema.Struct({
    video_id: VideoIdInput,
    target_language: Language.LanguageCode.annotations({
      description: "The language to translate into, as an ISO 639-1 code (es, de, pt-BR)"
    }),
    source_language: Schema.optional(
      Language.LanguageCode.annotations({
        description: "Which owned transcript to translate, by language; leave out for the best one"
      })
    ),
    provider: Schema.optional(
      Api.TranslateProvider.annotations({
        description:
          "platform: the video platform's caption translation (the default); ai: the server's machine translation"
      })
    ),
    allow_ai_fallback: Schema.optional(
      Schema.Boolean.annotations({
        description:
          "When the platform cannot translate into the language, use the server's machine translation"
      })
    )
  }),
  output: TranslateOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  text: (output) =>
    [output.message, `${plural(output.credits_used, "credit")} used.`, output.next_step].join("\n"),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const answer = yield* operations
        .translate(
          input.video_id,
          new Api.TranslateRequest({
            target_language: input.target_language,
            ...(input.source_language === undefined ? {} : { source_language: input.source_language }),
            ...(input.provider === undefined ? {} : { provider: input.provider }),
            allow_ai_fallback: input.allow_ai_fallback ?? false
          })
        )
        .pipe(Effect.mapError(translationSteps(input)))
      return {
        video_id: input.video_id,
        language: answer.language,
        translated_from: answer.translated_from,
        credits_used: answer.credits_used,
        provider_used: answer.provider_used,
        message: answer.message,
        segment_count: answer.transcript.segments.length,
        character_count: Pricing.translationCharacters(answer.transcript.text),
        next_step: `Read it with get_transcript (video_id ${input.video_id}, language ${answer.language}).`
      }
    })
})
