/**
 * `transcripts` rows and the values they map to, in one place: the columns each read selects, and
 * the schemas and functions that make a row a `TranscriptSummary`, a `TranscriptRecord` or a
 * `ServedTranscript` (and a record a row to insert). Every repository that reads transcripts (the
 * transcripts, the jobs that serve them, the batches' results) maps them here, so a column added
 * or renamed is mapped once. The hand-written decoders (`storedSummary`, `StoredSegments`) are
 * pinned to the schemas' own decoding by this module's test.
 */
import { ServedTranscript, TranscriptRecord, TranscriptSummary } from "@verbatim/core"
import { Api, type Ids, type Language, Transcript } from "@verbatim/domain"
import { DateTime, ParseResult, Schema } from "effect"
import { asFields, parseStoredSegments, StoredSegments, Timestamp } from "./columns.js"

/** Columns of a list item: the core's `TranscriptSummary`, its date as the driver gives it. */
const SummaryFields = { ...TranscriptSummary.fields, createdAt: Timestamp }

const Segments = TranscriptRecord.fields.segments

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0
const sourceKinds: ReadonlySet<unknown> = new Set(TranscriptSummary.fields.sourceKind.literals)
const statuses: ReadonlySet<unknown> = new Set(TranscriptSummary.fields.status.literals)

/**
 * A summary row as the drivers return it, its fields checked by type (ids, language and title as
 * text, counts as non-negative integers, kind and status among their values, the date a valid
 * `Date`), built in `TranscriptSummary`'s field order; undefined when a field is not what it should be.
 */
export const storedSummary = (value: unknown): TranscriptSummary | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const row = value as Record<string, unknown>
  const { id, accountId, videoId, videoTitle, language, createdAt, translatedFrom } = row
  return typeof id === "string" &&
    typeof accountId === "string" &&
    typeof videoId === "string" &&
    (videoTitle === null || typeof videoTitle === "string") &&
    typeof language === "string" &&
    (translatedFrom === null || translatedFrom === undefined || typeof translatedFrom === "string") &&
    sourceKinds.has(row.sourceKind) &&
    statuses.has(row.status) &&
    isCount(row.wordCount) &&
    isCount(row.segmentCount) &&
    isCount(row.durationSeconds) &&
    isCount(row.creditsUsed) &&
    createdAt instanceof Date &&
    !Number.isNaN(createdAt.getTime())
    ? {
        id: id as Ids.TranscriptId,
        accountId: accountId as Ids.AccountId,
        videoId,
        videoTitle,
        language: language as Language.LanguageCode,
        sourceKind: row.sourceKind as TranscriptSummary["sourceKind"],
        status: row.status as TranscriptSummary["status"],
        wordCount: row.wordCount,
        segmentCount: row.segmentCount,
        durationSeconds: row.durationSeconds,
        creditsUsed: row.creditsUsed as TranscriptSummary["creditsUsed"],
        createdAt: DateTime.unsafeFromDate(createdAt),
        ...(typeof translatedFrom === "string"
          ? { translatedFrom: translatedFrom as Language.LanguageCode }
          : {})
      }
    : undefined
}

/**
 * The rows of a list page (GET /transcripts, the hot path of a search), decoded by `storedSummary`
 * into the summaries the use case turns into list items: the columns' types and constraints already
 * hold what the field schemas would check again (uuid ids, non-negative counts, the kinds and
 * statuses), and going through the `TranscriptSummary` struct cost about 10 µs a row.
 */
export const SummaryRow: Schema.Schema<TranscriptSummary, unknown> = Schema.transformOrFail(
  Schema.Unknown,
  Schema.declare((value): value is TranscriptSummary => typeof value === "object" && value !== null, {
    identifier: "TranscriptSummary"
  }),
  {
    strict: true,
    decode: (value, _, ast) => {
      const summary = storedSummary(value)
      return summary === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, value, "expected a row of transcript metadata"))
        : ParseResult.succeed(summary)
    },
    encode: (summary) => ParseResult.succeed(summary)
  }
)
export const SummaryWithSegmentsRow = Schema.Struct({ ...SummaryFields, segments: Segments })

/**
 * A `transcripts` row: the core's `TranscriptRecord`, its date as the driver gives it, its segments
 * as this service stored them.
 */
export const RecordRow = Schema.Struct({
  ...TranscriptRecord.fields,
  segments: StoredSegments,
  createdAt: Timestamp
})

/**
 * A record as `INSERT` writes it: its JSON columns as JSON text (node-postgres would send a
 * JavaScript array as a PostgreSQL array) and its date as a `timestamptz` parameter.
 */
export const InsertRow = Schema.Struct({
  ...TranscriptRecord.fields,
  segments: Schema.parseJson(TranscriptRecord.fields.segments),
  summary: Schema.NullOr(Schema.parseJson(Api.FreeFormObject)),
  mindMap: Schema.NullOr(Schema.parseJson(Api.FreeFormObject)),
  asrIntelligence: Schema.NullOr(Schema.parseJson(Api.AsrIntelligence)),
  createdAt: Timestamp
})

export const summaryColumnList = `id, account_id, video_id, video_title, language, source_kind, status,
    word_count, segment_count, duration_seconds, credits_used, created_at, translated_from`

/** The columns of a `RecordRow`. */
export const recordColumnList = `${summaryColumnList}, channel_id, text, segments, has_timestamps,
    summary, mind_map, asr_intelligence`

/**
 * What serving reads of a transcript (`insertServing`): the columns an answer carries, no more. The
 * segments come as the JSON text they were written as (`segments_json`), or from the `jsonb` column
 * for a row written before that column.
 */
export const ServedRow = Schema.Struct({
  ...ServedTranscript.fields,
  segments: Schema.NullOr(StoredSegments),
  segmentsJson: Schema.NullOr(Schema.String)
})
export const servedColumnList = `id, video_id, video_title, language, source_kind, text, asr_intelligence, segments_json,
  CASE WHEN segments_json IS NULL THEN segments END AS segments`

/** The columns of the `served` CTE as the row's fields (`ServedRow`), read on the direct lane. */
export const servedFieldList = asFields(
  "served",
  "id, video_id, video_title, language, source_kind, text, asr_intelligence, segments_json, segments"
)

/** A served transcript from its row: segments from their JSON text only when they are asked for. */
export const servedOf = ({ segments, segmentsJson, ...fields }: typeof ServedRow.Type): ServedTranscript => {
  if (segmentsJson === null) return { ...fields, segments: segments ?? [] }
  // Written only as `Transcript.encodeSegmentsJson` writes it (`Transcripts.store`).
  const json = Transcript.trustedSegmentsJson(segmentsJson)
  let parsed: ReadonlyArray<Transcript.Segment> | undefined
  return {
    ...fields,
    segmentsJson: json,
    get segments() {
      parsed ??= parseStoredSegments(json)
      return parsed
    }
  }
}
