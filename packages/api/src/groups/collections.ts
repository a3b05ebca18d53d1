/**
 * Playlists and channels (POST /playlists/resolve, GET /playlists/history, GET
 * /playlists/{playlist_id}, and the same under /channels) and GET /recommendations/videos.
 *
 * The resolves are for paid plans only (403 `plan_required`) and take an `Idempotency-Key`; a
 * channel resolve past the plan's channel jobs of the month answers 429 with `Retry-After`. The
 * path value of GET /playlists/{playlist_id} and GET /channels/{channel_id} is the collection id a
 * resolve answered, or the platform's playlist or channel id (the account's latest collection of it).
 */
import { HttpApiBuilder } from "@effect/platform"
import { type ApiFailure, VerbatimApi } from "@verbatim/contract"
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
import { useCase } from "../use-case.js"

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

export const PlaylistsHttp = HttpApiBuilder.group(VerbatimApi, "playlists", (handlers) =>
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

export const ChannelsHttp = HttpApiBuilder.group(VerbatimApi, "channels", (handlers) =>
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

export const RecommendationsHttp = HttpApiBuilder.group(VerbatimApi, "recommendations", (handlers) =>
  handlers.handle("videos", ({ urlParams }) =>
    Effect.gen(function* () {
      const recommendations = yield* Recommendations
      return yield* useCase(recommendations.videos(yield* CurrentAccount, urlParams))
    })
  )
)
