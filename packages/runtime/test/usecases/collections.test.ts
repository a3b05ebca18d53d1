/**
 * Playlists, channels and recommendations on the production wiring (the shipped demo catalogue):
 * paid plans only; a channel resolve lists up to the plan's cap (the requested limit clamped to it)
 * and takes one of the plan's channel jobs of the UTC calendar month; the collection reports each
 * video's job once a batch carries its videos (the batch's items run here by hand, as a worker
 * would); recommendations interleave the top channels' newest uploads round by round.
 */
import { expect, layer } from "@effect/vitest"
import { BatchWork, batchItemLane, CollectionWork, interleave } from "@verbatim/core"
import { Api, type Errors, Ids, Plan } from "@verbatim/domain"
import { DateTime, Effect, Schema, TestClock } from "effect"
import { createAccount, expectApiError, suiteOptions, useCasesLayer, videos } from "./support.js"

const captionCases = Ids.PlaylistId.make("PLvb8CaptionCases")
const codeLab = Ids.ChannelId.make("UCk4Pz9HsV2mQw7Lt1XyBn6D")

const playlistRequest = (body: Record<string, unknown>) =>
  Schema.decodeUnknownSync(Api.PlaylistResolveRequest)(body)
const channelRequest = (body: Record<string, unknown>) =>
  Schema.decodeUnknownSync(Api.ChannelResolveRequest)(body)

layer(useCasesLayer(), suiteOptions)("CollectionWork on the production wiring", (it) => {
  it.effect("resolves are for paid plans only: free is plan_required, every paid plan resolves", () =>
    Effect.gen(function* () {
      const work = yield* CollectionWork
      for (const plan of Plan.allPlans) {
        const account = yield* createAccount({ plan })
        const playlist = work.resolvePlaylist(account, playlistRequest({ playlist_id: captionCases }))
        const channel = work.resolveChannel(account, channelRequest({ channel_id: codeLab }))
        if (plan === "free") {
          const error = yield* expectApiError(playlist, "plan_required")
          expect(error.status).toBe(403)
          yield* expectApiError(channel, "plan_required")
          expect((yield* work.history(account, "channel", { limit: 50 })).count).toBe(0)
        } else {
          expect((yield* playlist).total).toBe(5)
          expect((yield* channel).total).toBe(5)
        }
      }
    })
  )

  it.effect("a channel resolve's limit defaults to the plan's cap and is clamped to it", () =>
    Effect.gen(function* () {
      const work = yield* CollectionWork
      const limitOf = (answer: Api.ChannelResolveResponse, account: Parameters<typeof work.channel>[0]) =>
        Effect.map(work.channel(account, answer.id), (batch) => batch.channel.metadata?.limit)
      for (const [plan, cap] of [
        ["basic", 500],
        ["pro", 1500],
        ["business", 3000]
      ] as const) {
        const account = yield* createAccount({ plan })
        const omitted = yield* work.resolveChannel(account, channelRequest({ channel_id: codeLab }))
        expect(yield* limitOf(omitted, account)).toBe(cap)
        const above = yield* work.resolveChannel(
          account,
          channelRequest({ channel_id: codeLab, limit: 100_000 })
        )
        expect(yield* limitOf(above, account)).toBe(cap)
        expect(above.total).toBe(5)
      }
      const account = yield* createAccount({ plan: "business" })
      const two = yield* work.resolveChannel(
        account,
        channelRequest({ handle: "@practicalcodelab", limit: 2 })
      )
      expect(two).toMatchObject({ total: 2, truncated: true })
      expect(yield* limitOf(two, account)).toBe(2)
    })
  )

  it.effect(
    "with several references, the id wins: playlist_id over playlist_url; channel_id, handle, channel_url",
    () =>
      Effect.gen(function* () {
        const work = yield* CollectionWork
        const account = yield* createAccount({ plan: "business" })
        const playlist = yield* work.resolvePlaylist(
          account,
          playlistRequest({
            playlist_id: captionCases,
            playlist_url: "https://www.youtube.com/playlist?list=PLnw4Tq8Zr2mBestOf2024"
          })
        )
        expect(playlist.playlist_id).toBe(captionCases)
        const byId = yield* work.resolveChannel(
          account,
          channelRequest({
            channel_id: codeLab,
            handle: "@hochschule-offen",
            channel_url: "youtube.com/@northwindtalks"
          })
        )
        expect(byId.channel_id).toBe(codeLab)
        const byHandle = yield* work.resolveChannel(
          account,
          channelRequest({ handle: "practicalcodelab", channel_url: "youtube.com/@northwindtalks" })
        )
        expect(byHandle.channel_id).toBe(codeLab)
        // The reference used is the one checked: an unusable URL beside an id does not matter.
        const ignored = yield* work.resolveChannel(
          account,
          channelRequest({ channel_id: codeLab, channel_url: "https://example.com/nothing" })
        )
        expect(ignored.channel_id).toBe(codeLab)
      })
  )

  it.effect("a playlist's videos report their jobs once a batch carries them; the collection follows", () =>
    Effect.gen(function* () {
      const work = yield* CollectionWork
      const batches = yield* BatchWork
      const account = yield* createAccount({ plan: "pro", credits: 10 })
      const resolved = yield* work.resolvePlaylist(account, playlistRequest({ playlist_id: captionCases }))
      const ids = resolved.items.map((item) => item.video_id)
      expect(ids).toEqual([
        videos.germanOnly,
        videos.autoOnly,
        videos.noCaptions,
        videos.manualOnly,
        videos.multiLanguage
      ])
      const before = yield* work.playlist(account, resolved.id)
      expect(before.playlist.status).toBe("resolved")

      // Only the first three go to the batch.
      const batch = yield* batches.create(
        account,
        Schema.decodeUnknownSync(Api.BatchRequest)({ video_ids: ids.slice(0, 3), mode: "captions_only" })
      )
      const running = yield* work.playlist(account, resolved.id)
      expect(running.playlist.status).toBe("processing")
      expect(running.videos.map((video) => video.status)).toEqual([
        "processing",
        "processing",
        "processing",
        null,
        null
      ])
      for (const position of [0, 1, 2]) {
        const item = { lane: batchItemLane, id: `${batch.batch_id}:${position}`, accountId: account.id }
        yield* batches.runItem(item, "test", 30_000)
      }

      const done = yield* work.playlist(account, resolved.id)
      expect(done.videos.map((video) => [video.video_id, video.status])).toEqual([
        [videos.germanOnly, "completed"],
        [videos.autoOnly, "completed"],
        [videos.noCaptions, "failed"],
        [videos.manualOnly, null],
        [videos.multiLanguage, null]
      ])
      // The batch rule over the submitted videos: two of three succeeded.
      expect(done.playlist).toMatchObject({
        status: "partial",
        completed_count: 2,
        failed_count: 1,
        total_videos: 5,
        metadata: { batch_id: batch.batch_id }
      })
      expect(done.playlist.completed_at).not.toBeNull()
      const [item] = (yield* work.history(account, "playlist", { limit: 10 })).history
      expect(item).toMatchObject({ id: resolved.id, status: "partial", completed_count: 2, failed_count: 1 })
    })
  )

  it("interleaves round by round, each round newest first, up to the limit", () => {
    const at = (day: number) => ({ day, publishedAt: DateTime.unsafeMake(Date.UTC(2025, 0, day)) })
    const a = [at(20), at(10), at(5)]
    const b = [at(15), at(14), at(13), at(12)]
    const c = [at(30)]
    const days = (limit: number) => interleave([a, b, c], limit).map((x) => x.day)
    expect(days(100)).toEqual([30, 20, 15, 14, 10, 13, 5, 12])
    expect(days(4)).toEqual([30, 20, 15, 14])
    expect(days(2)).toEqual([30, 20])
    expect(interleave([], 5)).toEqual([])
  })
})

