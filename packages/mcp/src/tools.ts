/**
 * The tools, one per use case an assistant needs, each calling the operation of the REST endpoint
 * it mirrors (same authentication, rate limit and credits):
 *
 * | tool | mirrors |
 * |---|---|
 * | transcribe_video | POST /transcribe (and POST /transcribe/estimate for the ASR question) |
 * | get_job | GET /jobs/{job_id} |
 * | get_transcript | GET /transcripts/{video_id}, in chunks |
 * | search_transcripts, list_transcripts | GET /transcripts (with snippets) |
 * | transcript_languages | GET /transcripts/{video_id}/languages |
 * | translate_transcript | POST /transcripts/{video_id}/translate |
 * | estimate_cost | POST /transcribe/estimate |
 * | get_credits | GET /credits |
 * | run_batch | POST /batch |
 * | get_batch | GET /batch/{batch_id}, a page of items |
 * | resolve_playlist | POST /playlists/resolve |
 * | resolve_channel | POST /channels/resolve |
 * | get_themes | GET /transcripts/{video_id}/themes, or POST with unlock |
 *
 * Never a silent charge for speech recognition: a request that would start ASR without
 * `confirm_asr: true` answers `requires_asr_confirmation` with the quote and a question for the
 * user, whether the account default asked for the confirmation (DESIGN decision 1) or the model
 * sent an ASR mode on its own.
 */

import { IdempotencyKey, maxIdempotencyKeyLength } from "@verbatim/core"
import {
  Api,
  Asr,
  Credits,
  Errors,
  Ids,
  Language,
  Mode,
  Plan,
  Pricing,
  Status,
  Transcript
} from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"
import { type Chunk, chunkAt, chunkBudget, decodeCursor, encodeCursor, start, within } from "./chunks.js"
import { AccountOperations } from "./operations.js"
import { openingSnippet, type Snippet, searchSnippets } from "./snippets.js"
import { defineTool, type McpTool, renameFields } from "./tool.js"

// ---------------------------------------------------------------------------------------------
// Fields of the inputs, with descriptions for a model
// ---------------------------------------------------------------------------------------------

const VideoInput = Api.ReferenceInput.annotations({
  description: "The video: a YouTube URL (watch, youtu.be, shorts or embed link) or its 11-character video id"
})

const LanguageInput = Language.LanguageCode.annotations({
  description:
    "Preferred language as an ISO 639-1 code (en, de, pt-BR). If the video has no captions in it, another language is returned and the answer's language field says which"
})

const ModeInput = Mode.Mode.annotations({
  description:
    "captions_only: existing captions, never speech recognition (1 credit). human_captions_only: human-made captions only. auto: captions, or speech recognition when the video has none. speech_to_text_only: always transcribe the audio. The last two can cost many credits: leave mode out unless the user asked, and see confirm_asr"
})

const AsrOptionsInput = Asr.AsrOptions.annotations({
  description:
    "Speech recognition options, used only when the audio is transcribed. Billable features (speakerLabels, sentimentAnalysis, summarization, topicDetection, contentModeration, piiRedaction, profanityFiltering, customFormatting, translateTo) raise the price in proportion to the duration"
})

const VideoIdInput = Api.VideoKey.annotations({
  description: "The video id (11 characters, as returned by the other tools), or an upload id for uploads"
})

const SourceInput = Transcript.SourceKind.annotations({
  description:
    "Which transcript when the video has several: manual (human captions), auto (auto captions), asr"
})

/** The REST API's `Idempotency-Key`, as a tool input: core's rule (which core checks again). */
const IdempotencyKeyInput = IdempotencyKey.annotations({
  description: `Optional: a key of your own (e.g. a UUID, 1 to ${maxIdempotencyKeyLength} visible ASCII characters) that makes a retry safe. Calling again with the same key and the same arguments within 24 hours answers the first answer and charges nothing again; the same key with other arguments is a conflict error. Use a new key for each new request`
})

const bounded = (min: number, max: number, value: number, description: string) =>
  Schema.optionalWith(
    Schema.Int.pipe(Schema.between(min, max)).annotations({ description, default: value }),
    { default: () => value }
  )

const PageInput = Schema.optionalWith(
  Plan.Page.annotations({ description: "Page of results, from 1", default: 1 }),
  { default: () => 1 }
)

// ---------------------------------------------------------------------------------------------
// Fields of the outputs
// ---------------------------------------------------------------------------------------------

const Count = Api.Count
const Minutes = Api.NonNegativeNumber

const SnippetOutput = Schema.Struct({
  start: Transcript.Millis,
  end: Transcript.Millis,
  timestamp: Schema.String.annotations({ description: "start as HH:MM:SS" }),
  text: Schema.String
}).annotations({ description: "A passage of the transcript with its time (ms)" })

const snippetOutput = (snippet: Snippet): typeof SnippetOutput.Type => ({
  start: snippet.start,
  end: snippet.end,
  timestamp: Transcript.clockTimecode(snippet.start),
  text: snippet.text
})

/**
 * ASR intelligence in an output: as the API gives it, documented there (its full schema would
 * make every listing that carries it several kilobytes longer).
 */
