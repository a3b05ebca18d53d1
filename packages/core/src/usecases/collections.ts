/**
 * Playlists and channels (spec: POST /playlists/resolve, GET /playlists/{playlist_id}, GET
 * /playlists/history, POST /channels/resolve, GET /channels/{channel_id}, GET /channels/history;
 * DESIGN decisions 10 and 14) and GET /recommendations/videos.
 *
 * - resolve: paid plans only (403 `plan_required`); lists the playlist's videos (limit 1 to 100) or
 *   the channel's newest uploads (limit 1 to the plan's cap, default the cap), metadata only, and
 *   stores them as a collection (status `resolved`). A channel resolve takes one of the plan's
 *   channel jobs of the calendar month (UTC); past the cap it answers 429 `rate_limit_exceeded`
 *   with `Retry-After` until the next month, and nothing is listed or stored.
 * - get: the collection, linked to the batch that ran its videos (the first POST /batch of the
 *   account after the resolve carrying any of them), each video with its job's status; the status
 *   is `resolved` until a batch carries its videos, then the batch rule over the submitted videos.
 * - history: the latest collections of a kind, newest first, with their counts.
 * - recommendations: the newest uploads of the channels the account transcribed most, minus the
 *   videos it owns a transcript of, interleaved across channels (round by round, each round newest
 *   first); free.
 */
import { Api, Errors, Ids, Plan, Reference, Status } from "@verbatim/domain"
import { DateTime, Effect, Either, type Layer, Option, Schema } from "effect"
import type { Account } from "../ports/accounts.js"
import { Batches } from "../ports/batches.js"
import {
  type CollectionKey,
  type CollectionKind,
  type CollectionRecord,
  type CollectionSummary,
  Collections,
  type CollectionVideo,
  type CollectionView
} from "../ports/collections.js"
import { Secrets } from "../ports/secrets.js"
import {
  type Collected,
  collectPlaylist,
  collectUploads,
  type PlatformError,
  type VideoEntry,
  VideoPlatform
} from "../ports/video-platform.js"
import { fieldError, fromPlatformError, fromReferenceError, notFound } from "./failures.js"

/** The thumbnail of a video on the platform's image host. */
export const thumbnailUrl = (id: Ids.VideoId): string => `https://i.ytimg.com/vi/${id}/hqdefault.jpg`

/** A channel recommendations leave out, and why (logged). */
const leftOut = (channelId: string, reason: string) =>
  Effect.as(Effect.logWarning(`recommendations: channel ${channelId} left out`, reason), Option.none())

/** At most this many uploads are read per channel for recommendations. */
export const maxRecommendationUploads = 500

const paidOnly = (account: Account, feature: Plan.PaidFeature, endpoint: string) =>
  Plan.allows(account.plan, feature)
    ? Effect.void
    : Effect.fail(
        Errors.apiError(
          "plan_required",
          `${endpoint} is available on paid plans only (${Plan.paidPlans.join(", ")}); this account is on the ${account.plan} plan`,
          { plan: account.plan, required_plans: Plan.paidPlans }
        )
      )

/** The first instant of the UTC calendar month after `now`. */
const nextMonth = (now: DateTime.Utc): DateTime.Utc => {
  const date = DateTime.toDateUtc(now)
  return DateTime.unsafeMake(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1))
}

const monthlyCapReached = (account: Account, month: string, used: number, now: DateTime.Utc) => {
  const cap = Plan.limitsFor(account.plan).channelJobsPerMonth ?? 0
  const resets = nextMonth(now)
  const retryAfter = Math.max(
    1,
    Math.ceil((DateTime.toEpochMillis(resets) - DateTime.toEpochMillis(now)) / 1000)
  )
  return Errors.apiError(
    "rate_limit_exceeded",
    `the ${account.plan} plan allows ${cap} channel jobs a calendar month (UTC) and ${month} has used them; the next month starts ${DateTime.formatIso(resets)}`,
    { month, used, limit: cap, resets_at: DateTime.formatIso(resets), retry_after_seconds: retryAfter }
  )
}

