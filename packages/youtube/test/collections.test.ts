/** Playlists, channels, handles and legacy names on the hand-made browse and resolve answers. */
import { describe, expect, it } from "@effect/vitest"
import { collectPlaylist, VideoPlatform } from "@verbatim/core"
import { type Ids, Reference } from "@verbatim/domain"
import { DateTime, Effect, Either } from "effect"
import { channelHead, clockSeconds, countOf, errorAlert, listPage, playlistHead } from "../src/browse.js"
import { fixture, recordedCollections } from "../src/testing.js"
import { answered, replaying, requestsTo, withPlatform } from "./support.js"

const json = (name: string): unknown => JSON.parse(fixture(`hand-made/${name}`))
const channelId = recordedCollections.channel.id as Ids.ChannelId
const ref = (input: string) => Either.getOrThrow(Reference.parseChannel(input))

describe("browse answers", () => {
  it("list playable videos in order, skip what is not a video, and find the continuation", () => {
    const first = listPage(json("browse_playlist_page1.hand-made.json"))
    expect(first?.videos.map((v) => [v.id, v.durationSeconds])).toEqual([
      ["GJLlxj_dtq8", 316],
      ["F1xioXWb8CY", 1509],
      ["dsMFmonKDD4", 288]
    ])
    expect(first?.continuation).toBe("hand-made-playlist-page-2")
    const lockups = listPage(json("browse_uploads_page2.hand-made.json"))
    expect(lockups?.videos).toEqual([
      { id: "ZyXwVuTsR_9", title: "An older upload & its lockup", durationSeconds: 721, publishedAt: null },
      { id: "Qw3rTy_uIo1", title: "The oldest upload", durationSeconds: null, publishedAt: null }
    ])
    expect(lockups?.continuation).toBeNull()
  })

  it("read a playlist's head, and tell an error alert from an informational one", () => {
    expect(playlistHead(json("browse_playlist_page1.hand-made.json"))).toEqual({
      title: "Replayed videos (hand-made)",
      channelId: "UCVYamHliCI9rw1tHR1xbkfw",
      channelTitle: "Dave2D",
      videoCount: 6
    })
    expect(errorAlert(json("browse_playlist_page1.hand-made.json"))).toBeNull()
    expect(errorAlert(json("browse_playlist_missing.hand-made.json"))).toBe("The playlist does not exist.")
  })

  it("read a channel from the page header view model or from the older tabbed header", () => {
    expect(channelHead(json("browse_channel_UCVYamHliCI9rw1tHR1xbkfw.hand-made.json"), channelId)).toEqual({
      title: "Dave2D",
      handle: "Dave2D",
      subscriberCount: 3_580_000,
      videoCount: 1100
    })
    const older = {
      header: {
        c4TabbedHeaderRenderer: {
          channelId,
          title: "Older Header",
          channelHandleText: { runs: [{ text: "@older.header" }] },
          subscriberCountText: { simpleText: "12,345 subscribers" },
          videosCountText: { runs: [{ text: "No" }, { text: " videos" }] }
        }
      }
    }
    expect(channelHead(older, channelId)).toEqual({
      title: "Older Header",
      handle: "older.header",
      subscriberCount: 12345,
      videoCount: 0
    })
    expect(
      channelHead(
        { metadata: { channelMetadataRenderer: { title: "X", externalId: "UC0000000000000000000000" } } },
        channelId
      )
    ).toBeNull()
  })

  it("read counts and clock durations as YouTube writes them", () => {
    expect(
      [
        "1.23M subscribers",
        "12K videos",
        "1,234 videos",
        "1 subscriber",
        "No videos",
        "2B views",
        "many"
      ].map(countOf)
    ).toEqual([1_230_000, 12_000, 1234, 1, 0, 2_000_000_000, null])
    expect(["5:16", "1:02:03", "42", "12:1", "", "LIVE", null].map(clockSeconds)).toEqual([
      316,
      3723,
      42,
      721,
      null,
      null,
      null
    ])
  })
})

