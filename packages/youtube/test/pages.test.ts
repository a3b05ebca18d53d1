/**
 * YouTube as its pages really are, on hand-made answers in the shapes real ones have:
 * a Videos tab whose header and engagement panels carry continuation tokens after the grid's, a
 * channel page whose contents (with their "views" rows) come before its header, player answers
 * with several audio tracks (the dubs at higher bitrates), the `{}` YouTube answers for an id it
 * does not know, an age-gated channel, and answers the adapter cannot read.
 */
import { describe, expect, it } from "@effect/vitest"
import { collectUploads, VideoPlatform } from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { Effect, Either, HashMap, Logger, Option, Stream } from "effect"
import { audioTrackOf, chooseAudio, parseXtags, trackRank } from "../src/audio.js"
import { channelHead, listPage, listPaths } from "../src/browse.js"
import type { FormatJson } from "../src/player.js"
import { fixture, recordedCollections, recordedVideos } from "../src/testing.js"
import { answered, asTimePasses, at, requestsTo, vid, withPlatform } from "./support.js"

const json = (name: string): unknown => JSON.parse(fixture(`hand-made/${name}`))
const long = recordedCollections.longChannel
const longId = long.id as Ids.ChannelId
const gated = recordedCollections.ageGatedChannel as Ids.ChannelId

interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/** Runs `effect` with its log lines collected (and nothing printed). */
const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const lines: Array<Line> = []
    const logger = Logger.make<unknown, void>(({ logLevel, message, annotations }) => {
      lines.push({
        level: logLevel.label,
        message: String(Array.isArray(message) ? message[0] : message),
        annotations: Object.fromEntries(HashMap.toEntries(annotations))
      })
    })
    return effect.pipe(
      Effect.either,
      Effect.map((result) => ({ result, lines })),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    )
  })

const googlevideo = (r: { readonly url: URL }) => r.url.hostname.endsWith(".googlevideo.com")

describe("1. a channel's uploads: the Videos tab's own continuation", () => {
  it("reads the token of the grid's continuation item, not the header's or the engagement panels' later ones", () => {
    const page = listPage(json("browse_videos_tab_page1.hand-made.json"))
    expect(page?.videos).toHaveLength(30)
    expect(page?.continuation).toBe("hand-made-videos-tab-page-2")
    // The answer does carry other tokens, after the grid in the document.
    const text = fixture("hand-made/browse_videos_tab_page1.hand-made.json")
    expect(text.indexOf("engagement-panel-token-after-the-grid")).toBeGreaterThan(
      text.indexOf("hand-made-videos-tab-page-2")
    )
    expect(text).toContain("header-about-panel-token")
  })

  it.effect(
    "walks every page of a long channel; truncated only when the limit, not the end, stopped the walk",
    () =>
      asTimePasses(
        withPlatform((platform, replay) =>
          Effect.gen(function* () {
            const all = yield* collectUploads(longId, 1000)
            expect(all.videos).toHaveLength(long.uploads)
            expect(new Set(all.videos.map((v) => v.id)).size).toBe(long.uploads)
            expect(all.truncated).toBe(false)
            expect(all.videos[0]).toMatchObject({ id: "LongA001___", title: "Upload 1", durationSeconds: 61 })
            expect(all.videos[30]).toMatchObject({
              id: "LongB031___",
              title: "Upload 31",
              durationSeconds: 1925
            })
            const asked = requestsTo(replay, "/youtubei/v1/browse").map(
              (r) => (JSON.parse(r.body) as { continuation?: string }).continuation ?? "first"
            )
            expect(asked).toEqual(["first", "hand-made-videos-tab-page-2", "hand-made-videos-tab-page-3"])

            const exact = yield* collectUploads(longId, long.uploads)
            expect([exact.videos.length, exact.truncated]).toEqual([long.uploads, false])
            const limited = yield* collectUploads(longId, 40)
            expect([limited.videos.length, limited.truncated]).toEqual([40, true])
            const twoPages = yield* collectUploads(longId, 60)
            expect([twoPages.videos.length, twoPages.truncated]).toEqual([60, true])
          }).pipe(Effect.provideService(VideoPlatform, platform))
        )
      )
  )
})

