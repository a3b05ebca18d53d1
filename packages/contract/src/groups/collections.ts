/**
 * Playlists and channels (POST /playlists/resolve, GET /playlists/history, GET
 * /playlists/{playlist_id}, and the same under /channels) and GET /recommendations/videos.
 *
 * The resolves are for paid plans only (403 `plan_required`) and take an `Idempotency-Key`; a
 * channel resolve past the plan's channel jobs of the month answers 429 with `Retry-After`. The
 * path value of GET /playlists/{playlist_id} and GET /channels/{channel_id} is the collection id a
 * resolve answered, or the platform's playlist or channel id (the account's latest collection of it).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { Schema } from "effect"
import { basePath } from "../base.js"
import { BadRequest, Forbidden, NotFound, ServiceUnavailable, TooManyRequests } from "../errors.js"
import { IdempotencyHeaders, idempotencyDescription } from "../idempotency.js"
import { plainWords } from "../plain-words.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"

/** A collection id (uuid) or the platform's id: checked by the use case, which names the field. */
const PathValue = Schema.String.pipe(Schema.maxLength(128))

export const PlaylistPath = Schema.Struct({ playlist_id: PathValue })
export const ChannelPath = Schema.Struct({ channel_id: PathValue })

export class PlaylistsGroup extends HttpApiGroup.make("playlists")
  .add(
    HttpApiEndpoint.post("resolve", "/playlists/resolve")
      .setPayload(plainWords(Api.PlaylistResolveRequest))
      .setHeaders(plainWords(IdempotencyHeaders))
      .annotate(OpenApi.Description, idempotencyDescription)
      .addSuccess(Api.PlaylistResolveResponse)
      .addError(Forbidden)
      .addError(NotFound)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "List a playlist's videos (paid plans; metadata only): send their video_id values to POST /batch"
      )
  )
  .add(
    HttpApiEndpoint.get("history", "/playlists/history")
      .setUrlParams(plainWords(query(Api.CollectionHistoryQuery)))
      .addSuccess(Api.CollectionHistoryResponse)
      .annotate(OpenApi.Summary, "The account's playlist batches, newest first")
  )
  .add(
    HttpApiEndpoint.get("playlist", "/playlists/:playlist_id")
      .setPath(plainWords(PlaylistPath))
      .addSuccess(Api.PlaylistBatchResponse)
      .addError(NotFound)
      .annotate(
        OpenApi.Summary,
        "A playlist batch and each video's job status (by the resolve's id, or the playlist id for the latest)"
      )
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Playlists resolved into batches")
  .prefix(basePath) {}

export class ChannelsGroup extends HttpApiGroup.make("channels")
  .add(
    HttpApiEndpoint.post("resolve", "/channels/resolve")
      .setPayload(plainWords(Api.ChannelResolveRequest))
      .setHeaders(plainWords(IdempotencyHeaders))
      .annotate(OpenApi.Description, idempotencyDescription)
      .addSuccess(Api.ChannelResolveResponse)
      .addError(Forbidden)
      .addError(NotFound)
      .addError(TooManyRequests)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "List a channel's newest videos (paid plans, one of the month's channel jobs; metadata only)"
      )
  )
  .add(
    HttpApiEndpoint.get("history", "/channels/history")
      .setUrlParams(plainWords(query(Api.CollectionHistoryQuery)))
      .addSuccess(Api.CollectionHistoryResponse)
      .annotate(OpenApi.Summary, "The account's channel batches, newest first")
  )
  .add(
    HttpApiEndpoint.get("channel", "/channels/:channel_id")
      .setPath(plainWords(ChannelPath))
      .addSuccess(Api.ChannelBatchResponse)
      .addError(NotFound)
      .annotate(
        OpenApi.Summary,
        "A channel batch and each video's job status (by the resolve's id, or the channel id for the latest)"
      )
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Channels resolved into batches")
  .prefix(basePath) {}

export class RecommendationsGroup extends HttpApiGroup.make("recommendations")
  .add(
    HttpApiEndpoint.get("videos", "/recommendations/videos")
      .setUrlParams(plainWords(query(Api.RecommendationsQuery)))
      .addSuccess(Api.RecommendationsResponse)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "New videos from the channels transcribed most, not transcribed yet, interleaved, newest first (free)"
      )
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "What to transcribe next")
  .prefix(basePath) {}