const IntelligenceOutput = Schema.optionalWith(
  Api.FreeFormObject.annotations({
    description:
      "What the asr_options asked for (summary, topics, content_safety, sentiment, entities, auto_highlights, chapters), as the API's asr_intelligence"
  }),
  { exact: true }
)

const previewLength = 600

const preview = (text: string): string =>
  text.length <= previewLength ? text : `${text.slice(0, previewLength).trimEnd()}…`

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

const asrModes: ReadonlyArray<Mode.Mode> = ["auto", "speech_to_text_only"]

const question = (quote: {
  readonly estimated_credits: number
  readonly base_credits: number
  readonly addon_credits: number
  readonly duration_minutes: number | null
}) =>
  `This video has no usable captions, so it would be transcribed from its audio by speech recognition: ${quote.estimated_credits} credits (${quote.base_credits} base + ${quote.addon_credits} for options)${quote.duration_minutes === null ? "" : ` for about ${Math.ceil(quote.duration_minutes)} minutes of audio`}. Ask the user whether to go ahead; if they agree, call transcribe_video again with confirm_asr: true. Nothing has been charged.`

/** A value as the JSON object its schema encodes it to (outputs carry it as a free-form object). */
const asJson = <A, I extends { readonly [key: string]: unknown }>(schema: Schema.Schema<A, I>, value: A) =>
  Schema.encode(schema)(value).pipe(
    Effect.orDie,
    Effect.map((encoded): Api.FreeFormObject => encoded)
  )

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
      question: question(quote),
      confirm_arguments
    })
  )

/** The intelligence of a transcript, as JSON, when there is some. */
const intelligenceOf = (data: Api.TranscribeData) =>
  data.asr_intelligence === undefined
    ? Effect.succeed({})
    : Effect.map(asJson(Api.AsrIntelligence, data.asr_intelligence), (asr_intelligence) => ({
        asr_intelligence
      }))

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
          next_step: `Read the transcript with get_transcript (video_id ${response.data.video_id}, language ${transcript.language}); it comes in chunks with timestamps.`
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

const transcribeVideo = defineTool({
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

const getJob = defineTool({
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

// ---------------------------------------------------------------------------------------------
// get_transcript
// ---------------------------------------------------------------------------------------------

const GetTranscriptInput = Schema.Struct({
  video_id: VideoIdInput,
  language: Schema.optional(LanguageInput),
  source: Schema.optional(SourceInput),
  id: Schema.optional(
    Schema.UUID.annotations({ description: "A specific transcript: its id, or the job_id that made it" })
  ),
  cursor: Schema.optional(
    Schema.String.pipe(Schema.maxLength(512)).annotations({
      description: "next_cursor from the previous chunk, to read on; leave out for the first chunk"
    })
  ),
  max_chars: bounded(
    chunkBudget.min,
    chunkBudget.max,
    chunkBudget.default,
    "Size of a chunk in characters (each segment counts its text plus 40)"
  )
})

const PieceOutput = Schema.Struct({
  segment: Count.annotations({ description: "Index of the segment in the transcript" }),
  start: Transcript.Millis,
  end: Transcript.Millis,
  text: Schema.String
}).annotations({
  description: "A segment (ms times); a long segment may be split across chunks, its pieces keeping its index"
})

const GetTranscriptOutput = Schema.Struct({
  id: Ids.TranscriptId,
  video_id: Schema.String,
  video_title: Schema.NullOr(Schema.String),
  language: Language.LanguageCode,
  source_kind: Transcript.SourceKind,
  has_timestamps: Schema.Boolean,
  segment_count: Count.annotations({ description: "Segments in the whole transcript" }),
  character_count: Count.annotations({ description: "Characters in the whole transcript's text" }),
  segments: Schema.Array(PieceOutput),
  has_more: Schema.Boolean,
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor to read the next chunk; null after the last one"
  })
})
type GetTranscriptOutput = typeof GetTranscriptOutput.Type

/** A cursor that is not one, or not of this transcript: `invalid_request` naming `cursor`. */
const cursorError = (why: string): Errors.ApiError =>
  Errors.rejection([{ path: ["cursor"], message: `the cursor ${why}; leave it out to start again` }])

const transcriptText = (output: GetTranscriptOutput): string => {
  const first = output.segments[0]
  const last = output.segments[output.segments.length - 1]
  const range =
    first === undefined || last === undefined
      ? "no segments"
      : `segments ${first.segment + 1}–${last.segment + 1} of ${output.segment_count}`
  const header = `${output.video_title ?? output.video_id} (video ${output.video_id}, ${output.language}, ${output.source_kind}): ${range}`
  const lines = output.segments.map((piece) => `[${Transcript.clockTimecode(piece.start)}] ${piece.text}`)
  const footer =
    output.next_cursor === null
      ? "End of transcript."
      : `More follows: call get_transcript again with cursor "${output.next_cursor}".`
  return [header, ...lines, footer].join("\n")
}

const getTranscript = defineTool({
  name: "get_transcript",
  title: "Read a stored transcript",
  description:
    "Read a transcript the user owns (from transcribe_video), in chunks that fit your context: each chunk lists segments with start and end times in milliseconds. When has_more is true, call again with cursor set to next_cursor to read on. Chooses the best transcript of the video (human captions, then auto captions, then speech recognition) unless language, source or id says which. Free.",
  input: GetTranscriptInput,
  output: GetTranscriptOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  text: (output) => transcriptText(output),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const cursor =
        input.cursor === undefined
          ? Option.none()
          : yield* Option.match(decodeCursor(input.cursor), {
              onNone: () => Effect.fail(cursorError("is not a cursor that get_transcript returned")),
              onSome: (value) => Effect.succeed(Option.some(value))
            })
      const id = Option.match(cursor, { onNone: () => input.id, onSome: (value) => value.transcript })
      const transcript = yield* operations.transcript(input.video_id, {
        include_timestamps: true,
        format: "json",
        ...(id === undefined ? {} : { id }),
        ...(input.language === undefined ? {} : { language: input.language }),
        ...(input.source === undefined ? {} : { source: input.source })
      })
      const from = Option.match(cursor, { onNone: () => start, onSome: (value) => value.position })
      if (Option.isSome(cursor) && !within(transcript.segments, from)) {
        return yield* cursorError("points past the end of the transcript")
      }
      const chunk: Chunk = chunkAt(transcript.segments, from, input.max_chars)
      return {
        id: transcript.id,
        video_id: transcript.video_id,
        video_title: transcript.video_title,
        language: transcript.language,
        source_kind: transcript.source_kind,
        has_timestamps: transcript.has_timestamps,
        segment_count: transcript.segments.length,
        character_count: transcript.text.length,
        segments: chunk.pieces,
        has_more: Option.isSome(chunk.next),
        next_cursor: Option.match(chunk.next, {
          onNone: () => null,
          onSome: (position) => encodeCursor({ transcript: transcript.id, position })
        })
      }
    })
})

