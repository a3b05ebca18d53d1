/**
 * Stored transcripts, owned per account, per video, language and source kind, and searchable
 * over video id, title and text.
 */
import { Api, Credits, Ids, Language, Status, Transcript } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

/** What a list query returns for each transcript: metadata, and segments only when asked. */
export const TranscriptSummary = Schema.Struct({
  id: Ids.TranscriptId,
  accountId: Ids.AccountId,
  videoId: Schema.String,
  videoTitle: Schema.NullOr(Schema.String),
  language: Language.LanguageCode,
  sourceKind: Transcript.SourceKind,
  status: Status.StoredTranscriptStatus,
  wordCount: Schema.NonNegativeInt,
  segmentCount: Schema.NonNegativeInt,
  durationSeconds: Schema.NonNegativeInt,
  creditsUsed: Credits.Credits,
  createdAt: Schema.DateTimeUtc,
  /**
   * The language a machine translation was made from; absent for an original: captions or ASR
   * (the column's NULL). "Best" is always an original (`byPreference`).
   */
  translatedFrom: Schema.optionalWith(Language.LanguageCode, { nullable: true })
})
export interface TranscriptSummary extends Schema.Schema.Type<typeof TranscriptSummary> {}

/** A stored transcript: the row, what tools show and what use cases read, in one schema (dates as ISO text). */
export const TranscriptRecord = Schema.Struct({
  ...TranscriptSummary.fields,
  channelId: Schema.NullOr(Schema.String),
  text: Schema.String,
  segments: Schema.Array(Transcript.Segment),
  hasTimestamps: Schema.Boolean,
  summary: Schema.NullOr(Api.FreeFormObject),
  mindMap: Schema.NullOr(Api.FreeFormObject),
  asrIntelligence: Schema.NullOr(Api.AsrIntelligence)
})
export interface TranscriptRecord extends Schema.Schema.Type<typeof TranscriptRecord> {}

/** What serving a stored transcript as an answer reads of it (`Jobs.insertServing`). */
export const ServedTranscript = TranscriptRecord.pick(
  "id",
  "videoId",
  "videoTitle",
  "language",
  "sourceKind",
  "text",
  "segments",
  "asrIntelligence"
)
export interface ServedTranscript extends Schema.Schema.Type<typeof ServedTranscript> {
  /**
   * The JSON text of `segments` as their schema encodes them, when the store kept it (`segments` is
   * then read from it, when first asked for): an answer carries this text as it is (`servedPayload`).
   */
  readonly segmentsJson?: Transcript.SegmentsJson | undefined
}

export interface OwnedFilter {
  readonly id?: Ids.TranscriptId | undefined
  readonly language?: Language.LanguageCode | undefined
  readonly sourceKinds?: ReadonlyArray<Transcript.SourceKind> | undefined
}

export interface TranscriptSearch {
  /** Words matched against video id, title and text. */
  readonly search?: string | undefined
  readonly status: Status.StoredTranscriptStatus
  readonly language?: Language.LanguageCode | undefined
  readonly sourceKind?: Transcript.SourceKind | undefined
  readonly createdFrom?: DateTime.Utc | undefined
  readonly createdTo?: DateTime.Utc | undefined
  readonly offset: number
  readonly limit: number
  readonly includeSegments: boolean
}

export interface TranscriptPage {
  readonly items: ReadonlyArray<TranscriptSummary & { readonly segments?: ReadonlyArray<Transcript.Segment> }>
  readonly total: number
}

/** The outcome of storing: the stored record, and whether this call created it. */
export interface Stored {
  readonly record: TranscriptRecord
  readonly created: boolean
}

export interface DeleteFilter {
  readonly language?: Language.LanguageCode | undefined
  readonly sourceKind?: Transcript.SourceKind | undefined
}

export class Transcripts extends Context.Tag("@verbatim/core/Transcripts")<
  Transcripts,
  {
    /**
     * Stores a transcript unless the account already owns one for the same video, language and
     * source kind; then the existing one is returned with `created: false`.
     */
    readonly store: (record: TranscriptRecord) => Effect.Effect<Stored, PersistenceError>
    /** The account's succeeded transcripts of a video matching the filter, newest first. */
    readonly owned: (
      accountId: Ids.AccountId,
      videoId: string,
      filter: OwnedFilter
    ) => Effect.Effect<ReadonlyArray<TranscriptRecord>, PersistenceError>
    readonly get: (
      accountId: Ids.AccountId,
      id: Ids.TranscriptId
    ) => Effect.Effect<Option.Option<TranscriptRecord>, PersistenceError>
    readonly search: (
      accountId: Ids.AccountId,
      query: TranscriptSearch
    ) => Effect.Effect<TranscriptPage, PersistenceError>
    /** Deletes the account's transcripts of a video matching the filter; the number deleted. */
    readonly remove: (
      accountId: Ids.AccountId,
      videoId: string,
      filter: DeleteFilter
    ) => Effect.Effect<number, PersistenceError>
    /** Deletes the account's transcripts with these ids; the number deleted. */
    readonly removeByIds: (
      accountId: Ids.AccountId,
      ids: ReadonlyArray<Ids.TranscriptId>
    ) => Effect.Effect<number, PersistenceError>
    /** The languages the account owns for a video. */
    readonly languages: (
      accountId: Ids.AccountId,
      videoId: string
    ) => Effect.Effect<ReadonlyArray<Language.LanguageCode>, PersistenceError>
  }
>() {}
