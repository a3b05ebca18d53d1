/**
 * Playlists, channels and recommendations over real HTTP on the production wiring with the embedded
 * worker and the shipped demo catalogue: resolves are for paid plans (403 `plan_required`), list the
 * catalogue's playlists and channels by url, id or handle (with or without @) up to their limits
 * and caps, count channel jobs per month (429 past the cap), and answer a retry with the same
 * Idempotency-Key with the first answer; the batch that runs the listed videos is linked to the
 * collection, whose per-video status follows the batch's jobs; the histories list the collections;
 * recommendations are the newest uploads of the most transcribed channels, minus what the account
 * owns, interleaved, newest first, and free.
 */
import { expect, layer } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Option, Schema } from "effect"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import {
  api,
  balanceOf,
  decode,
  expectError,
  expectInvalid,
  oldAccount,
  unknownUuid,
  videos
} from "./support.js"

/** The shipped catalogue's playlists and channels. */
const catalogue = {
  bestOf: "PLnw4Tq8Zr2mBestOf2024",
  northwind: { id: "UCn7Wq2LxT9bKd3Rv8MpZs1A", handle: "northwindtalks", title: "Northwind Talks" },
  codeLab: { id: "UCk4Pz9HsV2mQw7Lt1XyBn6D", handle: "practicalcodelab", title: "Practical Code Lab" },
  hochschule: { id: "UCr2Ge8JfM5tNa0Yc3UvKq7S", handle: "hochschule-offen", title: "Hochschule Offen" }
} as const

/** The Best of 2024 playlist, in playlist order. */
const bestOf = ["q3Lx8VbT2kA", "Rt7mN0pWzYe", "Wn1FgT8sLkE", "Jm6VcX0bQpZ", "Hs3KdN7rTyU"]

