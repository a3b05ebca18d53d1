/**
 * transcribe_video, get_job and estimate_cost: starting a transcription (asking before speech
 * recognition is charged), following its job, and pricing it without starting anything.
 */
import { Api, Credits, Ids, Language, Mode, Status, Transcript } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { namedOnly } from "../json-schema.js"
import { AccountOperations } from "../operations.js"
import { defineTool } from "../tool.js"
import {
  AsrOptionsInput,
  asJson,
  asrModes,
  asrOptionsNamed,
  Count,
  IdempotencyKeyInput,
  IntelligenceOutput,
  intelligenceOf,
  LanguageInput,
  Minutes,
  ModeInput,
  plural,
  preview,
  VideoInput,
  withNextStep
} from "./shared.js"

// ---------------------------------------------------------------------------------------------
// transcribe_video
// ---------------------------------------------------------------------------------------------

const TranscribeVideoInput = Schema.Struct({
  video: VideoInput,
  language: Schema.optional(LanguageInput),
  mode: Schema.optional(ModeInput),
  confirm_asr: Schema.optionalWith(
    Schema.Boolean.annotations({
      description:
        "true only after the user agreed to pay for speech recognition (ASR) at the quoted price. Without it, a video that needs ASR answers requires_asr_confirmation with the quote and nothing is charged",
      default: false
    }),
    { default: () => false }
  ),
  asr_options: Schema.optional(AsrOptionsInput),
  idempotency_key: Schema.optional(IdempotencyKeyInput)
})
type TranscribeVideoInput = typeof TranscribeVideoInput.Type

const TranscribeCompletedOutput = Schema.Struct({
  status: Schema.Literal("completed"),
  request_id: Ids.RequestId,
  job_id: Schema.NullOr(Ids.JobId),
  mode: Mode.Mode,
  video_id: Schema.String,
  video_title: Schema.NullOr(Schema.String),
  language: Language.LanguageCode,
  source: Transcript.SourceKind,
  credits_used: Credits.Credits,
  segment_count: Count,
  character_count: Count,
  preview: Schema.String.annotations({ description: "The opening of the transcript" }),
  asr_intelligence: IntelligenceOutput,
  note: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "What was served when it is not quite what was asked (e.g. asr_options not applied)"
  }),
  next_step: Schema.String
}).annotations({ description: "The transcript is stored; read it with get_transcript" })

const TranscribeProcessingOutput = Schema.Struct({
  status: Schema.Literal("processing"),
  request_id: Ids.RequestId,
  job_id: Ids.JobId,
  mode: Mode.Mode,
  credits_used: Credits.Credits,
  estimated_credits: Credits.Credits,
  duration_minutes: Schema.NullOr(Minutes),
  next_step: Schema.String
}).annotations({ description: "Speech recognition runs; poll get_job with job_id" })

const TranscribeConfirmationOutput = Schema.Struct({
  status: Schema.Literal("requires_asr_confirmation"),
  video: Schema.String,
  mode: Mode.Mode,
  credits_used: Credits.Credits,
  estimated_credits: Credits.Credits,
  base_credits: Credits.Credits,
  addon_credits: Credits.Credits,
  duration_minutes: Schema.NullOr(Minutes),
  max_duration_minutes: Minutes,
  question: Schema.String.annotations({ description: "Ask the user this before confirming" }),
  confirm_arguments: Api.FreeFormObject.annotations({
    description: "The arguments to call transcribe_video with once the user agreed (confirm_asr: true)"
  })
}).annotations({ description: "Speech recognition would be needed: nothing was charged; ask the user" })

const TranscribeFailedOutput = Schema.Struct({
  status: Schema.Literal("failed"),
  request_id: Ids.RequestId,
  job_id: Schema.NullOr(Ids.JobId),
  mode: Mode.Mode,
  credits_used: Credits.Credits,
  error: Schema.String,
  suggestion: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ description: "The video could not be transcribed (nothing was charged)" })

const TranscribeVideoOutput = Schema.Union(
  TranscribeCompletedOutput,
  TranscribeProcessingOutput,
  TranscribeConfirmationOutput,
  TranscribeFailedOutput
)
type TranscribeVideoOutput = typeof TranscribeVideoOutput.Type

