/**
 * get_transcript (in chunks), search_transcripts, list_transcripts and transcript_languages:
 * reading what the user owns, free.
 */

import { TranscriptChunks } from "@verbatim/core"
import { Api, Ids, Language, Transcript } from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"
import { AccountOperations } from "../operations.js"
import { provenance } from "../provenance.js"
import { openingSnippet, type Snippet, searchSnippets } from "../snippets.js"
import { defineTool } from "../tool.js"
import {
  bounded,
  Count,
  FilterLanguageInput,
  OwnedLanguageInput,
  PageInput,
  SnippetOutput,
  SourceInput,
  snippetOutput,
  transcribeFirst,
  VideoIdInput,
  withNextStep
} from "./shared.js"

// ---------------------------------------------------------------------------------------------
// get_transcript
// ---------------------------------------------------------------------------------------------

const GetTranscriptInput = Schema.Struct({
  video_id: VideoIdInput,
  language: Schema.optional(OwnedLanguageInput),
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
    TranscriptChunks.chunkBudget.min,
    TranscriptChunks.chunkBudget.max,
    TranscriptChunks.chunkBudget.default,
    "Size of a chunk in characters (a segment counts its text as JSON plus 70)"
  ),
  format: Schema.optionalWith(
    Schema.Literal("timed", "text").annotations({
      description: "timed: segments with start and end (ms); text: plain text, one segment a line, no times",
      default: "timed"
    }),
    { default: () => "timed" as const }
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
  translated_from: Schema.NullOr(Language.LanguageCode).annotations({
    description:
      "The language this machine translation was made from; null for an original (captions or speech recognition)"
  }),
  has_timestamps: Schema.Boolean,
  segment_count: Count.annotations({ description: "Segments in the whole transcript" }),
  character_count: Count.annotations({ description: "Characters in the whole transcript's text" }),
  format: Schema.Literal("timed", "text"),
  segments: Schema.optionalWith(Schema.Array(PieceOutput), { exact: true }).annotations({
    description: "format timed: the chunk's segments"
  }),
  text: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "format text: the chunk's segments, one a line"
  }),
  first_segment: Count.annotations({ description: "Index of the chunk's first segment" }),
  continues_segment: Schema.Boolean.annotations({
    description: "true when the chunk starts inside a segment the previous chunk began"
  }),
  has_more: Schema.Boolean,
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor to read the next chunk; null after the last one"
  })
})
type GetTranscriptOutput = typeof GetTranscriptOutput.Type

const transcriptText = (output: GetTranscriptOutput): string => {
  const pieces = output.segments ?? []
  const first = pieces[0]
  const last = pieces[pieces.length - 1]
  const range =
    output.text !== undefined
      ? `from segment ${output.first_segment + 1} of ${output.segment_count}`
      : first === undefined || last === undefined
        ? "no segments"
        : `segments ${first.segment + 1}–${last.segment + 1} of ${output.segment_count}`
  const header = `${output.video_title ?? output.video_id} (video ${output.video_id}, ${provenance(output)}): ${range}`
  const lines =
    output.text !== undefined
      ? [output.text]
      : pieces.map((piece) => `[${Transcript.clockTimecode(piece.start)}] ${piece.text}`)
  const footer =
    output.next_cursor === null
      ? "End of transcript."
      : `More follows: call get_transcript again with cursor "${output.next_cursor}".`
  return [header, ...lines, footer].join("\n")
}

/**
 * The next step when a read finds nothing owned: a language not owned is translated or
 * transcribed; a video not owned is transcribed first.
 */
const readingSteps = (videoId: string, language: string | undefined) =>
  withNextStep({
    forbidden: () =>
      `To get it in ${language ?? "that language"}: call translate_transcript with video_id "${videoId}" and target_language "${language ?? "…"}", or transcribe_video with video "${videoId}" and language "${language ?? "…"}"`,
    not_found: () => transcribeFirst(videoId)
  })

export const getTranscript = defineTool({
  name: "get_transcript",
  title: "Read a stored transcript",
  description:
    "Read a transcript the user owns (from transcribe_video), in chunks that fit your context: each chunk lists segments with start and end times in milliseconds, or with format text plain text without times. When has_more is true, call again with cursor set to next_cursor to read on. Chooses the best original transcript of the video (human captions, then auto captions, then speech recognition; a machine translation only when asked for by language) unless language, source or id says which. Free.",
  input: GetTranscriptInput,
  output: GetTranscriptOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  text: (output) => transcriptText(output),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const cursor = yield* TranscriptChunks.requestedCursor(input.cursor)
      const id = Option.match(cursor, { onNone: () => input.id, onSome: (value) => value.transcript })
      const transcript = yield* operations
        .transcript(input.video_id, {
          include_timestamps: true,
          format: "json",
          ...(id === undefined ? {} : { id }),
          ...(input.language === undefined ? {} : { language: input.language }),
          ...(input.source === undefined ? {} : { source: input.source })
        })
        .pipe(Effect.mapError(readingSteps(input.video_id, input.language)))
      const from = Option.match(cursor, {
        onNone: () => TranscriptChunks.start,
        onSome: (value) => value.position
      })
      if (Option.isSome(cursor) && !TranscriptChunks.within(transcript.segments, from)) {
        return yield* TranscriptChunks.cursorError("points past the end of the transcript")
      }
      // Counted as JSON (escapes and the piece's fields), so the answer's size follows the budget.
      const chunk: TranscriptChunks.Chunk = TranscriptChunks.chunkAt(
        transcript.segments,
        from,
        input.max_chars,
        TranscriptChunks.jsonRule
      )
      return {
        id: transcript.id,
        video_id: transcript.video_id,
        video_title: transcript.video_title,
        language: transcript.language,
        source_kind: transcript.source_kind,
        translated_from: transcript.translated_from,
        has_timestamps: transcript.has_timestamps,
        segment_count: transcript.segments.length,
        character_count: transcript.text.length,
        format: input.format,
        ...(input.format === "text"
          ? { text: chunk.pieces.map((piece) => piece.text).join("\n") }
          : { segments: chunk.pieces }),
        first_segment: from.segment,
        continues_segment: from.offset > 0,
        has_more: Option.isSome(chunk.next),
        next_cursor: Option.match(chunk.next, {
          onNone: () => null,
          onSome: (position) => TranscriptChunks.encodeCursor({ transcript: transcript.id, position })
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
  translated_from: Schema.NullOr(Language.LanguageCode),
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
  translated_from: item.translated_from,
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
  language: Schema.optional(FilterLanguageInput),
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

export const searchTranscripts = defineTool({
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
  language: Schema.optional(FilterLanguageInput),
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

export const listTranscripts = defineTool({
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

export const transcriptLanguages = defineTool({
  name: "transcript_languages",
  title: "Languages of a stored transcript",
  description:
    "The languages the user owns a transcript of for a video, and the languages the video platform can translate its captions into. Free.",
  input: Schema.Struct({ video_id: VideoIdInput }),
  output: Schema.Struct(Api.LanguagesResponse.fields),
  annotations: { readOnlyHint: true, openWorldHint: true },
  run: (input) =>
    Effect.flatMap(AccountOperations, (operations) =>
      operations
        .languages(input.video_id, { include_youtube_default: true })
        .pipe(Effect.mapError(withNextStep({ not_found: () => transcribeFirst(input.video_id) })))
    )
})