// ---------------------------------------------------------------------------------------------
// search_transcripts and list_transcripts
// ---------------------------------------------------------------------------------------------

const TranscriptItemOutput = Schema.Struct({
  id: Ids.TranscriptId,
  video_id: Schema.String,
  video_title: Schema.NullOr(Schema.String),
  language: Language.LanguageCode,
  source_kind: Transcript.SourceKind,
  created_at: Schema.DateTimeUtc,
  duration_seconds: Count,
  word_count: Count,
  snippets: Schema.Array(SnippetOutput)
})

const itemOutput = (item: Api.TranscriptListItem, snippets: ReadonlyArray<Snippet>) => ({
  id: item.id,
  video_id: item.video_id,
  video_title: item.video_title,
  language: item.language,
  source_kind: item.source_kind,
  created_at: item.created_at,
  duration_seconds: item.duration_seconds,
  word_count: item.word_count,
  snippets: snippets.map(snippetOutput)
})

const SearchTranscriptsInput = Schema.Struct({
  query: Api.TranscriptSearch.annotations({
    description:
      'Words to find in the transcripts\' text, titles and video ids (English stemming; "quoted phrase", -excluded, or)'
  }),
  language: Schema.optional(LanguageInput),
  page: PageInput,
  limit: bounded(1, 20, 10, "Transcripts per page"),
  snippets_per_transcript: bounded(1, 10, 3, "Matching passages shown per transcript")
})

const SearchTranscriptsOutput = Schema.Struct({
  query: Schema.String,
  results: Schema.Array(TranscriptItemOutput),
  count: Count,
  pagination: Api.Pagination
})

const searchTranscripts = defineTool({
  name: "search_transcripts",
  title: "Search stored transcripts",
  description:
    "Full-text search over the transcripts the user owns. Each result names the video and gives the matching passages with their times, so you can cite them or read around them with get_transcript. Newest first. Free.",
  input: SearchTranscriptsInput,
  output: SearchTranscriptsOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const list = yield* operations.transcripts({
        page: input.page,
        limit: input.limit,
        search: input.query,
        status: "succeeded",
        include_segments: true,
        ...(input.language === undefined ? {} : { language: input.language })
      })
      const results = list.history.map((item) => {
        const segments = item.segments ?? []
        const found = searchSnippets(segments, input.query, input.snippets_per_transcript)
        // The match may be in the title or the video id only: show how the transcript opens.
        return itemOutput(item, found.length > 0 ? found : openingSnippet(segments))
      })
      return { query: input.query, results, count: list.count, pagination: list.pagination }
    })
})

const ListTranscriptsInput = Schema.Struct({
  language: Schema.optional(LanguageInput),
  date_from: Schema.optional(
    Api.DateTimeInput.annotations({ description: "Only transcripts stored from this ISO 8601 time" })
  ),
  date_to: Schema.optional(
    Api.DateTimeInput.annotations({ description: "Only transcripts stored until this ISO 8601 time" })
  ),
  page: PageInput,
  limit: bounded(1, 25, 10, "Transcripts per page")
})

const ListTranscriptsOutput = Schema.Struct({
  transcripts: Schema.Array(TranscriptItemOutput),
  count: Count,
  pagination: Api.Pagination
})