describe("2. a channel's counts come from its header", () => {
  it("reads 8,840 subscribers and 258 videos though the contents' view-count rows come first", () => {
    const answer = json("browse_channel_contents_first.hand-made.json") as Record<string, unknown>
    const keys = Object.keys(answer)
    expect(keys.indexOf("contents")).toBeLessThan(keys.indexOf("header"))
    expect(fixture("hand-made/browse_channel_contents_first.hand-made.json")).toContain('"3 views"')
    expect(channelHead(answer, longId)).toEqual({
      title: "Long Channel",
      handle: "longchannel",
      subscriberCount: long.subscribers,
      videoCount: long.videos
    })
  })

  it.effect("through the platform, by id", () =>
    withPlatform((platform) =>
      Effect.map(platform.channel({ _tag: "Id", id: longId }), (channel) =>
        expect(channel).toEqual({
          id: longId,
          title: "Long Channel",
          handle: "longchannel",
          subscriberCount: 8840,
          videoCount: 258
        })
      )
    )
  )
})

describe("3. the audio speech recognition hears", () => {
  const format = (
    itag: number,
    bitrate: number,
    track?: object,
    extra: Partial<FormatJson> = {}
  ): FormatJson => ({
    itag,
    mimeType: itag === 251 ? 'audio/webm; codecs="opus"' : "audio/mp4",
    bitrate,
    url: `https://x.googlevideo.com/videoplayback?itag=${itag}&b=${bitrate}`,
    ...(track === undefined ? {} : { audioTrack: track }),
    ...extra
  })
  const urlOf = (formats: ReadonlyArray<FormatJson>, original: string | null = null) =>
    Option.map(chooseAudio(formats, original).format, (f) => f.url)

  it("reads xtags as YouTube writes them: base64 protobuf in the field, plain in the URL", () => {
    expect([...parseXtags("CggKA2RyYxIBMQ")]).toEqual([["drc", "1"]])
    expect([...parseXtags("acont=dubbed-auto:lang=id")]).toEqual([
      ["acont", "dubbed-auto"],
      ["lang", "id"]
    ])
    expect([...parseXtags("not base64 protobuf!")]).toEqual([])
    expect([...parseXtags(42)]).toEqual([])
    expect(
      audioTrackOf(
        format(
          140,
          1,
          { id: "pa.3", audioIsDefault: false },
          { url: "https://x/?xtags=acont%3Ddubbed%3Alang%3Dpa" }
        )
      )
    ).toEqual({ id: "pa.3", language: "pa", name: null, isDefault: false, content: "dubbed" })
  })

  it("takes the default original track over a dub at a higher bitrate", () => {
    const dub = format(140, 200_000, { id: "pa.3", audioIsDefault: false }, { xtags: "acont=dubbed:lang=pa" })
    const original = format(140, 100_000, { id: "en.4", audioIsDefault: true })
    expect(urlOf([dub, original])).toEqual(Option.some(original.url))
    // `acont=original` alone marks it too, and a dub marked default is still a dub.
    const marked = format(140, 90_000, { id: "en.4" }, { xtags: "acont=original" })
    const defaultDub = format(
      140,
      300_000,
      { id: "pa.3", audioIsDefault: true },
      { xtags: "acont=dubbed-auto" }
    )
    expect(urlOf([defaultDub, marked])).toEqual(Option.some(marked.url))
  })

  it("without a marked original, the track in the video's original language; then any; dubs last", () => {
    const french = format(140, 200_000, { id: "fr.3", audioIsDefault: false })
    const english = format(140, 100_000, { id: "en.4", audioIsDefault: false })
    expect(urlOf([french, english], "en")).toEqual(Option.some(english.url))
    expect(urlOf([french, english], null)).toEqual(Option.some(french.url))
    const dub = format(140, 300_000, { id: "de.3" }, { xtags: "acont=dubbed" })
    expect(urlOf([dub, french], "en")).toEqual(Option.some(french.url))
    expect(trackRank(audioTrackOf(dub), "de")).toBeGreaterThan(trackRank(audioTrackOf(french), "en"))
  })

  it("within the track, AAC before Opus, the full range before DRC, then the bitrate", () => {
    const track = { id: "en.4", audioIsDefault: true }
    const opus = format(251, 160_000, track)
    const drc = format(140, 131_000, track, { isDrc: true, xtags: "CggKA2RyYxIBMQ" })
    const aac = format(140, 130_000, track)
    expect(urlOf([opus, drc, aac])).toEqual(Option.some(aac.url))
  })

  it.effect(
    "downloads the original English track of a video with Punjabi, Indonesian and Spanish dubs, and logs the choice",
    () =>
      Effect.gen(function* () {
        const { result, lines } = yield* logged(
          withPlatform((platform) =>
            Effect.gen(function* () {
              const audio = yield* platform.audio(vid(recordedVideos.severalAudioTracks), {
                maxDurationSeconds: 600
              })
              expect(audio.heard).toEqual({ language: "en-US", dubbed: false })
              expect(audio.mimeType).toBe('audio/mp4; codecs="mp4a.40.2"')
              expect(audio.contentLength).toBe(4104)
              return audio
            })
          )
        )
        expect(Either.isRight(result)).toBe(true)
        const choice = lines.filter((l) => l.message.startsWith("youtube: audio chosen"))
        expect(choice).toHaveLength(1)
        expect(choice[0]?.annotations).toMatchObject({
          track: "en-US.4",
          track_language: "en-US",
          track_content: "original",
          original_language: "en"
        })
      })
  )

  it.effect("when only dubs are listed, says which language is heard (the default dub) and warns", () =>
    Effect.gen(function* () {
      const { result, lines } = yield* logged(
        withPlatform((platform) => platform.audio(vid(recordedVideos.onlyDubs), { maxDurationSeconds: 600 }))
      )
      expect(Either.map(result, (a) => [a.heard, a.contentLength])).toEqual(
        Either.right([{ language: "id", dubbed: true }, 4201])
      )
      expect(lines.filter((l) => l.level === "WARN" && l.message.includes("dub"))).toHaveLength(1)
    })
  )

  it.effect("the video's details say a dub would be heard only when only dubs are listed", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const dubs = yield* platform.video(vid(recordedVideos.onlyDubs))
        expect(dubs.audioDub).toEqual({ language: "id" })
        const original = yield* platform.video(vid(recordedVideos.severalAudioTracks))
        expect(original.audioDub).toBeUndefined()
        const single = yield* platform.video(vid(recordedVideos.captioned))
        expect(single.audioDub).toBeUndefined()
      })
    )
  )

  it.effect("a single-track video is read as before: its best AAC format", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const audio = yield* platform.audio(vid(recordedVideos.captioned), { maxDurationSeconds: 600 })
        expect([audio.contentLength, audio.heard]).toEqual([5116319, { language: null, dubbed: false }])
        expect(replay.requests.filter(googlevideo)).toEqual([])
      })
    )
  )
})