describe("the adapter's playlists and channels", () => {
  it.effect("a playlist: its head on every page, the two pages in order, and the limit", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const collected = yield* collectPlaylist(recordedCollections.playlist as Ids.PlaylistId, 100).pipe(
          Effect.provideService(VideoPlatform, platform)
        )
        expect(collected.head).toMatchObject({
          title: "Replayed videos (hand-made)",
          videoCount: 6,
          channelId
        })
        expect(collected.videos.map((v) => v.id)).toEqual([
          "GJLlxj_dtq8",
          "F1xioXWb8CY",
          "dsMFmonKDD4",
          "Fjg5lYqvzUs",
          "GJLlxj_dtq8"
        ])
        expect(collected.truncated).toBe(false)
        const second = yield* platform.playlist(
          recordedCollections.playlist as Ids.PlaylistId,
          "hand-made-playlist-page-2"
        )
        expect(second.title).toBe("Replayed videos (hand-made)")
        const browses = requestsTo(replay, "/youtubei/v1/browse").map((r) => JSON.parse(r.body))
        expect(browses.map((b) => b.browseId ?? b.continuation)).toEqual([
          "VLPLhandMadeReplayList",
          "hand-made-playlist-page-2"
        ])
        expect(browses[0].context.client.clientName).toBe("WEB")
      })
    )
  )

  it.effect(
    "a channel by id, @handle, /c/ and /user/ name resolves to one id; one that nobody has is 404",
    () =>
      withPlatform((platform, replay) =>
        Effect.gen(function* () {
          const inputs = [
            channelId,
            "@Dave2D",
            "dave2d",
            "https://www.youtube.com/c/Dave2D",
            "https://www.youtube.com/user/dave2d/videos"
          ]
          for (const input of inputs) {
            const channel = yield* platform.channel(ref(input))
            expect(channel, input).toEqual({
              id: channelId,
              title: "Dave2D",
              handle: "Dave2D",
              subscriberCount: 3_580_000,
              videoCount: 1100
            })
          }
          const resolved = requestsTo(replay, "/youtubei/v1/navigation/resolve_url").map(
            (r) => JSON.parse(r.body).url
          )
          expect(resolved).toEqual([
            "https://www.youtube.com/@dave2d",
            "https://www.youtube.com/c/dave2d",
            "https://www.youtube.com/user/dave2d"
          ])
          const missing = yield* Effect.flip(platform.channel(ref("@nobody-has-this-handle")))
          expect(answered(missing)).toEqual(["CollectionNotFound", "not_found", 404])
          expect(missing).toMatchObject({ id: "@nobody-has-this-handle" })
          const unknownId = yield* Effect.flip(platform.channel(ref("UCaaaaaaaaaaaaaaaaaaaaaa")))
          expect(answered(unknownId)).toEqual(["CollectionNotFound", "not_found", 404])
        })
      )
  )

  it.effect("uploads: newest first through the uploads playlist, dated from the channel's feed", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const first = yield* platform.uploads(channelId)
        expect(
          first.videos.map((v) => [v.id, v.publishedAt === null ? null : DateTime.formatIso(v.publishedAt)])
        ).toEqual([
          ["AbCdEfGhIj0", "2026-05-01T15:00:05.000Z"],
          ["GJLlxj_dtq8", "2018-08-02T13:00:08.000Z"]
        ])
        expect(first?.continuation).toBe("hand-made-uploads-page-2")
        const second = yield* platform.uploads(channelId, "hand-made-uploads-page-2")
        expect(second.videos.map((v) => v.id)).toEqual(["ZyXwVuTsR_9", "Qw3rTy_uIo1"])
        expect(second.continuation).toBeNull()
      })
    )
  )

  it.effect("uploads stay undated when the feed cannot be read", () => {
    const { layer } = replaying([
      { match: (r) => r.url.pathname === "/feeds/videos.xml", answer: () => ({ status: 404, body: "" }) }
    ])
    return Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const first = yield* platform.uploads(channelId)
      expect(first?.videos.map((v) => v.publishedAt)).toEqual([null, null])
    }).pipe(Effect.provide(layer))
  })
})
