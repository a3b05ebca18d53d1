import { readFileSync } from "node:fs"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { type EgressBudget, freshEgress, reserveEgress, VideoPlatform } from "@verbatim/core"
import { Captions, type Ids, type Language } from "@verbatim/domain"
import {
  Clock,
  DateTime,
  Duration,
  Effect,
  Either,
  Fiber,
  Layer,
  Option,
  Ref,
  Stream,
  TestClock
} from "effect"
import { decodeCatalogue } from "../src/catalogue.js"
import { channel, channelVideos, DemoCatalogue, playlist, playlistVideos } from "../src/lookup.js"
import * as DemoPlatform from "../src/platform.js"
import { shippedCataloguePath } from "../src/shipped.js"
import { syntheticCatalogue, syntheticPlaylistId, syntheticVideoId } from "../src/synthetic.js"
import { channelA, channelB, validJson } from "./fixtures.js"

const vid = (s: string) => s as Ids.VideoId
const lang = (s: string) => s as Language.LanguageCode
const track = (language: string, kind: "manual" | "auto", name: string | null = null) =>
  new Captions.CaptionTrack({ language: lang(language), kind, name })

const shipped = DemoPlatform.layer(shippedCataloguePath).pipe(Layer.provide(NodeContext.layer))

it.layer(shipped)("the demo platform over the shipped catalogue", (it) => {
  it.effect("streams a video's media file as its audio, the bytes of the file", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const audio = yield* platform.audio(vid("Wv5SpkDmo1A"), { maxDurationSeconds: 600 })
      expect(audio.mimeType).toBe("audio/wav")
      const bytes = yield* Stream.runFold(audio.bytes, 0, (n, chunk) => n + chunk.length)
      expect(bytes).toBe(readFileSync(new URL("../media/welcome.wav", import.meta.url)).length)
      expect(audio.contentLength).toBe(bytes)
    })
  )

  it.effect("answers AudioUnavailable for a video without media", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const error = yield* Effect.flip(platform.audio(vid("q3Lx8VbT2kA"), { maxDurationSeconds: 600 }))
      expect(error._tag).toBe("AudioUnavailable")
    })
  )

  it.effect("answers a video's details", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const details = yield* platform.video(vid("q3Lx8VbT2kA"))
      expect(details.id).toBe("q3Lx8VbT2kA")
      expect(details.title).toBe("Lightning Talk: Why Small Teams Ship Faster")
      expect(details.durationSeconds).toBe(92)
      expect(details.channelId).toBe("UCn7Wq2LxT9bKd3Rv8MpZs1A")
      expect(details.channelTitle).toBe("Northwind Talks")
      expect(details.publishedAt && DateTime.formatIso(details.publishedAt)).toBe("2024-03-14T16:00:00.000Z")
      expect(details.originalLanguage).toBe("en")
      expect(details.captionTracks).toEqual([
        track("en", "manual", "English"),
        track("en", "auto", "English (auto-generated)")
      ])
      expect(details.translationLanguages).toEqual(["de", "es", "fr", "ja", "pt"])
    })
  )

  it.effect("answers each track's own segments", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const manual = yield* platform.captions(vid("q3Lx8VbT2kA"), track("en", "manual"))
      const auto = yield* platform.captions(vid("q3Lx8VbT2kA"), track("en", "auto"))
      expect(manual[0]?.text).toBe("Good afternoon, everyone. Thanks for sticking around after lunch.")
      expect(auto[0]?.text).toBe("good afternoon everyone thanks for sticking around")
      expect(manual).toHaveLength(16)
      const german = yield* platform.captions(vid("Rt7mN0pWzYe"), track("de", "manual"))
      expect(german[0]?.text.startsWith("Ich beginne mit einem Geständnis")).toBe(true)
    })
  )

  it.effect("answers every track its details list, whatever the track's name", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const { catalogue } = yield* DemoCatalogue
      for (const video of catalogue.videos.filter((v) => v.unavailable === undefined)) {
        const details = yield* platform.video(video.id)
        for (const t of details.captionTracks) {
          const segments = yield* platform.captions(video.id, track(t.language, t.kind, "some other name"))
          expect(segments.length).toBeGreaterThanOrEqual(8)
        }
      }
    })
  )

  it.effect("matches a track's language case-insensitively (pt-br finds pt-BR)", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const segments = yield* platform.captions(vid("Wn1FgT8sLkE"), track("pt-br", "manual"))
      expect(segments[0]?.text.startsWith("Boa tarde!")).toBe(true)
    })
  )

  it.effect("fails with VideoUnavailable and the catalogue's reason for an unavailable video", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const error = yield* Effect.flip(platform.video(vid("Jm6VcX0bQpZ")))
      expect(error).toMatchObject({
        _tag: "VideoUnavailable",
        videoId: "Jm6VcX0bQpZ",
        reason: "This video is private."
      })
      const captions = yield* Effect.flip(platform.captions(vid("Jm6VcX0bQpZ"), track("en", "manual")))
      expect(captions._tag).toBe("VideoUnavailable")
    })
  )

  it.effect("fails with VideoUnavailable for an id not in the catalogue", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const error = yield* Effect.flip(platform.video(vid("nonexistent")))
      expect(error).toMatchObject({
        _tag: "VideoUnavailable",
        videoId: "nonexistent",
        reason: "video nonexistent is not in the demo catalogue"
      })
      const captions = yield* Effect.flip(platform.captions(vid("nonexistent"), track("en", "manual")))
      expect(captions._tag).toBe("VideoUnavailable")
      // ids are case-sensitive, as on the platform
      const cased = yield* Effect.flip(platform.video(vid("Q3LX8VBT2KA")))
      expect(cased._tag).toBe("VideoUnavailable")
    })
  )

  it.effect("fails with CaptionTrackNotFound for a track the video does not have", () =>
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const error = yield* Effect.flip(platform.captions(vid("gT4_hJk9LmQ"), track("en", "manual")))
      expect(error).toMatchObject({
        _tag: "CaptionTrackNotFound",
        videoId: "gT4_hJk9LmQ",
        language: "en",
        kind: "manual"
      })
      const none = yield* Effect.flip(platform.captions(vid("Pz8QeL1uWfH"), track("en", "auto")))
      expect(none._tag).toBe("CaptionTrackNotFound")
    })
  )

  it.effect(
    "offers what the caption choice needs: fallback to the original language and regional tracks",
    () =>
      Effect.gen(function* () {
        const platform = yield* VideoPlatform
        const german = yield* platform.video(vid("Xb2-vCw5NsD"))
        const chosen = Captions.chooseTrack(german.captionTracks, {
          mode: "captions_only",
          language: lang("en"),
          originalLanguage: german.originalLanguage
        })
        expect(Option.map(chosen, (t) => [t.language, t.kind])).toEqual(Option.some(["de", "manual"]))
        const portuguese = yield* platform.video(vid("Wn1FgT8sLkE"))
        const regional = Captions.chooseTrack(portuguese.captionTracks, {
          mode: "captions_only",
          language: lang("pt")
        })
        expect(Option.map(regional, (t) => t.language)).toEqual(Option.some("pt-BR"))
        const asr = yield* platform.video(vid("Hs3KdN7rTyU"))
        expect(asr.captionTracks).toEqual([])
        expect(asr.durationSeconds).toBeGreaterThan(480 * 60)
      })
  )

  it.effect("provides the loaded catalogue for the read helpers", () =>
    Effect.gen(function* () {
      const index = yield* DemoCatalogue
      expect(Option.map(channel(index, "@NorthwindTalks"), (c) => c.title)).toEqual(
        Option.some("Northwind Talks")
      )
      expect(Option.map(playlist(index, "PLnw4Tq8Zr2mBestOf2024"), (p) => p.videoIds.length)).toEqual(
        Option.some(5)
      )
    })
  )
})