const listTranscripts = defineTool({
  name: "list_transcripts",
  title: "List stored transcripts",
  description:
    "The transcripts the user owns, newest first, each with its video, language, duration and how it opens (a timed snippet). Use search_transcripts to find words, get_transcript to read one. Free.",
  input: ListTranscriptsInput,
  output: ListTranscriptsOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const list = yield* operations.transcripts({
        page: input.page,
        limit: input.limit,
        status: "succeeded",
        include_segments: true,
        ...(input.language === undefined ? {} : { language: input.language }),
        ...(input.date_from === undefined ? {} : { date_from: input.date_from }),
        ...(input.date_to === undefined ? {} : { date_to: input.date_to })
      })
      return {
        transcripts: list.history.map((item) => itemOutput(item, openingSnippet(item.segments ?? []))),
        count: list.count,
        pagination: list.pagination
      }
    })
})

// ---------------------------------------------------------------------------------------------
// transcript_languages, estimate_cost, get_credits
// ---------------------------------------------------------------------------------------------

const transcriptLanguages = defineTool({
  name: "transcript_languages",
  title: "Languages of a stored transcript",
  description:
    "The languages the user owns a transcript of for a video, and the languages the video platform can translate its captions into. Free.",
  input: Schema.Struct({ video_id: VideoIdInput }),
  output: Schema.Struct(Api.LanguagesResponse.fields),
  annotations: { readOnlyHint: true, openWorldHint: true },
  run: (input) =>
    Effect.flatMap(AccountOperations, (operations) =>
      operations.languages(input.video_id, { include_youtube_default: true })
    )
})

const TranslateOutput = Schema.Struct({
  video_id: Schema.String,
  language: Language.LanguageCode,
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

const translateTranscript = defineTool({
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
  text: (output) => [output.message, `${output.credits_used} credits used.`, output.next_step].join("\n"),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const answer = yield* operations.translate(
        input.video_id,
        new Api.TranslateRequest({
          target_language: input.target_language,
          ...(input.source_language === undefined ? {} : { source_language: input.source_language }),
          ...(input.provider === undefined ? {} : { provider: input.provider }),
          allow_ai_fallback: input.allow_ai_fallback ?? false
        })
      )
      return {
        video_id: input.video_id,
        language: answer.language,
        credits_used: answer.credits_used,
        provider_used: answer.provider_used,
        message: answer.message,
        segment_count: answer.transcript.segments.length,
        character_count: Pricing.translationCharacters(answer.transcript.text),
        next_step: `Read it with get_transcript (video_id ${input.video_id}, language ${answer.language}).`
      }
    })
})

const estimateCost = defineTool({
  name: "estimate_cost",
  title: "Estimate the cost of a transcription",
  description:
    "What transcribing a video would cost in credits, without starting anything or charging (free). Without mode it prices speech recognition of the audio (base plus the billable asr_options, by duration); with mode captions_only or auto it prices the captions when the video has them (1 credit, 0 if already owned). exceeds_max_duration says the video is too long for speech recognition.",
  input: Schema.Struct({
    video: VideoInput,
    mode: Schema.optional(ModeInput),
    asr_options: Schema.optional(AsrOptionsInput)
  }),
  output: Schema.Struct(Api.EstimateResponse.fields),
  annotations: { readOnlyHint: true, openWorldHint: true },
  run: (input) =>
    Effect.flatMap(AccountOperations, (operations) =>
      operations.estimate(
        new Api.EstimateRequest({
          video: input.video,
          ...(input.mode === undefined ? {} : { mode: input.mode }),
          ...(input.asr_options === undefined ? {} : { asr_options: input.asr_options })
        })
      )
    )
})

const getCredits = defineTool({
  name: "get_credits",
  title: "Credit balance",
  description:
    "The user's credits available to spend (credits), those held by work still running (held_credits), and the plan. Free.",
  input: Schema.Struct({}),
  output: Schema.Struct(Api.CreditsResponse.fields),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: () => Effect.flatMap(AccountOperations, (operations) => operations.credits)
})

// ---------------------------------------------------------------------------------------------
// run_batch and get_batch
// ---------------------------------------------------------------------------------------------

/** Credits of one hour of speech recognition without options (the ASR base rate). */
const asrCreditsPerHour = Pricing.asrBaseCredits(Pricing.secondsPerHour)

const RunBatchInput = Schema.Struct({
  video_ids: Schema.Array(VideoInput)
    .pipe(Schema.minItems(1), Schema.maxItems(Plan.maxBatchSize))
    .annotations({
      description: `The videos: YouTube URLs or 11-character ids, 1 to ${Plan.maxBatchSize} (the plan may allow fewer)`
    }),
  language: Schema.optional(LanguageInput),
  mode: Schema.optional(ModeInput),
  confirm_asr: Schema.optionalWith(
    Schema.Boolean.annotations({
      description:
        "true only after the user agreed to pay for speech recognition (ASR) of the videos without captions. Without it, a batch that could start ASR (an ASR mode, or a webhook_url with the account's default mode) answers requires_asr_confirmation and nothing starts",
      default: false
    }),
    { default: () => false }
  ),
  webhook_url: Schema.optional(
    Api.HttpUrl.annotations({
      description:
        "An https URL that receives the finished batch; required by the API when speech recognition may run (modes auto and speech_to_text_only)"
    })
  ),
  asr_options: Schema.optional(AsrOptionsInput),
  idempotency_key: Schema.optional(IdempotencyKeyInput)
})