const platformError = (error: PlatformError) => fromPlatformError(error)

const videoReference = (video: CollectionVideo, withDuration: boolean) =>
  new Api.VideoReference(
    {
      id: video.id,
      video_id: video.videoId,
      title: video.title,
      url: video.url,
      published_at: video.publishedAt,
      ...(withDuration && video.durationSeconds !== null ? { duration_seconds: video.durationSeconds } : {})
    },
    true
  )

const isCollectionId = Schema.is(Ids.CollectionId)
const isPlaylistId = Schema.is(Ids.PlaylistId)
const isChannelId = Schema.is(Ids.ChannelId)

/**
 * The path value of GET /playlists/{id} and GET /channels/{id}: a collection id, or the platform's
 * playlist or channel id (the account's latest collection of it, DESIGN decision 14).
 */
const collectionKey = (kind: CollectionKind, raw: string): Either.Either<CollectionKey, Errors.ApiError> => {
  if (isCollectionId(raw)) return Either.right({ _tag: "Id", id: raw })
  if (kind === "playlist" ? isPlaylistId(raw) : isChannelId(raw))
    return Either.right({ _tag: "Platform", id: raw })
  return Either.left(
    fieldError(
      [`${kind}_id`],
      kind === "playlist"
        ? "a playlist batch id (uuid) or a playlist id (the list= value)"
        : "a channel batch id (uuid) or a channel id (UC followed by 22 characters)"
    )
  )
}

/** The status, counts and dates a collection's videos stand for. */
const progress = (summary: Omit<CollectionSummary, "collection" | "batch">) => {
  const status: Status.CollectionStatus =
    summary.submitted === 0
      ? "resolved"
      : Status.batchOutcome({
          total: summary.submitted,
          succeeded: summary.completed,
          failed: summary.failed,
          processing: summary.processing
        })
  const finished = status === "completed" || status === "partial" || status === "failed"
  return { status, completedAt: finished ? summary.lastFinishedAt : null }
}

const summaryOf = (view: CollectionView): Omit<CollectionSummary, "collection" | "batch"> => {
  let submitted = 0
  let completed = 0
  let failed = 0
  let processing = 0
  let lastFinishedAt: DateTime.Utc | null = null
  for (const video of view.videos) {
    if (video.status === null) continue
    submitted++
    if (video.status === "completed") completed++
    else if (video.status === "processing") processing++
    else failed++
    if (
      video.finishedAt !== null &&
      (lastFinishedAt === null || DateTime.greaterThan(video.finishedAt, lastFinishedAt))
    )
      lastFinishedAt = video.finishedAt
  }
  return { submitted, completed, failed, processing, lastFinishedAt }
}

const commonInfo = (
  collection: CollectionRecord,
  batch: CollectionView["batch"],
  summary: Omit<CollectionSummary, "collection" | "batch">
) => {
  const { status, completedAt } = progress(summary)
  return {
    id: collection.id,
    total_videos: collection.totalVideos,
    completed_count: summary.completed,
    failed_count: summary.failed,
    status,
    created_at: collection.createdAt,
    started_at: batch?.createdAt ?? null,
    completed_at: completedAt,
    metadata: { ...collection.metadata, batch_id: batch?.id ?? null }
  }
}

const jobVideos = (view: CollectionView) =>
  view.videos.map(
    (video) =>
      new Api.CollectionJobVideo(
        {
          id: video.id,
          video_id: video.videoId,
          video_title: video.title,
          status: video.status,
          created_at: view.collection.createdAt,
          finished_at: video.finishedAt,
          error: video.error
        },
        true
      )
  )

const historyItem = (summary: CollectionSummary) => {
  const { collection } = summary
  const { status, completedAt } = progress(summary)
  return new Api.CollectionHistoryItem(
    {
      id: collection.id,
      playlist_id: collection.playlistId,
      playlist_title: collection.playlistTitle,
      playlist_url: collection.playlistUrl,
      channel_id: collection.channelId,
      channel_title: collection.channelTitle,
      total_videos: collection.totalVideos,
      completed_count: summary.completed,
      failed_count: summary.failed,
      status,
      created_at: collection.createdAt,
      completed_at: completedAt
    },
    true
  )
}