const runBatch = (server: TestServerService, key: string, ids: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const accepted = yield* server.post(api("/batch"), {
      key,
      json: { video_ids: ids, mode: "captions_only" }
    })
    expect(accepted.status, accepted.text).toBe(202)
    const batch = yield* decode(Api.BatchProcessing, accepted)
    return yield* eventually(
      `batch ${batch.batch_id} to finish`,
      Effect.gen(function* () {
        const response = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
        return response.status === 200
          ? Option.some(yield* decode(Api.BatchFinished, response))
          : Option.none()
      })
    )
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })(
  "playlists and channels",
  (it) => {
    it.effect("resolves are for paid plans: the free plan answers 403 plan_required and lists nothing", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "free", credits: 5 })
        expectError(
          yield* server.post(api("/playlists/resolve"), { key, json: { playlist_id: catalogue.bestOf } }),
          403,
          "plan_required"
        )
        expectError(
          yield* server.post(api("/channels/resolve"), {
            key,
            json: { handle: `@${catalogue.northwind.handle}` }
          }),
          403,
          "plan_required"
        )
        // The free plan's bucket holds 2 requests: wait for it to refill.
        yield* Effect.sleep("1100 millis")
        const history = yield* decode(
          Api.CollectionHistoryResponse,
          yield* server.get(api("/playlists/history"), { key })
        )
        expect(history).toEqual({ history: [], count: 0 })
      })
    )

    it.effect("bad input is a 400 naming the field, an unknown playlist, channel or batch a 404", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "basic" })
        const playlist = (json: unknown) => server.post(api("/playlists/resolve"), { key, json })
        const channel = (json: unknown) => server.post(api("/channels/resolve"), { key, json })
        expectInvalid(yield* playlist({}), ["playlist_id"])
        expectInvalid(yield* playlist({ playlist_url: "https://example.com/playlist?list=PLx" }), [
          "playlist_url"
        ])
        expectInvalid(yield* playlist({ playlist_url: "https://www.youtube.com/watch?v=q3Lx8VbT2kA" }), [
          "playlist_url"
        ])
        expectInvalid(yield* playlist({ playlist_id: "has spaces" }), ["playlist_id"])
        expectInvalid(yield* playlist({ playlist_id: catalogue.bestOf, limit: 101 }), ["limit"])
        expectInvalid(yield* playlist({ playlist_id: catalogue.bestOf, limit: 0 }), ["limit"])
        expectInvalid(yield* channel({ limit: 3 }), ["channel_id"])
        expectInvalid(yield* channel({ handle: "@x" }), ["handle"])
        expectInvalid(yield* channel({ channel_id: "UCshort" }), ["channel_id"])
        expectInvalid(yield* channel({ channel_url: "https://youtu.be/q3Lx8VbT2kA" }), ["channel_url"])
        expectInvalid(yield* channel({ handle: catalogue.northwind.handle, limit: 0 }), ["limit"])
        expectInvalid(yield* server.get(api("/playlists/not*an*id"), { key }), ["playlist_id"])
        expectInvalid(yield* server.get(api(`/channels/${catalogue.bestOf}`), { key }), ["channel_id"])
        expectInvalid(yield* server.get(api("/channels/history?limit=101"), { key }), ["limit"])

        expectError(yield* playlist({ playlist_id: "PLnotInTheCatalogue" }), 404, "not_found")
        expectError(yield* channel({ handle: "nobody-here" }), 404, "not_found")
        expectError(yield* server.get(api(`/playlists/${unknownUuid}`), { key }), 404, "not_found")
        expectError(yield* server.get(api(`/channels/${catalogue.northwind.id}`), { key }), 404, "not_found")
      })
    )

    it.effect("a playlist resolves, its batch runs, and GET /playlists/{id} reports each video's job", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "basic", credits: 10, createdAt: oldAccount })
        const other = yield* server.newAccount({ plan: "basic" })

        const short = yield* decode(
          Api.PlaylistResolveResponse,
          yield* server.post(api("/playlists/resolve"), {
            key,
            json: { playlist_url: `https://www.youtube.com/playlist?list=${catalogue.bestOf}`, limit: 2 }
          })
        )
        expect(short).toMatchObject({ playlist_id: catalogue.bestOf, total: 2, truncated: true })
        expect(short.items.map((item) => item.video_id)).toEqual(bestOf.slice(0, 2))

        const resolved = yield* decode(
          Api.PlaylistResolveResponse,
          yield* server.post(api("/playlists/resolve"), { key, json: { playlist_id: catalogue.bestOf } })
        )
        expect(resolved).toMatchObject({
          playlist_id: catalogue.bestOf,
          title: "Northwind Talks: Best of 2024",
          total: 5,
          truncated: false
        })
        expect(resolved.items.map((item) => item.video_id)).toEqual(bestOf)
        expect(resolved.items[0]).toMatchObject({
          title: "Lightning Talk: Why Small Teams Ship Faster",
          url: `https://www.youtube.com/watch?v=${bestOf[0]}`
        })
        // Listing is metadata only: nothing charged.
        expect(yield* balanceOf(server, key)).toBe(10)

        const before = yield* decode(
          Api.PlaylistBatchResponse,
          yield* server.get(api(`/playlists/${resolved.id}`), { key })
        )
        expect(before.playlist).toMatchObject({
          id: resolved.id,
          playlist_id: catalogue.bestOf,
          playlist_url: `https://www.youtube.com/playlist?list=${catalogue.bestOf}`,
          total_videos: 5,
          completed_count: 0,
          failed_count: 0,
          status: "resolved",
          started_at: null,
          completed_at: null
        })
        expect(before.videos.map((video) => [video.id, video.video_id, video.status])).toEqual(
          resolved.items.map((item) => [item.id, item.video_id, null])
        )

        // The spec's flow: the video ids go to POST /batch.
        const batch = yield* runBatch(
          server,
          key,
          resolved.items.map((item) => item.video_id)
        )
        expect(batch.status).toBe("partial")
        const after = yield* decode(
          Api.PlaylistBatchResponse,
          yield* server.get(api(`/playlists/${resolved.id}`), { key })
        )
        expect(after.playlist).toMatchObject({
          status: "partial",
          completed_count: 3,
          failed_count: 2,
          metadata: { batch_id: batch.batch_id }
        })
        expect(after.playlist.started_at).not.toBeNull()
        expect(after.playlist.completed_at).not.toBeNull()
        expect(after.videos.map((video) => [video.video_id, video.status])).toEqual([
          [bestOf[0], "completed"],
          [bestOf[1], "completed"],
          [bestOf[2], "completed"],
          // Private, and without captions: each failed with its job's error.
          [bestOf[3], "failed"],
          [bestOf[4], "failed"]
        ])
        expect(after.videos[3]?.error).toMatch(/unavailable|private/i)
        expect(after.videos[4]?.error).not.toBeNull()
        expect(after.videos.every((video) => (video.status === "completed") === (video.error === null))).toBe(
          true
        )
        expect(after.videos.every((video) => video.finished_at !== null)).toBe(true)
        // Each video's status is its batch result's.
        expect(after.videos.map((video) => video.status)).toEqual(
          batch.results.map((result) => result.status)
        )

        // The playlist id names the latest collection of it; another account sees none.
        const latest = yield* decode(
          Api.PlaylistBatchResponse,
          yield* server.get(api(`/playlists/${catalogue.bestOf}`), { key })
        )
        expect(latest.playlist.id).toBe(resolved.id)
        expectError(yield* server.get(api(`/playlists/${resolved.id}`), { key: other.key }), 404, "not_found")
        // A resolved collection is not a channel batch.
        expectError(yield* server.get(api(`/channels/${resolved.id}`), { key }), 404, "not_found")

        // The earlier, shorter resolve was linked to the same batch (it carries its videos).
        const history = yield* decode(
          Api.CollectionHistoryResponse,
          yield* server.get(api("/playlists/history"), { key })
        )
        expect(history.count).toBe(2)
        expect(
          history.history.map((item) => [item.id, item.status, item.total_videos, item.completed_count])
        ).toEqual([
          [resolved.id, "partial", 5, 3],
          [short.id, "completed", 2, 2]
        ])
        expect(history.history[0]).toMatchObject({
          playlist_id: catalogue.bestOf,
          playlist_title: "Northwind Talks: Best of 2024",
          channel_id: catalogue.northwind.id,
          channel_title: catalogue.northwind.title,
          failed_count: 2
        })
        const channels = yield* decode(
          Api.CollectionHistoryResponse,
          yield* server.get(api("/channels/history"), { key })
        )
        expect(channels.count).toBe(0)
      })
    )

    it.effect(
      "a channel resolves by id, handle with or without @, or URL; newest first, capped by the limit",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          const resolve = (json: unknown) =>
            server
              .post(api("/channels/resolve"), { key, json })
              .pipe(Effect.flatMap((r) => decode(Api.ChannelResolveResponse, r)))
          const codeLab = [
            yield* resolve({ channel_id: catalogue.codeLab.id }),
            yield* resolve({ handle: `@${catalogue.codeLab.handle}` }),
            yield* resolve({ handle: catalogue.codeLab.handle }),
            yield* resolve({ channel_url: `https://www.youtube.com/@${catalogue.codeLab.handle}/videos` }),
            yield* resolve({ channel_url: `https://www.youtube.com/channel/${catalogue.codeLab.id}` })
          ]
          for (const answer of codeLab) {
            expect(answer).toMatchObject({
              channel_id: catalogue.codeLab.id,
              channel_title: catalogue.codeLab.title,
              subscriber_count: 132900,
              total: 5,
              truncated: false
            })
            // Newest first, with their dates and durations.
            expect(answer.items.map((item) => item.video_id)).toEqual([
              "Kt9SpkDmo2B",
              "Wv5SpkDmo1A",
              "Pz8QeL1uWfH",
              "gT4_hJk9LmQ",
              "Ky5RdP2hMvC"
            ])
          }
          expect(codeLab[0]?.items[0]).toMatchObject({ duration_seconds: 5 })
          expect(codeLab[0]?.items[0]?.published_at?.toString()).toContain("2025-01-16")
          const limited = yield* resolve({ channel_id: catalogue.codeLab.id, limit: 2 })
          expect(limited).toMatchObject({ total: 2, truncated: true })
          expect(limited.items.map((item) => item.video_id)).toEqual(["Kt9SpkDmo2B", "Wv5SpkDmo1A"])
          // Business is unlimited: six channel jobs this month, all answered.
          const history = yield* decode(
            Api.CollectionHistoryResponse,
            yield* server.get(api("/channels/history"), { key })
          )
          expect(history.count).toBe(6)
          expect(history.history[0]).toMatchObject({
            id: limited.id,
            channel_id: catalogue.codeLab.id,
            status: "resolved"
          })
          const two = yield* decode(
            Api.CollectionHistoryResponse,
            yield* server.get(api("/channels/history?limit=2"), { key })
          )
          expect(two.history.map((item) => item.id)).toEqual(
            history.history.slice(0, 2).map((item) => item.id)
          )
        })
    )

    it.effect("the plan's channel jobs per month: basic takes 3, the 4th is 429 with Retry-After", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "basic" })
        const resolve = (json: unknown) => server.post(api("/channels/resolve"), { key, json })
        for (const handle of ["northwindtalks", "@practicalcodelab", "hochschule-offen"]) {
          expect((yield* resolve({ handle })).status).toBe(200)
        }
        const refused = yield* resolve({ handle: "northwindtalks" })
        expectError(refused, 429, "rate_limit_exceeded")
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
        expect((refused.json as { details: unknown }).details).toMatchObject({ limit: 3, used: 3 })
        // A failed resolve (unknown channel) takes no job; playlists are not channel jobs.
        const pro = yield* server.newAccount({ plan: "pro" })
        expectError(
          yield* server.post(api("/channels/resolve"), { key: pro.key, json: { handle: "nobody-here" } }),
          404,
          "not_found"
        )
        for (let n = 0; n < 8; n++) {
          const answer = yield* server.post(api("/channels/resolve"), {
            key: pro.key,
            json: { channel_id: catalogue.hochschule.id }
          })
          expect(answer.status, answer.text).toBe(200)
        }
        expectError(
          yield* server.post(api("/channels/resolve"), {
            key: pro.key,
            json: { channel_id: catalogue.hochschule.id }
          }),
          429,
          "rate_limit_exceeded"
        )
        expect(
          (yield* server.post(api("/playlists/resolve"), {
            key: pro.key,
            json: { playlist_id: catalogue.bestOf }
          })).status
        ).toBe(200)
      })
    )

    it.effect(
      "a retry with the same Idempotency-Key answers the first answer and takes no second channel job",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "basic" })
          const send = (idempotencyKey: string, json: unknown) =>
            server.post(api("/channels/resolve"), {
              key,
              json,
              headers: { "idempotency-key": idempotencyKey }
            })
          const first = yield* send("resolve-1", { handle: "@northwindtalks" })
          expect(first.status).toBe(200)
          // The same request (a handle is the same with or without @).
          const again = yield* send("resolve-1", { handle: "northwindtalks" })
          expect(again.status).toBe(200)
          expect(again.json).toEqual(first.json)
          expectError(yield* send("resolve-1", { handle: "practicalcodelab" }), 409, "conflict")
          // One channel job was taken: two more pass, then the cap.
          expect((yield* send("resolve-2", { handle: "practicalcodelab" })).status).toBe(200)
          expect((yield* send("resolve-3", { handle: "hochschule-offen" })).status).toBe(200)
          expectError(yield* send("resolve-4", { handle: "northwindtalks" }), 429, "rate_limit_exceeded")
          const history = yield* decode(
            Api.CollectionHistoryResponse,
            yield* server.get(api("/channels/history"), { key })
          )
          expect(history.count).toBe(3)

          const playlist = yield* server.post(api("/playlists/resolve"), {
            key,
            json: { playlist_id: catalogue.bestOf },
            headers: { "idempotency-key": "playlist-1" }
          })
          const replay = yield* server.post(api("/playlists/resolve"), {
            key,
            json: { playlist_id: catalogue.bestOf },
            headers: { "idempotency-key": "playlist-1" }
          })
          expect(replay.json).toEqual(playlist.json)
          const playlists = yield* decode(
            Api.CollectionHistoryResponse,
            yield* server.get(api("/playlists/history"), { key })
          )
          expect(playlists.count).toBe(1)
        })
    )

    it.effect("a channel's batch: GET /channels/{id} follows it to completed", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
        const resolved = yield* decode(
          Api.ChannelResolveResponse,
          yield* server.post(api("/channels/resolve"), { key, json: { handle: "@hochschule-offen" } })
        )
        expect(resolved.items.map((item) => item.video_id)).toEqual([videos.germanOnly])
        const batch = yield* runBatch(server, key, [videos.germanOnly])
        expect(batch.status).toBe("completed")
        const channel = yield* decode(
          Api.ChannelBatchResponse,
          yield* server.get(api(`/channels/${resolved.id}`), { key })
        )
        expect(channel.channel).toMatchObject({
          id: resolved.id,
          channel_id: catalogue.hochschule.id,
          channel_title: catalogue.hochschule.title,
          channel_url: `https://www.youtube.com/channel/${catalogue.hochschule.id}`,
          total_videos: 1,
          completed_count: 1,
          failed_count: 0,
          status: "completed",
          metadata: { batch_id: batch.batch_id, handle: "@hochschule-offen" }
        })
        expect(channel.videos.map((video) => [video.video_id, video.status, video.error])).toEqual([
          [videos.germanOnly, "completed", null]
        ])
        // By the channel id: the latest collection of the channel.
        const latest = yield* decode(
          Api.ChannelBatchResponse,
          yield* server.get(api(`/channels/${catalogue.hochschule.id}`), { key })
        )
        expect(latest.channel.id).toBe(resolved.id)
        // A later batch of the same video changes nothing: the collection stays linked to its batch.
        yield* runBatch(server, key, [videos.germanOnly])
        const still = yield* decode(
          Api.ChannelBatchResponse,
          yield* server.get(api(`/channels/${resolved.id}`), { key })
        )
        expect(still.channel.metadata).toMatchObject({ batch_id: batch.batch_id })
      })
    )
  }
)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })("recommendations", (it) => {
  it.effect("newest uploads of the most transcribed channels, minus what is owned, interleaved, free", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "basic", credits: 5, createdAt: oldAccount })
      // Available on every plan: a free account asks too.
      const free = yield* server.newAccount({ plan: "free" })
      expect((yield* server.get(api("/recommendations/videos"), { key: free.key })).status).toBe(200)
      const empty = yield* decode(
        Api.RecommendationsResponse,
        yield* server.get(api("/recommendations/videos"), { key })
      )
      expect(empty).toEqual({ recommendations: [], channels: [], count: 0 })

      // Two Northwind videos and one of Practical Code Lab.
      const batch = yield* runBatch(server, key, [
        videos.manualAndAuto,
        videos.multiLanguage,
        videos.autoOnly
      ])
      expect(batch.status).toBe("completed")
      const balance = yield* balanceOf(server, key)

      const all = yield* decode(
        Api.RecommendationsResponse,
        yield* server.get(api("/recommendations/videos"), { key })
      )
      expect(all.channels).toEqual([
        {
          channel_id: catalogue.northwind.id,
          channel_title: catalogue.northwind.title,
          transcribed_count: 2
        },
        { channel_id: catalogue.codeLab.id, channel_title: catalogue.codeLab.title, transcribed_count: 1 }
      ])
      // Round by round (each channel's newest not owned), each round newest first; 6 by default.
      expect(all.recommendations.map((video) => video.video_id)).toEqual([
        "Kt9SpkDmo2B",
        "Hs3KdN7rTyU",
        "Wv5SpkDmo1A",
        "Wn1FgT8sLkE",
        "Pz8QeL1uWfH",
        "Jm6VcX0bQpZ"
      ])
      expect(all.count).toBe(6)
      expect(all.recommendations[0]).toMatchObject({
        title: "Speech Demo: In the Kitchen",
        url: "https://www.youtube.com/watch?v=Kt9SpkDmo2B",
        thumbnail_url: "https://i.ytimg.com/vi/Kt9SpkDmo2B/hqdefault.jpg",
        duration_seconds: 5,
        channel_id: catalogue.codeLab.id,
        channel_title: catalogue.codeLab.title
      })
      const owned = [videos.manualAndAuto, videos.multiLanguage, videos.autoOnly]
      expect(all.recommendations.some((video) => owned.includes(video.video_id as never))).toBe(false)

      const three = yield* decode(
        Api.RecommendationsResponse,
        yield* server.get(api("/recommendations/videos?limit=3"), { key })
      )
      expect(three.recommendations.map((video) => video.video_id)).toEqual([
        "Kt9SpkDmo2B",
        "Hs3KdN7rTyU",
        "Wv5SpkDmo1A"
      ])
      const one = yield* decode(
        Api.RecommendationsResponse,
        yield* server.get(api("/recommendations/videos?channels=1&limit=30"), { key })
      )
      expect(one.channels.map((channel) => channel.channel_id)).toEqual([catalogue.northwind.id])
      expect(one.recommendations.map((video) => video.video_id)).toEqual([
        "Hs3KdN7rTyU",
        "Wn1FgT8sLkE",
        "Jm6VcX0bQpZ"
      ])

      expectInvalid(yield* server.get(api("/recommendations/videos?limit=31"), { key }), ["limit"])
      expectInvalid(yield* server.get(api("/recommendations/videos?channels=11"), { key }), ["channels"])
      expectInvalid(yield* server.get(api("/recommendations/videos?limit=0"), { key }), ["limit"])
      // Free: nothing charged.
      expect(yield* balanceOf(server, key)).toBe(balance)
      expect(Schema.is(Api.RecommendationsResponse)(all)).toBe(true)
    })
  )
})
