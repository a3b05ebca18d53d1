/**
 * Playlists and channels: resolve (list the videos, metadata only), the playlist or channel batch
 * (a collection) with its videos, and the history of collections.
 *
 * Our additions and choices: a resolve answer carries `id`, the collection id that GET
 * /playlists/{id} and GET /channels/{id} accept (DESIGN decision 14); `id` of a video reference and of
 * a collection job video is the same collection-video id; a handle may be sent with or without its
 * leading `@` and is encoded with it. A resolve request needs at least one of its reference fields.
 */
import { Schema } from "effect"
import { ChannelHandle, ChannelId, CollectionId, PlaylistId, VideoId } from "../ids.js"
import {
  ChannelHistoryLimit,
  ChannelResolveRequestLimit,
  channelHistoryLimit,
  PlaylistResolveLimit,
  playlistResolveLimit
} from "../plan/limits.js"
import { CollectionStatus } from "../status/collection.js"
import { JobStatus } from "../status/job.js"
import {
  absentUnless,
  allErrors,
  Count,
  FreeFormObject,
  HttpUrl,
  intQuery,
  optionalField,
  ReferenceInput,
  requestAnnotations
} from "./fields.js"

/** A video listed by a playlist or channel resolve. Channel items may carry their duration. */
export class VideoReference extends Schema.Class<VideoReference>("VideoReference")(
  {
    id: Schema.UUID,
    video_id: VideoId,
    title: Schema.NullOr(Schema.String),
    url: Schema.NullOr(HttpUrl),
    published_at: Schema.NullOr(Schema.DateTimeUtc),
    duration_seconds: absentUnless(Count)
  },
  { description: "A video of a playlist or channel (metadata only)" }
) {}

export class PlaylistResolveRequest extends Schema.Class<PlaylistResolveRequest>("PlaylistResolveRequest")(
  Schema.Struct({
    playlist_url: optionalField(ReferenceInput),
    /** The playlist URL's list= value. */
    playlist_id: optionalField(PlaylistId),
    limit: Schema.optionalWith(PlaylistResolveLimit, {
      default: () => playlistResolveLimit.default,
      nullable: true
    })
  }).pipe(
    Schema.filter(
      (request) =>
        request.playlist_url !== undefined ||
        request.playlist_id !== undefined || {
          path: ["playlist_id"],
          message: "one of playlist_url or playlist_id is required"
        }
    )
  ),
  requestAnnotations(
    "PlaylistResolveRequest",
    "List a playlist's videos: playlist_url or playlist_id, limit 1 to 100 (default 100)"
  )
) {}

export class PlaylistResolveResponse extends Schema.Class<PlaylistResolveResponse>("PlaylistResolveResponse")(
  {
    /** The collection id (our addition), for GET /playlists/{id}. */
    id: CollectionId,
    playlist_id: PlaylistId,
    title: Schema.NullOr(Schema.String),
    total: Count,
    truncated: Schema.Boolean,
    items: Schema.Array(VideoReference)
  },
  { description: "A playlist's videos; send their video_id values to POST /batch" }
) {}

/** A channel handle as sent: with or without its leading `@`. Decodes to the bare handle. */
export const HandleInput = Schema.transform(Schema.String, ChannelHandle, {
  strict: true,
  decode: (input) => (input.startsWith("@") ? input.slice(1) : input),
  encode: (handle) => `@${handle}`
}).annotations({ identifier: "HandleInput", description: "A channel handle, with or without the leading @" })

export class ChannelResolveRequest extends Schema.Class<ChannelResolveRequest>("ChannelResolveRequest")(
  Schema.Struct({
    channel_url: optionalField(ReferenceInput),
    channel_id: optionalField(ChannelId),
    handle: optionalField(HandleInput),
    /** Defaults to, and is capped by, the plan's channel resolve maximum. */
    limit: optionalField(ChannelResolveRequestLimit)
  }).pipe(
    Schema.filter(
      (request) =>
        request.channel_url !== undefined ||
        request.channel_id !== undefined ||
        request.handle !== undefined || {
          path: ["channel_id"],
          message: "one of channel_url, channel_id or handle is required"
        }
    )
  ),
  requestAnnotations(
    "ChannelResolveRequest",
    "List a channel's videos: channel_url, channel_id or handle; limit from 1"
  )
) {}

