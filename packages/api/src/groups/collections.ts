/**
 * Playlists and channels (POST /playlists/resolve, GET /playlists/history, GET
 * /playlists/{playlist_id}, and the same under /channels) and GET /recommendations/videos.
 *
 * The resolves are for paid plans only (403 `plan_required`) and take an `Idempotency-Key`; a
 * channel resolve past the plan's channel jobs of the month answers 429 with `Retry-After`. The
 * path value of GET /playlists/{playlist_id} and GET /channels/{channel_id} is the collection id a
 * resolve answered, or the platform's playlist or channel id (the account's latest collection of it).
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CollectionWork,
  CurrentAccount,
  Idempotency,
  type InfrastructureError,
  idempotentEndpoints,
  type PersistenceError,
  Recommendations
} from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import type { LazyArg } from "effect/Function"
import { apiId, basePath } from "../base.js"
import {
  type ApiFailure,
  BadRequest,
  Forbidden,
  NotFound,
  ServiceUnavailable,
  TooManyRequests
} from "../errors.js"
import { IdempotencyHeaders, idempotencyDescription } from "../idempotency.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"
import { useCase } from "../use-case.js"

/** A collection id (uuid) or the platform's id: checked by the use case, which names the field. */
const PathValue = Schema.String.pipe(Schema.maxLength(128))

export const PlaylistPath = Schema.Struct({ playlist_id: PathValue })
export const ChannelPath = Schema.Struct({ channel_id: PathValue })

export class PlaylistsGroup extends HttpApiGroup.make("playlists")
  .add(
    HttpApiEndpoint.post("resolve", "/playlists/resolve")
      .setPayload(Api.PlaylistResolveRequest)
      .setHeaders(IdempotencyHeaders)
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
      .setUrlParams(query(Api.CollectionHistoryQuery))
      .addSuccess(Api.CollectionHistoryResponse)
      .annotate(OpenApi.Summary, "The account's playlist batches, newest first")
  )
  .add(
    HttpApiEndpoint.get("playlist", "/playlists/:playlist_id")
      .setPath(PlaylistPath)
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
      .setPayload(Api.ChannelResolveRequest)
      .setHeaders(IdempotencyHeaders)
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
      .setUrlParams(query(Api.CollectionHistoryQuery))
      .addSuccess(Api.CollectionHistoryResponse)
      .annotate(OpenApi.Summary, "The account's channel batches, newest first")
  )
  .add(
    HttpApiEndpoint.get("channel", "/channels/:channel_id")
      .setPath(ChannelPath)
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
      .setUrlParams(query(Api.RecommendationsQuery))
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

/** A resolve through core's `Idempotency` (the same key and body answer the first answer again). */
const idempotentResolve = <A, I>(
  endpoint: string,
  key: string | undefined,
  encoded: LazyArg<unknown>,
  schema: Schema.Schema<A, I>,
  work: (
    collections: CollectionWork,
    account: CurrentAccount["Type"]
  ) => Effect.Effect<A, ApiFailure | PersistenceError>
) =>
  Effect.gen(function* () {
    const collections = yield* CollectionWork
    const idempotency = yield* Idempotency
    const account = yield* CurrentAccount
    return yield* useCase(
      idempotency.run(account, endpoint, key, encoded, schema, work(collections, account))
    )
  })

const history = (kind: "playlist" | "channel", query: Api.CollectionHistoryQuery) =>
  Effect.gen(function* () {
    const collections = yield* CollectionWork
    return yield* useCase(collections.history(yield* CurrentAccount, kind, query))
  })

const batchOf = <A>(
  get: (
    collections: CollectionWork,
    account: CurrentAccount["Type"]
  ) => Effect.Effect<A, ApiFailure | InfrastructureError>
) =>
  Effect.gen(function* () {
    const collections = yield* CollectionWork
    return yield* useCase(get(collections, yield* CurrentAccount))
  })

export const PlaylistsHttp = HttpApiBuilder.group(
  HttpApi.make(apiId).add(PlaylistsGroup),
  "playlists",
  (handlers) =>
    handlers
      .handle("resolve", ({ headers, payload }) =>
        idempotentResolve(
          idempotentEndpoints.playlistResolve,
          headers["idempotency-key"],
          () => Schema.encodeSync(Api.PlaylistResolveRequest)(payload),
          Api.PlaylistResolveResponse,
          (collections, account) => collections.resolvePlaylist(account, payload)
        )
      )
      .handle("history", ({ urlParams }) => history("playlist", urlParams))
      .handle("playlist", ({ path }) =>
        batchOf((collections, account) => collections.playlist(account, path.playlist_id))
      )
)

export const ChannelsHttp = HttpApiBuilder.group(
  HttpApi.make(apiId).add(ChannelsGroup),
  "channels",
  (handlers) =>
    handlers
      .handle("resolve", ({ headers, payload }) =>
        idempotentResolve(
          idempotentEndpoints.channelResolve,
          headers["idempotency-key"],
          () => Schema.encodeSync(Api.ChannelResolveRequest)(payload),
          Api.ChannelResolveResponse,
          (collections, account) => collections.resolveChannel(account, payload)
        )
      )
      .handle("history", ({ urlParams }) => history("channel", urlParams))
      .handle("channel", ({ path }) =>
        batchOf((collections, account) => collections.channel(account, path.channel_id))
      )
)

export const RecommendationsHttp = HttpApiBuilder.group(
  HttpApi.make(apiId).add(RecommendationsGroup),
  "recommendations",
  (handlers) =>
    handlers.handle("videos", ({ urlParams }) =>
      Effect.gen(function* () {
        const recommendations = yield* Recommendations
        return yield* useCase(recommendations.videos(yield* CurrentAccount, urlParams))
      })
    )
)
