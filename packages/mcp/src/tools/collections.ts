/**
 * resolve_playlist and resolve_channel: the videos of a playlist or channel, metadata only
 * (nothing transcribed or charged), for run_batch to transcribe.
 */
import { Api, Ids, Plan } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { AccountOperations } from "../operations.js"
import { defineTool, renameFields } from "../tool.js"
import { bounded, Count, IdempotencyKeyInput } from "./shared.js"

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

export const resolvePlaylist = defineTool({
  name: "resolve_playlist",
  title: "List a playlist's videos",
  description:
    "Lists the videos of a YouTube playlist (up to 100, in playlist order), metadata only: nothing is transcribed or charged. Paid plans only (plan_required otherwise). Then run_batch with the video ids transcribes them.",
  input: ResolvePlaylistInput,
  output: ResolvePlaylistOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
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

export const resolveChannel = defineTool({
  name: "resolve_channel",
  title: "List a channel's newest videos",
  description:
    "Lists the newest videos of a YouTube channel, metadata only: nothing is transcribed or charged. Paid plans only (plan_required otherwise), and each call uses one of the plan's channel jobs of the month (3 basic, 8 pro; rate_limit_exceeded once used). Then run_batch with the video ids transcribes them.",
  input: ResolveChannelInput,
  output: ResolveChannelOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
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
