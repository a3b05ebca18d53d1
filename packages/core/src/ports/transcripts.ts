/**
 * Stored transcripts, owned per account, per video, language and source kind, and searchable
 * over video id, title and text.
 */
import type { Api, Credits, Ids, Language, Status, Transcript } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../errors.js"

/** What a list query returns for each transcript: metadata, and segments only when asked. */
export interface TranscriptSummary {
  readonly id: Ids.TranscriptId
  readonly accountId: Ids.AccountId
  readonly videoId: string
  readonly videoTitle: string | null
  readonly language: Language.LanguageCode
  readonly sourceKind: Transcript.SourceKind
  readonly status: Status.StoredTranscriptStatus
  readonly wordCount: number
  readonly segmentCount: number
  readonly durationSeconds: number
  readonly creditsUsed: Credits.Credits
  readonly createdAt: DateTime.Utc
}

export interface TranscriptRecord extends TranscriptSummary {
  readonly channelId: string | null
  readonly text: string
  readonly segments: ReadonlyArray<Transcript.Segment>
  readonly hasTimestamps: boolean
  readonly summary: Api.FreeFormObject | null
  readonly mindMap: Api.FreeFormObject | null
  readonly asrIntelligence: Api.AsrIntelligence | null
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