export class CollectionWork extends Effect.Service<CollectionWork>()("@verbatim/core/CollectionWork", {
  effect: Effect.gen(function* () {
    const collections = yield* Collections
    const platform = yield* VideoPlatform
    const secrets = yield* Secrets

    const videosOf = (entries: ReadonlyArray<VideoEntry>) =>
      Effect.forEach(entries, (entry, position) =>
        Effect.map(
          secrets.uuid,
          (id): CollectionVideo => ({
            id,
            position,
            videoId: entry.id,
            title: entry.title,
            url: Reference.videoUrl(entry.id),
            publishedAt: entry.publishedAt,
            durationSeconds: entry.durationSeconds
          })
        )
      )

    const newCollection = <H>(collected: Collected<H>) =>
      Effect.gen(function* () {
        const id = Ids.CollectionId.make(yield* secrets.uuid)
        const videos = yield* videosOf(collected.videos)
        return { id, videos, now: yield* DateTime.now }
      })

    const resolvePlaylist = Effect.fn("verbatim.playlists.resolve")(function* (
      account: Account,
      request: Api.PlaylistResolveRequest
    ) {
      yield* paidOnly(account, "playlist_resolve", "POST /playlists/resolve")
      const playlistId =
        request.playlist_id ??
        (yield* Either.mapLeft(
          Reference.parsePlaylist(request.playlist_url ?? ""),
          fromReferenceError("playlist_url")
        ))
      const collected = yield* collectPlaylist(playlistId, request.limit).pipe(
        Effect.provideService(VideoPlatform, platform),
        Effect.mapError(platformError)
      )
      const { id, videos, now } = yield* newCollection(collected)
      const head = collected.head
      const record: CollectionRecord = {
        id,
        accountId: account.id,
        kind: "playlist",
        playlistId: head.id,
        playlistTitle: head.title,
        playlistUrl: Reference.playlistUrl(head.id),
        channelId: head.channelId,
        channelTitle: head.channelTitle,
        channelUrl: head.channelId === null ? null : Reference.channelUrl(head.channelId),
        metadata: { limit: request.limit, truncated: collected.truncated, video_count: head.videoCount },
        totalVideos: videos.length,
        createdAt: now
      }
      yield* collections.insert(record, videos, null)
      return new Api.PlaylistResolveResponse(
        {
          id,
          playlist_id: head.id,
          title: head.title,
          total: videos.length,
          truncated: collected.truncated,
          items: videos.map((video) => videoReference(video, false))
        },
        true
      )
    })

    const resolveChannel = Effect.fn("verbatim.channels.resolve")(function* (
      account: Account,
      request: Api.ChannelResolveRequest
    ) {
      yield* paidOnly(account, "channel_resolve", "POST /channels/resolve")
      const limit = Option.getOrElse(Plan.channelResolveLimit(account.plan, request.limit), () => 1)
      const ref: Reference.ChannelRef =
        request.channel_id !== undefined
          ? Reference.channelById(request.channel_id)
          : request.handle !== undefined
            ? Reference.channelByHandle(request.handle)
            : yield* Either.mapLeft(
                Reference.parseChannel(request.channel_url ?? ""),
                fromReferenceError("channel_url")
              )
      const now = yield* DateTime.now
      const month = Plan.channelJobMonth(DateTime.toEpochMillis(now))
      const used = yield* collections.channelJobsUsed(account.id, month)
      if (!Plan.withinMonthlyChannelJobs(account.plan, used)) {
        return yield* Effect.fail(monthlyCapReached(account, month, used, now))
      }
      const details = yield* platform.channel(ref).pipe(Effect.mapError(platformError))
      const collected = yield* collectUploads(details.id, limit).pipe(
        Effect.provideService(VideoPlatform, platform),
        Effect.mapError(platformError)
      )
      const { id, videos } = yield* newCollection(collected)
      const record: CollectionRecord = {
        id,
        accountId: account.id,
        kind: "channel",
        playlistId: null,
        playlistTitle: null,
        playlistUrl: null,
        channelId: details.id,
        channelTitle: details.title,
        channelUrl: Reference.channelUrl(details.id),
        metadata: {
          handle: details.handle === null ? null : `@${details.handle}`,
          limit,
          truncated: collected.truncated,
          subscriber_count: details.subscriberCount,
          video_count: details.videoCount
        },
        totalVideos: videos.length,
        createdAt: now
      }
      const stored = yield* collections.insert(record, videos, {
        month,
        cap: Plan.limitsFor(account.plan).channelJobsPerMonth
      })
      if (!stored) {
        const usedNow = yield* collections.channelJobsUsed(account.id, month)
        return yield* Effect.fail(monthlyCapReached(account, month, usedNow, now))
      }
      return new Api.ChannelResolveResponse(
        {
          id,
          channel_id: details.id,
          channel_title: details.title,
          subscriber_count: details.subscriberCount ?? 0,
          video_count: details.videoCount ?? videos.length,
          total: videos.length,
          truncated: collected.truncated,
          items: videos.map((video) => videoReference(video, true))
        },
        true
      )
    })

    /** The collection named by the path value, its common info and its videos. */
    const find = (account: Account, kind: CollectionKind, raw: string) =>
      Effect.gen(function* () {
        const key = yield* collectionKey(kind, raw)
        const found = yield* collections.view(account.id, kind, key)
        if (Option.isNone(found)) {
          return yield* Effect.fail(notFound(`${kind} batch ${raw}`, { [`${kind}_id`]: raw }))
        }
        const view = found.value
        return {
          collection: view.collection,
          info: commonInfo(view.collection, view.batch, summaryOf(view)),
          videos: jobVideos(view)
        }
      })

    const playlist = Effect.fn("verbatim.playlists.get")(function* (account: Account, id: string) {
      const { collection, info, videos } = yield* find(account, "playlist", id)
      const playlist = new Api.PlaylistBatchInfo(
        {
          ...info,
          playlist_id: collection.playlistId,
          playlist_title: collection.playlistTitle,
          playlist_url: collection.playlistUrl
        },
        true
      )
      return new Api.PlaylistBatchResponse({ playlist, videos }, true)
    })

    const channel = Effect.fn("verbatim.channels.get")(function* (account: Account, id: string) {
      const { collection, info, videos } = yield* find(account, "channel", id)
      const channel = new Api.ChannelBatchInfo(
        {
          ...info,
          channel_id: collection.channelId,
          channel_title: collection.channelTitle,
          channel_url: collection.channelUrl
        },
        true
      )
      return new Api.ChannelBatchResponse({ channel, videos }, true)
    })

    const history = Effect.fn("verbatim.collections.history")(function* (
      account: Account,
      kind: CollectionKind,
      query: Api.CollectionHistoryQuery
    ) {
      const found = yield* collections.history(account.id, kind, query.limit)
      const items = found.map(historyItem)
      return new Api.CollectionHistoryResponse({ history: items, count: items.length }, true)
    })

    return { resolvePlaylist, resolveChannel, playlist, channel, history }
  })
}) {}