describe("DemoPlatform.layer", () => {
  it.effect("fails with CatalogueInvalid when the file is missing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Layer.build(DemoPlatform.layer("/nonexistent/demo.json")).pipe(
          Effect.scoped,
          Effect.provide(NodeContext.layer)
        )
      )
      expect(error).toMatchObject({ _tag: "CatalogueInvalid", path: "/nonexistent/demo.json" })
    })
  )
})

describe("read helpers", () => {
  const index = DemoCatalogue.pipe(
    Effect.provide(DemoPlatform.fromCatalogue(Either.getOrThrow(decodeCatalogue(validJson()))))
  )

  it.effect("find a channel by id, or by handle with or without @ in any case", () =>
    Effect.gen(function* () {
      const i = yield* index
      const id = (lookup: string) => Option.map(channel(i, lookup), (c) => c.id)
      expect(id(channelA)).toEqual(Option.some(channelA))
      expect(id("channel-a")).toEqual(Option.some(channelA))
      expect(id("@Channel-A")).toEqual(Option.some(channelA))
      expect(id("channelb")).toEqual(Option.some(channelB))
      expect(id("@@channelb")).toEqual(Option.none())
      expect(id("UCzzzzzzzzzzzzzzzzzzzzzz")).toEqual(Option.none())
    })
  )

  it.effect("list a channel's videos newest first, unavailable ones included", () =>
    Effect.gen(function* () {
      const i = yield* index
      expect(channelVideos(i, channelA).map((v) => v.id)).toEqual(["aaaaaaaaaaa", "ccccccccccc"])
      expect(channelVideos(i, channelB).map((v) => v.id)).toEqual(["bbbbbbbbbbb"])
      expect(channelVideos(i, "UCzzzzzzzzzzzzzzzzzzzzzz")).toEqual([])
    })
  )

  it.effect("give a playlist and its videos in order, repeats kept", () =>
    Effect.gen(function* () {
      const i = yield* index
      expect(Option.map(playlist(i, "PLfirst"), (p) => p.title)).toEqual(Option.some("Mix"))
      expect(Option.map(playlistVideos(i, "PLfirst"), (vs) => vs.map((v) => v.id))).toEqual(
        Option.some(["aaaaaaaaaaa", "bbbbbbbbbbb", "aaaaaaaaaaa"])
      )
      expect(playlistVideos(i, "PLsecond")).toEqual(Option.some([]))
      expect(playlist(i, "PLnone")).toEqual(Option.none())
      expect(playlistVideos(i, "PLnone")).toEqual(Option.none())
    })
  )
})