const question = (
  mode: Mode.Mode,
  quote: {
    readonly estimated_credits: number
    readonly base_credits: number
    readonly addon_credits: number
    readonly duration_minutes: number | null
  }
) => {
  // speech_to_text_only transcribes the audio even when the video has captions: say why it is ASR.
  const why =
    mode === "speech_to_text_only"
      ? "You asked for speech recognition of the audio (mode speech_to_text_only; captions_only would use the video's captions, if it has any, for 1 credit)"
      : "This video has no usable captions, so it would be transcribed from its audio by speech recognition"
  const minutes =
    quote.duration_minutes === null
      ? ""
      : ` for about ${plural(Math.max(1, Math.ceil(quote.duration_minutes)), "minute")} of audio`
  return `${why}: ${plural(quote.estimated_credits, "credit")} (${quote.base_credits} base + ${quote.addon_credits} for options)${minutes}. Ask the user whether to go ahead; if they agree, call transcribe_video again with confirm_asr: true. Nothing has been charged.`
}

const confirmation = (
  input: TranscribeVideoInput,
  mode: Mode.Mode,
  quote: {
    readonly estimated_credits: number
    readonly base_credits: number
    readonly addon_credits: number
    readonly duration_minutes: number | null
    readonly max_duration_minutes: number
  }
) =>
  Effect.map(
    asJson(TranscribeVideoInput, { ...input, mode, confirm_asr: true }),
    (confirm_arguments): TranscribeVideoOutput => ({
      status: "requires_asr_confirmation",
      video: input.video,
      mode,
      credits_used: 0,
      estimated_credits: quote.estimated_credits,
      base_credits: quote.base_credits,
      addon_credits: quote.addon_credits,
      duration_minutes: quote.duration_minutes,
      max_duration_minutes: quote.max_duration_minutes,
      question: question(mode, quote),
      confirm_arguments
    })
  )

const transcribeOutput = (
  input: TranscribeVideoInput,
  response: Api.TranscribeResponse
): Effect.Effect<TranscribeVideoOutput> => {
  switch (response.status) {
    case "completed": {
      const transcript = response.data.transcript
      return Effect.map(
        intelligenceOf(response.data),
        (intelligence): TranscribeVideoOutput => ({
          status: "completed",
          request_id: response.request_id,
          job_id: response.job_id,
          mode: response.mode,
          video_id: response.data.video_id,
          video_title: response.data.video_title,
          language: transcript.language,
          source: transcript.source,
          credits_used: response.credits_used,
          segment_count: transcript.segments.length,
          character_count: transcript.text.length,
          preview: preview(transcript.text),
          ...intelligence,
          ...(response.note === undefined ? {} : { note: response.note }),
          next_step: `${response.note === undefined ? "" : `${response.note} `}Read the transcript with get_transcript (video_id ${response.data.video_id}, language ${transcript.language}); it comes in chunks with timestamps.`
        })
      )
    }
    case "processing":
      return Effect.succeed({
        status: "processing",
        request_id: response.request_id,
        job_id: response.job_id,
        mode: response.mode,
        credits_used: response.credits_used,
        estimated_credits: response.estimated_credits,
        duration_minutes: response.duration_minutes,
        next_step: `Speech recognition is running. Call get_job with job_id ${response.job_id} every little while until its status is completed (credits are charged then, at most ${response.estimated_credits}), then read the transcript with get_transcript.`
      })
    case "requires_asr_confirmation":
      return confirmation(input, response.mode, response)
    case "failed":
      return Effect.succeed({
        status: "failed",
        request_id: response.request_id,
        job_id: response.job_id,
        mode: response.mode,
        credits_used: response.credits_used,
        error: response.error,
        ...(response.suggestion === undefined ? {} : { suggestion: response.suggestion })
      })
  }
}

export const transcribeVideo = defineTool({
  name: "transcribe_video",
  title: "Transcribe a video",
  description: [
    "Get the transcript of a YouTube video and store it in the user's library (later reads are free).",
    "Captions cost 1 credit, and 0 when the user already owns that transcript.",
    "A video without captions can be transcribed from its audio by speech recognition (ASR), which costs much more (about 40 credits an hour, more with options): you then get status requires_asr_confirmation with the price and a question. Ask the user, and only if they agree call again with confirm_asr: true; ASR then runs in the background (status processing: poll get_job).",
    "On completed, the answer holds the opening of the text; read the whole transcript with get_transcript."
  ].join(" "),
  input: TranscribeVideoInput,
  output: TranscribeVideoOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const asr_options = input.asr_options
      if (!input.confirm_asr && input.mode !== undefined && asrModes.includes(input.mode)) {
        // An ASR mode without confirmation: ask, unless the captions will serve it anyway (auto
        // on a video with captions) or ASR would refuse it as too long (answered `failed`, free).
        const quote = yield* operations.estimate(
          new Api.EstimateRequest({
            video: input.video,
            mode: input.mode,
            ...(asr_options ? { asr_options } : {})
          })
        )
        if (quote.source === "asr" && !quote.exceeds_max_duration) {
          return yield* confirmation(input, input.mode, quote)
        }
      }
      const mode = input.mode ?? (input.confirm_asr ? "auto" : undefined)
      const response = yield* operations.transcribe(
        new Api.TranscribeRequest({
          video: input.video,
          ...(input.language === undefined ? {} : { language: input.language }),
          ...(mode === undefined ? {} : { mode }),
          ...(asr_options === undefined ? {} : { asr_options })
        }),
        input.idempotency_key
      )
      return yield* transcribeOutput(input, response)
    })
})

