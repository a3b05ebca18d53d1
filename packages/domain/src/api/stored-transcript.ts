/**
 * Stored transcripts: GET /transcripts (the list and its query) and GET /transcripts/{video_id}
 * (one transcript and its query). `format` of the single fetch is our addition: json (the stored
 * transcript object, the default), srt, vtt or txt.
 */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { TranscriptId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { StoredTranscriptStatus } from "../status/stored-transcript.js"
import { Segment, SourceKind } from "../transcript/segment.js"
import { AsrIntelligence } from "./asr-intelligence.js"
import {
  absentUnless,
  allErrors,
  booleanQuery,
  Count,
  DateTimeInput,
  FreeFormObject,
  optionalQuery
} from "./fields.js"
import { Pagination, paginationQueryFields } from "./pagination.js"

export const maxSearchLength = 200

export class StoredTranscript extends Schema.Class<StoredTranscript>("StoredTranscript")(
  {
    id: TranscriptId,
    /** The video id; for uploads, the upload id. */
    video_id: Schema.String,
    language: LanguageCode,
    text: Schema.String,
    segments: Schema.Array(Segment),
    has_timestamps: Schema.Boolean,
    source_kind: SourceKind,
    /** The language this machine translation was made from; null for an original (captions or ASR). */
    translated_from: Schema.NullOr(LanguageCode),
    video_title: Schema.NullOr(Schema.String),
    summary: Schema.NullOr(FreeFormObject),
    mind_map: Schema.NullOr(FreeFormObject),
    /** Absent unless an ASR intelligence option was enabled. */
    asr_intelligence: absentUnless(AsrIntelligence)
  },
  { description: "A transcript the account owns" }
) {}

/** One row of GET /transcripts. `segments` only when include_segments=true. */
export class TranscriptListItem extends Schema.Class<TranscriptListItem>("TranscriptListItem")(
  {
    id: TranscriptId,
    video_id: Schema.String,
    /** Null when the title is unknown, as in the stored transcript. */
    video_title: Schema.NullOr(Schema.String),
    language: LanguageCode,
    source_kind: SourceKind,
    /** The language this machine translation was made from; null for an original (captions or ASR). */
    translated_from: Schema.NullOr(LanguageCode),
    status: StoredTranscriptStatus,
    created_at: Schema.DateTimeUtc,
    word_count: Count,
    segment_count: Count,
    duration_seconds: Count,
    credits_used: Credits,
    segments: absentUnless(Schema.Array(Segment))
  },
  { description: "A stored transcript's metadata, with its segments only when include_segments=true" }
) {}

export class TranscriptList extends Schema.Class<TranscriptList>("TranscriptList")(
  {
    history: Schema.Array(TranscriptListItem),
    count: Count,
    pagination: Pagination
  },
  { description: "A page of the account's transcripts, newest first" }
) {}

export const TranscriptSearch = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(maxSearchLength)
).annotations({
  identifier: "TranscriptSearch",
  description: "Words matched against the video id, the title and the transcript text"
})

/** GET /transcripts query. */
export const TranscriptListQuery = Schema.Struct({
  ...paginationQueryFields,
  search: optionalQuery(TranscriptSearch),
  status: Schema.optionalWith(StoredTranscriptStatus, { default: () => "succeeded" as const }),
  language: optionalQuery(LanguageCode),
  /** Only transcripts of this source (our addition: manual, auto or asr). */
  source: optionalQuery(SourceKind),
  date_from: optionalQuery(DateTimeInput),
  date_to: optionalQuery(DateTimeInput),
  include_segments: booleanQuery(false)
}).annotations({
  identifier: "TranscriptListQuery",
  description:
    "page, limit, search, status (default succeeded), language, source (manual, auto, asr), date_from, date_to, include_segments (default false)",
  ...allErrors
})
export type TranscriptListQuery = typeof TranscriptListQuery.Type

/** How GET /transcripts/{video_id} renders the transcript (our addition). */
export const TranscriptFormat = Schema.Literal("json", "srt", "vtt", "txt").annotations({
  identifier: "TranscriptFormat",
  description: "json: the stored transcript object; srt, vtt: subtitles; txt: plain text"
})
export type TranscriptFormat = typeof TranscriptFormat.Type

/** `id`, `language` and `source`: which owned transcript of a video a request means. */
export const transcriptSelectorFields = {
  /** The uuid of a specific transcript or job. */
  id: optionalQuery(Schema.UUID),
  language: optionalQuery(LanguageCode),
  source: optionalQuery(SourceKind)
}

/** GET /transcripts/{video_id} query. */
export const TranscriptQuery = Schema.Struct({
  ...transcriptSelectorFields,
  include_timestamps: booleanQuery(true),
  format: Schema.optionalWith(TranscriptFormat, { default: () => "json" as const })
}).annotations({
  identifier: "TranscriptQuery",
  description: "id, language, source, include_timestamps (default true), format (default json)",
  ...allErrors
})
export type TranscriptQuery = typeof TranscriptQuery.Type