const BatchSummaryOutput = Schema.Struct(Api.BatchSummary.fields)

const RunBatchAcceptedOutput = Schema.Struct({
  status: Schema.Literal("processing"),
  batch_id: Ids.BatchId,
  summary: BatchSummaryOutput,
  credits_used: Credits.Credits,
  created_at: Schema.DateTimeUtc,
  next_step: Schema.String
}).annotations({ description: "The batch was accepted and runs in the background; poll get_batch" })

const RunBatchConfirmationOutput = Schema.Struct({
  status: Schema.Literal("requires_asr_confirmation"),
  video_count: Count,
  mode: Schema.NullOr(Mode.Mode),
  credits_used: Credits.Credits,
  asr_credits_per_hour: Credits.Credits.annotations({
    description: "Speech recognition's base price per hour of audio, before options"
  }),
  question: Schema.String.annotations({ description: "Ask the user this before confirming" }),
  confirm_arguments: Api.FreeFormObject.annotations({
    description: "The arguments to call run_batch with once the user agreed (confirm_asr: true)"
  })
}).annotations({
  description: "Speech recognition could start: nothing was started or charged; ask the user"
})

const RunBatchOutput = Schema.Union(RunBatchAcceptedOutput, RunBatchConfirmationOutput)
type RunBatchOutput = typeof RunBatchOutput.Type

const batchQuestion = (count: number, mode: Mode.Mode | undefined) =>
  `${mode === undefined ? "With a webhook_url, the account's default mode applies, which may send" : `Mode ${mode} sends`} the videos without usable captions (of these ${count}) to speech recognition, which costs about ${asrCreditsPerHour} credits per hour of audio each (more with asr_options); estimate_cost prices one video. Ask the user whether to go ahead; if they agree, call run_batch again with confirm_asr: true. Nothing has been started or charged.`

const runBatch = defineTool({
  name: "run_batch",
  title: "Transcribe many videos",
  description: [
    `Transcribe up to ${Plan.maxBatchSize} YouTube videos in one batch (the plan may allow fewer), stored in the user's library.`,
    "It answers at once with a batch_id while the videos run in the background: poll get_batch with it (every little while) until status is completed, partial or failed.",
    "Captions cost 1 credit per video not owned yet; the credits for them must be there when the batch starts.",
    "Speech recognition of videos without captions costs much more and needs a webhook_url: without confirm_asr: true, a batch that could start it answers requires_asr_confirmation with a question for the user, and nothing starts."
  ].join(" "),
  input: RunBatchInput,
  output: RunBatchOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const mayStartAsr =
        input.mode === undefined ? input.webhook_url !== undefined : asrModes.includes(input.mode)
      if (!input.confirm_asr && mayStartAsr) {
        const confirm_arguments = yield* asJson(RunBatchInput, { ...input, confirm_asr: true })
        return {
          status: "requires_asr_confirmation" as const,
          video_count: input.video_ids.length,
          mode: input.mode ?? null,
          credits_used: 0,
          asr_credits_per_hour: asrCreditsPerHour,
          question: batchQuestion(input.video_ids.length, input.mode),
          confirm_arguments
        }
      }
      const mode = input.mode ?? (input.confirm_asr ? "auto" : undefined)
      const accepted = yield* operations.createBatch(
        new Api.BatchRequest({
          video_ids: input.video_ids,
          ...(input.language === undefined ? {} : { language: input.language }),
          ...(mode === undefined ? {} : { mode }),
          ...(input.webhook_url === undefined ? {} : { webhook_url: input.webhook_url }),
          ...(input.asr_options === undefined ? {} : { asr_options: input.asr_options })
        }),
        input.idempotency_key
      )
      return {
        status: "processing" as const,
        batch_id: accepted.batch_id,
        summary: accepted.summary,
        credits_used: accepted.credits_used,
        created_at: accepted.created_at,
        next_step: `The batch runs in the background. Call get_batch with batch_id ${accepted.batch_id} every little while until its status is completed, partial or failed; it lists the items a page at a time.`
      } satisfies RunBatchOutput
    })
})

/** Items of a batch shown per page of get_batch. */
export const batchPage = { default: 50, max: 200 } as const

const ItemStatusInput = Status.JobStatus.annotations({
  description: "Only the items in this status (e.g. failed, to see what went wrong)"
})

const GetBatchInput = Schema.Struct({
  batch_id: Ids.BatchId.annotations({ description: "The batch_id that run_batch returned" }),
  status: Schema.optional(ItemStatusInput),
  offset: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(0, Plan.maxBatchSize)).annotations({
      description: "Items to skip (next_offset of the previous page); leave out for the first page",
      default: 0
    }),
    { default: () => 0 }
  ),
  limit: bounded(1, batchPage.max, batchPage.default, "Items per page")
})

