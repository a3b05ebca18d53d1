/**
 * GET /transcripts/{video_id}/pages (our addition, for GPT Actions, whose answers are limited to
 * about 100,000 characters): a stored transcript read a page at a time. A page is a run of the
 * transcript's segments within `max_chars` of JSON, a long segment cut between pages; `next_cursor`
 * reads on, and is the same kind of cursor as the MCP tool get_transcript's (core's
 * `TranscriptChunks`). Free; one request of the account's rate limit per page.
 */
import { Schema } from "effect"
import { TranscriptId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { Millis, SourceKind } from "../transcript/segment.js"
import { allErrors, Count, intFromString, optionalQuery } from "./fields.js"
import { transcriptSelectorFields } from "./stored-transcript.js"

/** The budget of a page in characters of JSON: bounds and default. */
export const transcriptPageBudget = { min: 1_000, max: 80_000, default: 50_000 } as const

const budgetJsonSchema = {
  type: "integer",
  minimum: transcriptPageBudget.min,
  maximum: transcriptPageBudget.max,
  default: transcriptPageBudget.default,
  description: `Size of a page in characters of JSON (${transcriptPageBudget.min} to ${transcriptPageBudget.max}); every answer stays under 90,000`
}

/** text: the page's segments as plain text, one a line; timed: each with its start and end (ms). */
export const TranscriptPageFormat = Schema.Literal("text", "timed").annotations({
  identifier: "TranscriptPageFormat",
  description: "text: plain text, one segment a line, no times; timed: segments with start and end in ms"
})
export type TranscriptPageFormat = typeof TranscriptPageFormat.Type

export const TranscriptPageQuery = Schema.Struct({
  ...transcriptSelectorFields,
  cursor: optionalQuery(
    Schema.String.pipe(Schema.maxLength(512)).annotations({
      description: "next_cursor of the previous page; leave out for the first page"
    })
  ),
  format: Schema.optionalWith(TranscriptPageFormat, { default: () => "text" as const }),
  max_chars: Schema.optionalWith(
    intFromString(
      Schema.Int.pipe(Schema.between(transcriptPageBudget.min, transcriptPageBudget.max))
    ).annotations({ jsonSchema: budgetJsonSchema }),
    { default: () => transcriptPageBudget.default }
  )
}).annotations({
  identifier: "TranscriptPageQuery",
  description: "id, language, source, cursor, format (default text), max_chars (default 50000)",
  ...allErrors
})
export type TranscriptPageQuery = typeof TranscriptPageQuery.Type

/** A segment, or the piece of one cut between pages (same index and times). */
export const TranscriptPagePiece = Schema.Struct({
  segment: Count.annotations({ description: "Index of the segment in the transcript" }),
  start: Millis,
  end: Millis,
  text: Schema.String
}).annotations({ identifier: "TranscriptPagePiece" })

export class TranscriptPage extends Schema.Class<TranscriptPage>("TranscriptPage")(
  {
    id: TranscriptId,
    video_id: Schema.String,
    video_title: Schema.NullOr(Schema.String),
    language: LanguageCode,
    source_kind: SourceKind,
    format: TranscriptPageFormat,
    segment_count: Count.annotations({ description: "Segments in the whole transcript" }),
    character_count: Count.annotations({ description: "Characters in the whole transcript's text" }),
    first_segment: Count.annotations({ description: "Index of the page's first segment" }),
    continues_segment: Schema.Boolean.annotations({
      description: "true when the page starts inside a segment that the previous page began"
    }),
    text: Schema.optionalWith(Schema.String, { exact: true }).annotations({
      description: "format text: the page's segments, one a line"
    }),
    segments: Schema.optionalWith(Schema.Array(TranscriptPagePiece), { exact: true }).annotations({
      description: "format timed: the page's segments with their times"
    }),
    has_more: Schema.Boolean,
    next_cursor: Schema.NullOr(Schema.String).annotations({
      description: "Pass as cursor to read the next page; null after the last one"
    })
  },
  { description: "A page of a stored transcript; follow next_cursor until it is null" }
) {}
