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
  Idempotent,
  type IdempotentUseCase,
  type InfrastructureError,
  Recommendations
} from "@verbatim/core"
import type { Api } from "@verbatim/domain"
import { Effect } from "effect"
import { useCase } from "../use-case.js"

/** A resolve through core's idempotent use case (the same key and body answer the first answer again). */
const resolve = <R, A>(
  use: (idempotency: Idempotency, collections: CollectionWork) => IdempotentUseCase<R, A>,
  payload: R,
  key: string | undefined
) =>
  Effect.gen(function* () {
    const run = use(yield* Idempotency, yield* CollectionWork)
    return yield* useCase(run(yield* CurrentAccount, payload, key))
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
      resolve(Idempotent.resolvePlaylist, payload, headers["idempotency-key"])
    )
    .handle("history", ({ urlParams }) => history("playlist", urlParams))
    .handle("playlist", ({ path }) =>
      batchOf((collections, account) => collections.playlist(account, path.playlist_id))
    )
)

export const ChannelsHttp = HttpApiBuilder.group(VerbatimApi, "channels", (handlers) =>
  handlers
    .handle("resolve", ({ headers, payload }) =>
      resolve(Idempotent.resolveChannel, payload, headers["idempotency-key"])
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
