/**
 * Collections: playlist and channel batches. A resolve (POST /playlists/resolve, POST
 * /channels/resolve) stores the collection and the videos it listed (metadata only). The batch that
 * runs them is linked afterwards: the first batch of the account, created at or after the resolve,
 * that carries any of the collection's videos (spec, "Channel flow": resolve, then POST /batch with
 * the video_id values). The link is made once and kept, so a collection's per-video status is that
 * batch's items' job statuses, and a collection never changes after that batch's items finished.
 *
 * A channel resolve takes one of the account's channel jobs of the calendar month (UTC) in the same
 * transaction as the collection is stored (`insert` with `channelJob`), atomically against the cap.
 */
import { Api, Ids, type Status } from "@verbatim/domain"
import { Context, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

export const CollectionKind = Schema.Literal("playlist", "channel")
export type CollectionKind = typeof CollectionKind.Type

export const CollectionRecord = Schema.Struct({
  id: Ids.CollectionId,
  accountId: Ids.AccountId,
  kind: CollectionKind,
  playlistId: Schema.NullOr(Ids.PlaylistId),
  playlistTitle: Schema.NullOr(Schema.String),
  playlistUrl: Schema.NullOr(Schema.String),
  /** A channel collection's channel, or the channel that owns a playlist, when known. */
  channelId: Schema.NullOr(Ids.ChannelId),
  channelTitle: Schema.NullOr(Schema.String),
  channelUrl: Schema.NullOr(Schema.String),
  metadata: Schema.NullOr(Api.FreeFormObject),
  /** How many videos the resolve listed. */
  totalVideos: Schema.NonNegativeInt,
  createdAt: Schema.DateTimeUtc
})
export interface CollectionRecord extends Schema.Schema.Type<typeof CollectionRecord> {}

export const CollectionVideo = Schema.Struct({
  /** The collection-video id (the `id` of a video reference and of a collection job video). */
  id: Schema.UUID,
  position: Schema.NonNegativeInt,
  videoId: Ids.VideoId,
  title: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  publishedAt: Schema.NullOr(Schema.DateTimeUtc),
  durationSeconds: Schema.NullOr(Schema.NonNegativeInt)
})
export interface CollectionVideo extends Schema.Schema.Type<typeof CollectionVideo> {}

/** The batch a collection is linked to. */
export interface LinkedBatch {
  readonly id: Ids.BatchId
  readonly createdAt: Schema.Schema.Type<typeof Schema.DateTimeUtc>
  readonly startedAt: Schema.Schema.Type<typeof Schema.DateTimeUtc> | null
}

/**
 * A video of a collection and where it stands in the linked batch: `status` null while it was not
 * submitted (no linked batch, or the batch does not carry it); `processing` while its item has no
 * finished job.
 */
export interface CollectionVideoState extends CollectionVideo {
  readonly status: Status.JobStatus | null
  readonly jobId: Ids.JobId | null
  readonly finishedAt: Schema.Schema.Type<typeof Schema.DateTimeUtc> | null
  readonly error: string | null
}

export interface CollectionView {
  readonly collection: CollectionRecord
  readonly batch: LinkedBatch | null
  readonly videos: ReadonlyArray<CollectionVideoState>
}

/** A collection with the counts of its videos, for the history lists. */
export interface CollectionSummary {
  readonly collection: CollectionRecord
  readonly batch: LinkedBatch | null
  /** Videos the linked batch carries. */
  readonly submitted: number
  readonly completed: number
  /** failed or requires_asr_confirmation (finished without a transcript). */
  readonly failed: number
  readonly processing: number
  /** The latest finish of a submitted video. */
  readonly lastFinishedAt: Schema.Schema.Type<typeof Schema.DateTimeUtc> | null
}

/** How a collection is named in GET /playlists/{id} and GET /channels/{id} (DESIGN decision 14). */
export type CollectionKey =
  | { readonly _tag: "Id"; readonly id: Ids.CollectionId }
  | { readonly _tag: "Platform"; readonly id: string }

/** The channel job a channel resolve takes: one of the month's, unless the cap is reached. */
export interface ChannelJobClaim {
  /** `YYYY-MM`, UTC (`Plan.channelJobMonth`). */
  readonly month: string
  /** null: unlimited. */
  readonly cap: number | null
}

export class Collections extends Context.Tag("@verbatim/core/Collections")<
  Collections,
  {
    /**
     * Stores a collection and its videos in one transaction; with `channelJob`, takes one of the
     * month's channel jobs first. false (nothing stored) when the month's cap is reached.
     */
    readonly insert: (
      collection: CollectionRecord,
      videos: ReadonlyArray<CollectionVideo>,
      channelJob: ChannelJobClaim | null
    ) => Effect.Effect<boolean, PersistenceError>
    /** The channel jobs the account took in the month (`YYYY-MM`). */
    readonly channelJobsUsed: (
      accountId: Ids.AccountId,
      month: string
    ) => Effect.Effect<number, PersistenceError>
    /**
     * The account's collection of this kind (by id, or the latest for the platform id), linked to
     * its batch when that batch exists by now, with its videos in listed order.
     */
    readonly view: (
      accountId: Ids.AccountId,
      kind: CollectionKind,
      key: CollectionKey
    ) => Effect.Effect<Option.Option<CollectionView>, PersistenceError>
    /** The account's latest collections of this kind, newest first, linked like `view`. */
    readonly history: (
      accountId: Ids.AccountId,
      kind: CollectionKind,
      limit: number
    ) => Effect.Effect<ReadonlyArray<CollectionSummary>, PersistenceError>
    /**
     * The channels the account owns the most transcribed videos of (distinct videos of succeeded
     * transcripts), most first; ties: the most recently transcribed first, then the channel id.
     */
    readonly topChannels: (
      accountId: Ids.AccountId,
      limit: number
    ) => Effect.Effect<
      ReadonlyArray<{ readonly channelId: Ids.ChannelId; readonly transcribedCount: number }>,
      PersistenceError
    >
  }
>() {}