const BatchItemOutput = Schema.Struct({
  index: Count.annotations({ description: "Position of the video in the batch, from 0" }),
  video_id: Schema.String,
  status: Status.JobStatus,
  job_id: Schema.NullOr(Ids.JobId),
  error: Schema.NullOr(Schema.String),
  credits_used: Credits.Credits,
  video_title: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  language: Schema.optionalWith(Language.LanguageCode, { exact: true }),
  source: Schema.optionalWith(Transcript.SourceKind, { exact: true }),
  character_count: Schema.optionalWith(Count, { exact: true })
}).annotations({
  description: "One video of the batch; a completed one names its transcript (read it with get_transcript)"
})
type BatchItemOutput = typeof BatchItemOutput.Type

const GetBatchOutput = Schema.Struct({
  batch_id: Ids.BatchId,
  status: Schema.Literal("processing", "completed", "partial", "failed"),
  summary: BatchSummaryOutput,
  credits_used: Credits.Credits,
  created_at: Schema.DateTimeUtc,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  completed_at: Schema.NullOr(Schema.DateTimeUtc),
  webhook_delivered: Schema.Boolean,
  matching_items: Count.annotations({
    description: "Items of the batch in the status asked for (all without status)"
  }),
  items: Schema.Array(BatchItemOutput),
  has_more: Schema.Boolean,
  next_offset: Schema.NullOr(Count).annotations({
    description: "Pass as offset to see the next page of items; null after the last one"
  }),
  next_step: Schema.String
})
type GetBatchOutput = typeof GetBatchOutput.Type

const batchItemOutput = (result: Api.BatchResult, index: number): BatchItemOutput => {
  const base = {
    index,
    video_id: result.video_id,
    status: result.status,
    job_id: result.job_id,
    error: result.error,
    credits_used: result.credits_used
  }
  if (result.data === undefined) return base
  return {
    ...base,
    video_title: result.data.video_title,
    language: result.data.transcript.language,
    source: result.data.transcript.source,
    character_count: result.data.transcript.text.length
  }
}

const batchNextStep = (status: GetBatchOutput["status"], nextOffset: number | null): string => {
  const more = nextOffset === null ? "" : ` More items: call get_batch again with offset ${nextOffset}.`
  return status === "processing"
    ? `Still running: call get_batch again in a little while.${more}`
    : `The batch is finished and will not change; read a completed video's transcript with get_transcript. A finished batch can be fetched 60 times in 24 hours.${more}`
}

const batchText = (output: GetBatchOutput): string => {
  const { summary } = output
  const header = `Batch ${output.batch_id}: ${output.status}; ${summary.total} videos (${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.processing} processing), ${output.credits_used} credits used.`
  const last = output.items[output.items.length - 1]
  const range =
    output.items.length === 0 || last === undefined
      ? `No items on this page (${output.matching_items} matching).`
      : `Items ${output.items[0]?.index}–${last.index} (${output.items.length} of ${output.matching_items} matching):`
  const lines = output.items.map(
    (item) =>
      `#${item.index} ${item.video_id} ${item.status}${item.language === undefined ? "" : ` ${item.language}/${item.source}`}${item.video_title ? ` "${item.video_title}"` : ""}${item.error === null ? "" : `: ${item.error}`}`
  )
  return [header, range, ...lines, output.next_step].join("\n")
}

const getBatch = defineTool({
  name: "get_batch",
  title: "Check a batch",
  description: `The state of a batch from run_batch: processing until every video is done, then completed, partial or failed (final). Gives the summary and one page of its videos (${batchPage.default} by default, at most ${batchPage.max}; next_offset reads on; status filters, e.g. failed), each with its status, error or transcript language; read a transcript with get_transcript. Free.`,
  input: GetBatchInput,
  output: GetBatchOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  text: (output) => batchText(output),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const batch = yield* operations.batch(input.batch_id)
      const matching = batch.results
        .map((result, index) => ({ result, index }))
        .filter(({ result }) => input.status === undefined || result.status === input.status)
      const page = matching.slice(input.offset, input.offset + input.limit)
      const end = input.offset + page.length
      const nextOffset = end < matching.length ? end : null
      return {
        batch_id: batch.batch_id,
        status: batch.status,
        summary: batch.summary,
        credits_used: batch.credits_used,
        created_at: batch.created_at,
        started_at: batch.started_at,
        completed_at: batch.completed_at,
        webhook_delivered: batch.webhook_delivered,
        matching_items: matching.length,
        items: page.map(({ result, index }) => batchItemOutput(result, index)),
        has_more: nextOffset !== null,
        next_offset: nextOffset,
        next_step: batchNextStep(batch.status, nextOffset)
      }
    })
})

// ---------------------------------------------------------------------------------------------
// resolve_playlist and resolve_channel
// ---------------------------------------------------------------------------------------------

const ListedVideoOutput = Schema.Struct({
  video_id: Ids.VideoId,
  title: Schema.NullOr(Schema.String),
  published_at: Schema.NullOr(Schema.DateTimeUtc),
  duration_seconds: Schema.optionalWith(Count, { exact: true })
}).annotations({ description: "A video of the playlist or channel (metadata only)" })
type ListedVideoOutput = typeof ListedVideoOutput.Type

const listedVideo = (item: Api.VideoReference): ListedVideoOutput => ({
  video_id: item.video_id,
  title: item.title,
  published_at: item.published_at,
  ...(item.duration_seconds === undefined ? {} : { duration_seconds: item.duration_seconds })
})