describe("a synthetic catalogue, and answers made late", () => {
  it.effect("a synthetic catalogue of 3,000 videos is valid; its playlist holds them in order", () =>
    Effect.gen(function* () {
      const catalogue = Either.getOrThrow(decodeCatalogue(syntheticCatalogue(3_000)))
      expect(catalogue.videos).toHaveLength(3_000)
      const platform = yield* VideoPlatform.pipe(Effect.provide(DemoPlatform.fromCatalogue(catalogue)))
      const page = yield* platform.playlist(syntheticPlaylistId as Ids.PlaylistId)
      expect(page.videos.map((v) => v.id)).toEqual(Array.from({ length: 100 }, (_, i) => syntheticVideoId(i)))
      const details = yield* platform.video(vid(syntheticVideoId(2_999)))
      expect(details.captionTracks.map((t) => `${t.language} ${t.kind}`)).toEqual(["en manual"])
    })
  )

  it.effect("with latencyMs, no answer comes before that time has passed", () =>
    Effect.gen(function* () {
      const catalogue = Either.getOrThrow(decodeCatalogue(syntheticCatalogue(2)))
      const platform = yield* VideoPlatform.pipe(
        Effect.provide(DemoPlatform.fromCatalogue(catalogue, { latencyMs: 250 }))
      )
      const fiber = yield* Effect.fork(platform.video(vid(syntheticVideoId(1))))
      yield* TestClock.adjust("249 millis")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const details = yield* Fiber.join(fiber)
      expect(details.id).toBe(syntheticVideoId(1))
      const failing = yield* Effect.fork(Effect.flip(platform.video(vid("AAAAAAAAAAA"))))
      yield* TestClock.adjust("250 millis")
      expect((yield* Fiber.join(failing))._tag).toBe("VideoUnavailable")
    })
  )

  it.effect(
    "with pace, every request of every platform on the budget takes its slot: one start per interval",
    () =>
      Effect.gen(function* () {
        const catalogue = Either.getOrThrow(decodeCatalogue(syntheticCatalogue(2)))
        // The budget of core's rule in a Ref (the memory and Redis ones are tested in @verbatim/queue).
        const state = yield* Ref.make(freshEgress)
        const budget: EgressBudget["Type"] = {
          reserve: (_egress, rate) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Ref.modify(state, (current) => {
                const next = reserveEgress(current, rate, now)
                return [Duration.millis(next.waitMs), next.state] as const
              })
            ),
          pushBack: () => Effect.void,
          strikes: () => Effect.succeed(0)
        }
        const pace = { budget, egress: "demo", rate: { ratePerSecond: 4, burst: 1 } }
        const one = yield* VideoPlatform.pipe(Effect.provide(DemoPlatform.fromCatalogue(catalogue, { pace })))
        const two = yield* VideoPlatform.pipe(Effect.provide(DemoPlatform.fromCatalogue(catalogue, { pace })))
        const first = yield* Effect.fork(one.video(vid(syntheticVideoId(0))))
        const second = yield* Effect.fork(two.video(vid(syntheticVideoId(1))))
        const third = yield* Effect.fork(one.video(vid(syntheticVideoId(1))))
        yield* TestClock.adjust("0 millis")
        expect(Option.isSome(yield* Fiber.poll(first))).toBe(true)
        yield* TestClock.adjust("249 millis")
        expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
        yield* TestClock.adjust("1 millis")
        expect((yield* Fiber.join(second)).id).toBe(syntheticVideoId(1))
        expect(Option.isNone(yield* Fiber.poll(third))).toBe(true)
        yield* TestClock.adjust("250 millis")
        expect((yield* Fiber.join(third)).id).toBe(syntheticVideoId(1))
      })
  )
})