export class ChannelResolveResponse extends Schema.Class<ChannelResolveResponse>("ChannelResolveResponse")(
  {
    /** The collection id (our addition), for GET /channels/{id}. */
    id: CollectionId,
    channel_id: ChannelId,
    channel_title: Schema.String,
    subscriber_count: Count,
    video_count: Count,
    total: Count,
    truncated: Schema.Boolean,
    items: Schema.Array(VideoReference)
  },
  { description: "A channel's videos; send their video_id values to POST /batch" }
) {}

/** A video of a playlist or channel batch; `status` is null until a job exists for it. */
export class CollectionJobVideo extends Schema.Class<CollectionJobVideo>("CollectionJobVideo")(
  {
    id: Schema.UUID,
    video_id: VideoId,
    video_title: Schema.NullOr(Schema.String),
    status: Schema.NullOr(JobStatus),
    created_at: Schema.DateTimeUtc,
    finished_at: Schema.NullOr(Schema.DateTimeUtc),
    error: Schema.NullOr(Schema.String)
  },
  { description: "A video of a playlist or channel batch and the status of its job" }
) {}

const collectionFields = {
  id: CollectionId,
  total_videos: Count,
  completed_count: Count,
  failed_count: Count,
  status: CollectionStatus,
  created_at: Schema.DateTimeUtc,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  completed_at: Schema.NullOr(Schema.DateTimeUtc),
  metadata: Schema.NullOr(FreeFormObject)
}

export class PlaylistBatchInfo extends Schema.Class<PlaylistBatchInfo>("PlaylistBatchInfo")(
  {
    ...collectionFields,
    playlist_id: Schema.NullOr(PlaylistId),
    playlist_title: Schema.NullOr(Schema.String),
    playlist_url: Schema.NullOr(HttpUrl)
  },
  { description: "A playlist batch" }
) {}

export class ChannelBatchInfo extends Schema.Class<ChannelBatchInfo>("ChannelBatchInfo")(
  {
    ...collectionFields,
    channel_id: Schema.NullOr(ChannelId),
    channel_title: Schema.NullOr(Schema.String),
    channel_url: Schema.NullOr(HttpUrl)
  },
  { description: "A channel batch" }
) {}

export class PlaylistBatchResponse extends Schema.Class<PlaylistBatchResponse>("PlaylistBatchResponse")(
  {
    playlist: PlaylistBatchInfo,
    videos: Schema.Array(CollectionJobVideo)
  },
  { description: "A playlist batch and the status of each of its videos" }
) {}

export class ChannelBatchResponse extends Schema.Class<ChannelBatchResponse>("ChannelBatchResponse")(
  {
    channel: ChannelBatchInfo,
    videos: Schema.Array(CollectionJobVideo)
  },
  { description: "A channel batch and the status of each of its videos" }
) {}

export class CollectionHistoryItem extends Schema.Class<CollectionHistoryItem>("CollectionHistoryItem")(
  {
    id: CollectionId,
    playlist_id: Schema.NullOr(PlaylistId),
    playlist_title: Schema.NullOr(Schema.String),
    playlist_url: Schema.NullOr(HttpUrl),
    channel_id: Schema.NullOr(ChannelId),
    channel_title: Schema.NullOr(Schema.String),
    total_videos: Count,
    completed_count: Count,
    failed_count: Count,
    status: CollectionStatus,
    created_at: Schema.DateTimeUtc,
    completed_at: Schema.NullOr(Schema.DateTimeUtc)
  },
  { description: "A recent playlist or channel batch" }
) {}

export class CollectionHistoryResponse extends Schema.Class<CollectionHistoryResponse>(
  "CollectionHistoryResponse"
)(
  {
    history: Schema.Array(CollectionHistoryItem),
    count: Count
  },
  { description: "The caller's recent playlist or channel batches, newest first" }
) {}

/** GET /channels/history (and GET /playlists/history) query. */
export const CollectionHistoryQuery = Schema.Struct({
  limit: intQuery(ChannelHistoryLimit, channelHistoryLimit.default)
}).annotations({
  identifier: "CollectionHistoryQuery",
  description: "limit: 1 to 100, default 50",
  ...allErrors
})
export type CollectionHistoryQuery = typeof CollectionHistoryQuery.Type