const collectionNextStep = (total: number) =>
  total === 0
    ? "Nothing to transcribe."
    : `Listing costs nothing. To transcribe these ${total} videos, call run_batch with their video_id values (captions cost 1 credit per video not owned yet); the collection then reports each video's status.`

const listedText = (heading: string, videos: ReadonlyArray<ListedVideoOutput>, nextStep: string) =>
  [heading, ...videos.map((video) => `${video.video_id} ${video.title ?? "(untitled)"}`), nextStep].join("\n")

const ResolvePlaylistInput = Schema.Struct({
  playlist: Api.ReferenceInput.annotations({
    description:
      "The playlist: a YouTube playlist URL (or any URL with list=) or the playlist id (the list= value)"
  }),
  limit: bounded(
    Plan.playlistResolveLimit.min,
    Plan.playlistResolveLimit.max,
    Plan.playlistResolveLimit.default,
    "How many of its videos to list, in playlist order"
  ),
  idempotency_key: Schema.optional(IdempotencyKeyInput)
})

const ResolvePlaylistOutput = Schema.Struct({
  collection_id: Ids.CollectionId,
  playlist_id: Ids.PlaylistId,
  title: Schema.NullOr(Schema.String),
  total: Count,
  truncated: Schema.Boolean.annotations({
    description: "true when the playlist holds more videos than listed"
  }),
  videos: Schema.Array(ListedVideoOutput),
  next_step: Schema.String
})

const resolvePlaylist = defineTool({
  name: "resolve_playlist",
  title: "List a playlist's videos",
  description:
    "Lists the videos of a YouTube playlist (up to 100, in playlist order), metadata only: nothing is transcribed or charged. Paid plans only (plan_required otherwise). Then run_batch with the video ids transcribes them.",
  input: ResolvePlaylistInput,
  output: ResolvePlaylistOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  text: (output) =>
    listedText(
      `Playlist ${output.playlist_id}${output.title === null ? "" : ` "${output.title}"`}: ${output.total} videos${output.truncated ? " (more not listed)" : ""}.`,
      output.videos,
      output.next_step
    ),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const resolved = yield* operations
        .resolvePlaylist(
          new Api.PlaylistResolveRequest({ playlist_url: input.playlist, limit: input.limit }),
          input.idempotency_key
        )
        .pipe(Effect.mapError(renameFields({ playlist_url: "playlist" })))
      return {
        collection_id: resolved.id,
        playlist_id: resolved.playlist_id,
        title: resolved.title,
        total: resolved.total,
        truncated: resolved.truncated,
        videos: resolved.items.map(listedVideo),
        next_step: collectionNextStep(resolved.total)
      }
    })
})

const ResolveChannelInput = Schema.Struct({
  channel: Api.ReferenceInput.annotations({
    description: "The channel: a YouTube channel URL, its id (UC followed by 22 characters) or its @handle"
  }),
  limit: Schema.optional(
    Schema.Int.pipe(Schema.positive()).annotations({
      description:
        "How many of its newest videos to list; at most (and by default) the plan's cap: 500 basic, 1,500 pro, 3,000 business"
    })
  ),
  idempotency_key: Schema.optional(IdempotencyKeyInput)
})

const ResolveChannelOutput = Schema.Struct({
  collection_id: Ids.CollectionId,
  channel_id: Ids.ChannelId,
  channel_title: Schema.String,
  subscriber_count: Count,
  total: Count,
  truncated: Schema.Boolean.annotations({
    description: "true when the channel holds more videos than listed"
  }),
  videos: Schema.Array(ListedVideoOutput),
  next_step: Schema.String
})

const resolveChannel = defineTool({
  name: "resolve_channel",
  title: "List a channel's newest videos",
  description:
    "Lists the newest videos of a YouTube channel, metadata only: nothing is transcribed or charged. Paid plans only (plan_required otherwise), and each call uses one of the plan's channel jobs of the month (3 basic, 8 pro; rate_limit_exceeded once used). Then run_batch with the video ids transcribes them.",
  input: ResolveChannelInput,
  output: ResolveChannelOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  text: (output) =>
    listedText(
      `Channel ${output.channel_title} (${output.channel_id}): ${output.total} videos, newest first${output.truncated ? " (more not listed)" : ""}.`,
      output.videos,
      output.next_step
    ),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const resolved = yield* operations
        .resolveChannel(
          new Api.ChannelResolveRequest({
            channel_url: input.channel,
            ...(input.limit === undefined ? {} : { limit: input.limit })
          }),
          input.idempotency_key
        )
        .pipe(Effect.mapError(renameFields({ channel_url: "channel" })))
      return {
        collection_id: resolved.id,
        channel_id: resolved.channel_id,
        channel_title: resolved.channel_title,
        subscriber_count: resolved.subscriber_count,
        total: resolved.total,
        truncated: resolved.truncated,
        videos: resolved.items.map(listedVideo),
        next_step: collectionNextStep(resolved.total)
      }
    })
})

// ---------------------------------------------------------------------------------------------
// get_themes
// ---------------------------------------------------------------------------------------------