/** On the TestClock: the month is the UTC calendar month. */
layer(useCasesLayer(), { timeout: "60 seconds" })("channel jobs per calendar month", (it) => {
  it.effect("basic takes 3 a month, pro 8, business any; the cap resets when the UTC month turns", () =>
    Effect.gen(function* () {
      const work = yield* CollectionWork
      yield* TestClock.setTime(Date.parse("2026-10-31T23:59:00.000Z"))
      const resolve = (account: Parameters<typeof work.resolveChannel>[0]) =>
        work.resolveChannel(account, channelRequest({ handle: "hochschule-offen" }))
      for (const [plan, cap] of [
        ["basic", 3],
        ["pro", 8]
      ] as const) {
        const account = yield* createAccount({ plan })
        for (let n = 0; n < cap; n++) yield* resolve(account)
        const refused: Errors.ApiError = yield* expectApiError(resolve(account), "rate_limit_exceeded")
        expect(refused.status).toBe(429)
        expect(refused.details).toMatchObject({
          month: "2026-10",
          used: cap,
          limit: cap,
          resets_at: "2026-11-01T00:00:00.000Z",
          retry_after_seconds: 60
        })
        // Refused: nothing stored.
        expect((yield* work.history(account, "channel", { limit: 100 })).count).toBe(cap)
      }
      const business = yield* createAccount({ plan: "business" })
      for (let n = 0; n < 12; n++) yield* resolve(business)

      const basic = yield* createAccount({ plan: "basic" })
      for (let n = 0; n < 3; n++) yield* resolve(basic)
      yield* expectApiError(resolve(basic), "rate_limit_exceeded")
      yield* TestClock.setTime(Date.parse("2026-11-01T00:00:00.000Z"))
      const november = yield* resolve(basic)
      expect(november.channel_id).toBe("UCr2Ge8JfM5tNa0Yc3UvKq7S")
      expect((yield* work.history(basic, "channel", { limit: 100 })).count).toBe(4)
    })
  )
})