/** A channel's candidates for recommendations: its uploads newest first, none owned. */
interface ChannelPick {
  readonly channelId: Ids.ChannelId
  readonly title: string
  readonly transcribedCount: number
  readonly uploads: ReadonlyArray<VideoEntry & { readonly publishedAt: DateTime.Utc }>
}

/**
 * Interleaves the channels' candidates: round by round (each channel's newest remaining video),
 * each round newest first, until `limit` videos.
 */
export const interleave = <A extends { readonly publishedAt: DateTime.Utc }>(
  lists: ReadonlyArray<ReadonlyArray<A>>,
  limit: number
): ReadonlyArray<A> => {
  const out: Array<A> = []
  const longest = lists.reduce((max, list) => Math.max(max, list.length), 0)
  for (let round = 0; round < longest && out.length < limit; round++) {
    const picks = lists.flatMap((list) => {
      const pick = list[round]
      return pick === undefined ? [] : [pick]
    })
    picks.sort((a, b) => DateTime.toEpochMillis(b.publishedAt) - DateTime.toEpochMillis(a.publishedAt))
    out.push(...picks.slice(0, limit - out.length))
  }
  return out
}

export class Recommendations extends Effect.Service<Recommendations>()("@verbatim/core/Recommendations", {
  effect: Effect.gen(function* () {
    const collections = yield* Collections
    const batches = yield* Batches
    const platform = yield* VideoPlatform

    const videos = Effect.fn("verbatim.recommendations.videos")(function* (
      account: Account,
      query: Api.RecommendationsQuery
    ) {
      const top = yield* collections.topChannels(account.id, query.channels)
      const channels = yield* Effect.forEach(
        top,
        ({ channelId, transcribedCount }) =>
          Effect.gen(function* () {
            const details = yield* platform.channel(Reference.channelById(channelId))
            const collected = yield* collectUploads(
              channelId,
              Math.min(query.limit + transcribedCount, maxRecommendationUploads)
            )
            return Option.some({
              channelId,
              title: details.title,
              transcribedCount,
              uploads: collected.videos
            })
          }).pipe(
            Effect.provideService(VideoPlatform, platform),
            // A channel the platform no longer has, or now shows only to signed-in adults, is left
            // out; any other failure is the answer.
            Effect.catchTags({
              CollectionNotFound: (error) => leftOut(channelId, error.reason),
              ChannelRestricted: (error) => leftOut(channelId, error.reason)
            }),
            Effect.mapError(platformError)
          ),
        { concurrency: 4 }
      )
      const found = channels.flatMap(Option.toArray)
      const owned = yield* batches.ownedVideos(
        account.id,
        found.flatMap((channel) => channel.uploads.map((entry) => entry.id))
      )
      const seen = new Set<string>()
      const picks: Array<ChannelPick> = found.map((channel) => ({
        channelId: channel.channelId,
        title: channel.title,
        transcribedCount: channel.transcribedCount,
        uploads: channel.uploads.flatMap((entry) => {
          if (owned.has(entry.id) || seen.has(entry.id) || entry.publishedAt === null) return []
          seen.add(entry.id)
          return [{ ...entry, publishedAt: entry.publishedAt }]
        })
      }))
      const titles = new Map(picks.map((pick) => [pick.channelId, pick.title]))
      const chosen = interleave(
        picks.map((pick) => pick.uploads.map((entry) => ({ ...entry, channelId: pick.channelId }))),
        query.limit
      )
      const recommendations = chosen.map(
        (entry) =>
          new Api.RecommendedVideo(
            {
              video_id: entry.id,
              title: entry.title ?? entry.id,
              url: Reference.videoUrl(entry.id),
              thumbnail_url: thumbnailUrl(entry.id),
              published_at: entry.publishedAt,
              duration_seconds: entry.durationSeconds ?? 0,
              channel_id: entry.channelId,
              channel_title: titles.get(entry.channelId) ?? ""
            },
            true
          )
      )
      return new Api.RecommendationsResponse(
        {
          recommendations,
          channels: picks.map(
            (pick) =>
              new Api.RecommendationChannel(
                {
                  channel_id: pick.channelId,
                  channel_title: pick.title,
                  transcribed_count: pick.transcribedCount
                },
                true
              )
          ),
          count: recommendations.length
        },
        true
      )
    })

    return { videos }
  })
}) {}

export const CollectionWorkLive: Layer.Layer<CollectionWork, never, Collections | VideoPlatform | Secrets> =
  CollectionWork.Default
export const RecommendationsLive: Layer.Layer<Recommendations, never, Collections | Batches | VideoPlatform> =
  Recommendations.Default