describe("4. an id YouTube does not know", () => {
  it.effect("its `{}` answer is 404 video_unavailable, kept like other unavailable answers", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const first = yield* Effect.flip(platform.video(vid(recordedVideos.unknownId)))
        expect(answered(first)).toEqual(["VideoUnavailable", "video_unavailable", 404])
        const again = yield* Effect.flip(platform.video(vid(recordedVideos.unknownId)))
        expect(answered(again)).toEqual(["VideoUnavailable", "video_unavailable", 404])
        expect(requestsTo(replay, "/youtubei/v1/player")).toHaveLength(1)
      })
    )
  )

  it.effect("a bare `{}` too", () =>
    withPlatform(
      (platform) =>
        Effect.map(Effect.flip(platform.video(vid("GJLlxj_dtq8"))), (error) =>
          expect(answered(error)).toEqual(["VideoUnavailable", "video_unavailable", 404])
        ),
      [at("/youtubei/v1/player", () => ({ body: "{}" }))]
    )
  )
})

describe("5. an age-gated channel", () => {
  it.effect("is ChannelRestricted, 403 channel_age_restricted, for its page and for its uploads", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const channel = yield* Effect.flip(platform.channel({ _tag: "Id", id: gated }))
        expect(answered(channel)).toEqual(["ChannelRestricted", "channel_age_restricted", 403])
        expect(channel).toMatchObject({ channelId: gated, restriction: "age_restricted" })
        const uploads = yield* Effect.flip(platform.uploads(gated))
        expect(answered(uploads)).toEqual(["ChannelRestricted", "channel_age_restricted", 403])
      })
    )
  )
})