const ThemesKeywordOutput = Schema.Struct({
  term: Schema.String,
  aliases: Schema.Array(Schema.String),
  mention_count: Count,
  mentions: Schema.Array(
    Schema.Struct({ segment_index: Count, start: Count.annotations({ description: "milliseconds" }) })
  )
})

const ThemesOutput = Schema.Struct({
  status: Schema.Literal("locked", "processing", "completed"),
  video_id: Schema.String,
  language: Language.LanguageCode,
  credits_used: Credits.Credits,
  credits_required: Schema.optionalWith(Credits.Credits, { exact: true }).annotations({
    description: "What unlocking costs, while locked"
  }),
  tldr: Schema.optionalWith(Schema.String, { exact: true }),
  themes: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      name: Schema.String,
      summary: Schema.String,
      share: Schema.Number,
      mention_count: Count,
      keywords: Schema.Array(ThemesKeywordOutput)
    })
  ),
  moments: Schema.Array(
    Schema.Struct({
      theme_id: Schema.String,
      label: Schema.String,
      quote: Schema.String,
      start: Count.annotations({ description: "milliseconds" }),
      end: Count.annotations({ description: "milliseconds" }),
      segment_start: Count,
      segment_end: Count
    })
  ),
  next_step: Schema.String
})
type ThemesOutput = typeof ThemesOutput.Type

const themesOutput = (state: Api.ThemesState): ThemesOutput => {
  switch (state.status) {
    case "locked":
      return {
        status: "locked",
        video_id: state.video_id,
        language: state.language,
        credits_used: 0,
        credits_required: state.credits_required,
        themes: [],
        moments: [],
        next_step: `Locked. Unlocking costs ${state.credits_required} credit${state.credits_required === 1 ? "" : "s"} once (tell the user first): call get_themes again with unlock true.`
      }
    case "processing":
      return {
        status: "processing",
        video_id: state.video_id,
        language: state.language,
        credits_used: 0,
        themes: [],
        moments: [],
        next_step: "Paid and still being detected: call get_themes again (without unlock) in a little while."
      }
    case "completed":
      return {
        status: "completed",
        video_id: state.video_id,
        language: state.language,
        credits_used: state.credits_used,
        tldr: state.tldr,
        themes: state.themes.map((theme) => ({
          id: theme.id,
          name: theme.name,
          summary: theme.summary,
          share: theme.share,
          mention_count: theme.mention_count,
          keywords: theme.keywords.map((k) => ({
            term: k.term,
            aliases: k.aliases,
            mention_count: k.mention_count,
            mentions: k.mentions.map((m) => ({ segment_index: m.segment_index, start: m.start }))
          }))
        })),
        moments: state.moments.map((m) => ({
          theme_id: m.theme_id,
          label: m.label,
          quote: m.quote,
          start: m.start,
          end: m.end,
          segment_start: m.segment_start,
          segment_end: m.segment_end
        })),
        next_step:
          state.themes.length === 0
            ? "No themes: the transcript is too short to analyse."
            : "Unlocked for good: reading the themes again is free. get_transcript shows the segments the mentions point at."
      }
  }
}

const getThemes = defineTool({
  name: "get_themes",
  title: "Themes, keywords and moments of a transcript",
  description:
    "The themes, keywords (with the segments that mention them) and quoted moments of a transcript the user owns, with a short tldr. Without unlock it is free and never starts anything: a transcript not unlocked yet answers locked with credits_required. With unlock true it unlocks the themes for 1 credit, once (tell the user first; 0 for a transcript under 50 words, which gets no themes; free once unlocked) and waits up to about 25 seconds; processing means paid and still running.",
  input: Schema.Struct({
    video_id: VideoIdInput,
    language: Schema.optional(
      Language.LanguageCode.annotations({
        description: "Which owned transcript, by language; leave out for the best one"
      })
    ),
    source: Schema.optional(
      Transcript.SourceKind.annotations({
        description: "Which owned transcript, by source: manual, auto or asr"
      })
    ),
    unlock: Schema.optional(
      Schema.Boolean.annotations({ description: "true: unlock (1 credit, once); leave out to read for free" })
    )
  }),
  output: ThemesOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  text: (output) =>
    [
      `Themes of ${output.video_id} (${output.language}): ${output.status}.`,
      ...(output.tldr === undefined || output.tldr === "" ? [] : [`TL;DR: ${output.tldr}`]),
      ...output.themes.map(
        (theme) =>
          `- ${theme.name} (${Math.round(theme.share * 100)}%): ${theme.keywords.map((k) => k.term).join(", ")}`
      ),
      output.next_step
    ].join("\n"),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const query = {
        ...(input.language === undefined ? {} : { language: input.language }),
        ...(input.source === undefined ? {} : { source: input.source })
      }
      return themesOutput(yield* operations.themes(input.video_id, query, input.unlock === true))
    })
})

/** Every tool, in the order they are listed. */
export const tools: ReadonlyArray<McpTool> = [
  transcribeVideo,
  getJob,
  getTranscript,
  searchTranscripts,
  listTranscripts,
  transcriptLanguages,
  translateTranscript,
  estimateCost,
  getCredits,
  runBatch,
  getBatch,
  resolvePlaylist,
  resolveChannel,
  getThemes
]