// ---------------------------------------------------------------------------------------------
// get_job
// ---------------------------------------------------------------------------------------------

const GetJobInput = Schema.Struct({
  job_id: Ids.JobId.annotations({ description: "The job_id that transcribe_video returned" })
})

const GetJobOutput = Schema.Struct({
  job_id: Ids.JobId,
  request_id: Ids.RequestId,
  status: Status.JobStatus,
  credits_used: Credits.Credits,
  created_at: Schema.DateTimeUtc,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  completed_at: Schema.NullOr(Schema.DateTimeUtc),
  error: Schema.optionalWith(Schema.String, { exact: true }),
  video_id: Schema.optionalWith(Schema.String, { exact: true }),
  video_title: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  language: Schema.optionalWith(Language.LanguageCode, { exact: true }),
  source: Schema.optionalWith(Transcript.SourceKind, { exact: true }),
  character_count: Schema.optionalWith(Count, { exact: true }),
  preview: Schema.optionalWith(Schema.String, { exact: true }),
  asr_intelligence: IntelligenceOutput,
  next_step: Schema.String
})

const jobNextStep = (job: Api.Job): string => {
  switch (job.status) {
    case "completed":
      return `Read the transcript with get_transcript (video_id ${job.data.video_id}, id ${job.job_id}).`
    case "processing":
      return "Still running: call get_job again in a little while."
    case "failed":
      return "The job failed and nothing was charged for it."
    case "requires_asr_confirmation":
      return "The request stopped at the speech recognition quote; call transcribe_video with confirm_asr: true once the user agreed."
  }
}

export const getJob = defineTool({
  name: "get_job",
  title: "Check a transcription job",
  description:
    "The state of a transcription job (from transcribe_video's job_id): processing while speech recognition runs, then completed (with the opening of the transcript) or failed (with the reason). Free.",
  input: GetJobInput,
  output: GetJobOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const job = yield* operations.job(input.job_id, {
        include_segments: false,
        include_paragraphs: false,
        include_words: false
      })
      const base = {
        job_id: job.job_id,
        request_id: job.request_id,
        status: job.status,
        credits_used: job.credits_used,
        created_at: job.created_at,
        started_at: job.started_at,
        completed_at: job.completed_at,
        next_step: jobNextStep(job)
      }
      if (job.status === "failed") return { ...base, error: job.error }
      if (job.status !== "completed") return base
      const transcript = job.data.transcript
      return {
        ...base,
        video_id: job.data.video_id,
        video_title: job.data.video_title,
        language: transcript.language,
        source: transcript.source,
        character_count: transcript.text.length,
        preview: preview(transcript.text),
        ...(yield* intelligenceOf(job.data))
      }
    })
})

export const estimateCost = defineTool({
  name: "estimate_cost",
  title: "Estimate the cost of a transcription",
  description:
    "What transcribing a video would cost in credits, without starting or charging anything (free). Without mode it prices what the account's default mode would do for this video (captions: 1 credit, 0 if owned; or speech recognition); with mode, that mode. Speech recognition is priced by duration plus the billable asr_options. exceeds_max_duration: too long for speech recognition.",
  input: Schema.Struct({
    video: VideoInput,
    mode: Schema.optional(ModeInput),
    asr_options: Schema.optional(AsrOptionsInput)
  }),
  output: Schema.Struct(Api.EstimateResponse.fields),
  listedInput: (schema) => namedOnly(schema, "asr_options", asrOptionsNamed),
  annotations: { readOnlyHint: true, openWorldHint: true },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      // Without mode, the mode a transcribe without mode would apply: the account's default (the
      // REST estimate, by the spec, prices speech recognition then; a model asks what it will pay).
      const mode = input.mode ?? (yield* operations.videoInfo({ video: input.video })).default_mode
      return yield* operations
        .estimate(
          new Api.EstimateRequest({
            video: input.video,
            mode,
            ...(input.asr_options === undefined ? {} : { asr_options: input.asr_options })
          })
        )
        .pipe(
          Effect.mapError(
            withNextStep({
              no_captions: () =>
                `Call estimate_cost again with video "${input.video}" and mode "speech_to_text_only" to price speech recognition of the audio`
            })
          )
        )
    })
})