describe("an answer the adapter cannot read", () => {
  const browseAt = (when: (body: string) => boolean, body: string) =>
    at(
      "/youtubei/v1/browse",
      () => ({ body }),
      (_, b) => when(b)
    )

  it.effect("a continuation answer with no items: 503 platform_unreadable naming the path, logged once", () =>
    Effect.gen(function* () {
      const { result, lines } = yield* logged(
        asTimePasses(
          withPlatform(
            (platform) => collectUploads(longId, 1000).pipe(Effect.provideService(VideoPlatform, platform)),
            [browseAt((b) => b.includes("hand-made-videos-tab-page-2"), '{"responseContext":{}}')]
          )
        )
      )
      if (Either.isRight(result)) return expect.unreachable("the walk read an unreadable page")
      expect(answered(result.left)).toEqual(["PlatformFailure", "platform_unreadable", 503])
      expect(result.left).toMatchObject({ path: listPaths.next })
      const warnings = lines.filter((l) => l.message === "youtube: an answer the adapter cannot read")
      expect(warnings).toHaveLength(1)
      expect(warnings[0]?.annotations).toMatchObject({ path: listPaths.next })
    })
  )

  it.effect("a /player answer of another shape names the path that failed", () =>
    withPlatform(
      (platform) =>
        Effect.map(Effect.flip(platform.video(vid("GJLlxj_dtq8"))), (error) => {
          expect(answered(error)).toEqual(["PlatformFailure", "platform_unreadable", 503])
          expect(error).toMatchObject({ path: "streamingData.adaptiveFormats[0].bitrate" })
        }),
      [
        at("/youtubei/v1/player", () => ({
          body: JSON.stringify({
            playabilityStatus: { status: "OK" },
            streamingData: { adaptiveFormats: [{ bitrate: "fast" }] }
          })
        }))
      ]
    )
  )

  it.effect("a caption track or an audio format whose URL is not a URL: 503, never a defect", () =>
    withPlatform(
      (platform) =>
        Effect.gen(function* () {
          const video = yield* platform.video(vid("GJLlxj_dtq8"))
          const track = video.captionTracks[0]
          if (track === undefined) return expect.unreachable("the answer lists a track")
          const captions = yield* Effect.flip(platform.captions(vid("GJLlxj_dtq8"), track))
          expect(answered(captions)).toEqual(["PlatformFailure", "platform_unreadable", 503])
          const audio = yield* platform.audio(vid("GJLlxj_dtq8"), { maxDurationSeconds: 600 })
          const bytes = yield* Effect.flip(Stream.runDrain(audio.bytes))
          expect(answered(bytes)).toEqual(["PlatformFailure", "platform_unreadable", 503])
        }),
      [
        at("/youtubei/v1/player", () => ({
          body: JSON.stringify({
            playabilityStatus: { status: "OK" },
            videoDetails: { videoId: "GJLlxj_dtq8", lengthSeconds: "60" },
            captions: {
              playerCaptionsTracklistRenderer: {
                captionTracks: [{ baseUrl: "http://[not a host", languageCode: "en" }]
              }
            },
            streamingData: {
              adaptiveFormats: [{ itag: 140, mimeType: "audio/mp4", url: "http://[", contentLength: "10" }]
            }
          })
        }))
      ]
    )
  )

  it.effect("a browse answer that shows no page at all", () =>
    withPlatform(
      (platform) =>
        Effect.gen(function* () {
          const channel = yield* Effect.flip(platform.channel({ _tag: "Id", id: longId }))
          expect(answered(channel)).toEqual(["PlatformFailure", "platform_unreadable", 503])
          const list = yield* Effect.flip(platform.uploads(longId))
          expect(answered(list)).toEqual(["PlatformFailure", "platform_unreadable", 503])
          expect(list).toMatchObject({ path: listPaths.first })
        }),
      [browseAt(() => true, '{"responseContext":{"visitorData":"x"}}')]
    )
  )
})
