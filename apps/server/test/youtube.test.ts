/**
 * The server on YouTube, over real HTTP, with the real adapter answering from recorded YouTube
 * responses (`@verbatim/youtube/testing`; nothing reaches the network): a recorded video is
 * transcribed, stored, listed by language and exported; every recorded refusal becomes its
 * documented status and code.
 */
import { describe, expect, layer } from "@effect/vitest"
import { AssemblyAiStandIn, standInEngine } from "@verbatim/assemblyai/testing"
import {
  answering,
  fixture,
  recordedCollections,
  recordedVideos,
  recordedYouTube,
  replayFetch,
  replayLayer
} from "@verbatim/youtube/testing"
import { Effect, Layer } from "effect"
import { TestServer, testServerOn } from "./server.js"

/** A video whose /player answer is of a shape the adapter cannot read. */
const unreadableVideo = "Unreadabl01"

/** A captioned video (the recorded one's answer) of the age-gated channel. */
const gatedChannelVideo = "GatedChan01"
const gatedChannelPlayer = fixture("recorded/youtube.innertube.json.static").replace(
  /"channelId":\s*"UC[\w-]{22}"/,
  `"channelId": "${recordedCollections.ageGatedChannel}"`
)

// A speech engine stands in (AssemblyAI's stand-in) so that a job can start: its answers are not read here.
const YouTubeServerLive = Layer.unwrapEffect(
  Effect.map(AssemblyAiStandIn, (standIn) =>
    testServerOn({
      speech: standInEngine(standIn),
      platform: replayLayer(
        replayFetch([
          answering(
            "/youtubei/v1/player",
            () => ({ body: JSON.stringify({ playabilityStatus: { status: 42 } }) }),
            (r) => r.body.includes(unreadableVideo)
          ),
          answering(
            "/youtubei/v1/player",
            () => ({ body: gatedChannelPlayer }),
            (r) => r.body.includes(gatedChannelVideo)
          ),
          ...recordedYouTube()
        ])
      )
    })
  )
).pipe(Layer.provideMerge(AssemblyAiStandIn.layer({ recognise: () => "heard", pollsUntilDone: 1 })))

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(YouTubeServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the server on YouTube",
  (it) => {
    describe("a recorded video", () => {
      it.effect("is transcribed from its captions, stored, listed by language and exported", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 5 })
          const video = recordedVideos.captioned
          const first = yield* server.post("/api/v2/transcribe", {
            key,
            json: { video: `https://www.youtube.com/watch?v=${video}`, language: "en", mode: "captions_only" }
          })
          expect(first.status).toBe(200)
          expect(first.json).toMatchObject({
            status: "completed",
            credits_used: 1,
            data: { video_id: video, transcript: { language: "en", source: "manual" } }
          })
          const body = first.json as { data: { transcript: { text: string; segments: Array<unknown> } } }
          expect(body.data.transcript.segments.length).toBeGreaterThan(0)
          expect(body.data.transcript.text.length).toBeGreaterThan(0)

          const again = yield* server.post("/api/v2/transcribe", { key, json: { video, language: "en" } })
          expect(again.json).toMatchObject({ status: "completed", credits_used: 0 })

          const stored = yield* server.get(`/api/v2/transcripts/${video}`, { key })
          expect(stored.status).toBe(200)
          expect(stored.json).toMatchObject({
            video_id: video,
            language: "en",
            text: body.data.transcript.text
          })

          const languages = yield* server.get(`/api/v2/transcripts/${video}/languages`, { key })
          expect(languages.status).toBe(200)
          const listed = languages.json as {
            languages: Array<string>
            platform_translation_languages: Array<string>
          }
          expect(listed.languages).toEqual(["en"])
          expect(listed.platform_translation_languages.length).toBeGreaterThan(0)

          const srt = yield* server.get(`/api/v2/transcripts/${video}?format=srt`, { key })
          expect(srt.status).toBe(200)
          expect(srt.text).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d\r?\n/)
          const vtt = yield* server.get(`/api/v2/transcripts/${video}?format=vtt`, { key })
          expect(vtt.text.startsWith("WEBVTT")).toBe(true)

          const credits = yield* server.get("/api/v2/credits", { key })
          expect(credits.json).toMatchObject({ credits: 4 })
        })
      )
    })

    describe("every recorded refusal is its documented status and code, and charges nothing", () => {
      it.effect.each([
        [recordedVideos.ageRestricted, 403, "age_restricted"],
        [recordedVideos.botCheck, 503, "platform_blocked"],
        [recordedVideos.unavailable, 404, "video_unavailable"],
        [recordedVideos.unplayable, 404, "video_unavailable"],
        [recordedVideos.captionsDisabled, 404, "no_captions"],
        [recordedVideos.poTokenRequired, 503, "platform_blocked"],
        ["NeverSeen01", 404, "video_unavailable"],
        [recordedVideos.unknownId, 404, "video_unavailable"],
        [unreadableVideo, 503, "platform_unreadable"]
      ] as const)("%s: %i %s", ([video, status, code]) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 3 })
          const response = yield* server.post("/api/v2/transcribe", {
            key,
            json: { video, mode: "captions_only" }
          })
          expect(response.status).toBe(status)
          expect(response.json).toMatchObject({ error: code })
          const credits = yield* server.get("/api/v2/credits", { key })
          expect(credits.json).toMatchObject({ credits: 3 })
        })
      )
    })

    describe("YouTube as its pages really are", () => {
      it.effect(
        "an answer the adapter cannot read is 503 platform_unreadable with details.reason and path, never 500",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ credits: 3 })
            const response = yield* server.post("/api/v2/transcribe", {
              key,
              json: { video: unreadableVideo, mode: "captions_only" }
            })
            expect(response.status).toBe(503)
            expect(response.json).toMatchObject({
              error: "platform_unreadable",
              details: { path: "playabilityStatus.status" }
            })
            const details = (response.json as { details: { reason: unknown } }).details
            expect(details.reason).toEqual(expect.stringContaining("playabilityStatus.status"))
          })
      )

      it.effect(
        "the quote and the job's start say which language speech recognition would hear when only dubs are listed",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ credits: 3 })
            const quote = (video: string) =>
              server.post("/api/v2/transcribe/estimate", { key, json: { video } })
            const dubbed = yield* quote(recordedVideos.onlyDubs)
            expect(dubbed.status).toBe(200)
            expect(dubbed.json).toMatchObject({ source: "asr", dubbed_audio_language: "id" })
            const original = yield* quote(recordedVideos.severalAudioTracks)
            expect(original.status).toBe(200)
            expect(original.json).toMatchObject({ source: "asr" })
            expect(original.json).not.toHaveProperty("dubbed_audio_language")
            // The job's start says it too.
            const { key: paying } = yield* server.newAccount({ credits: 1000 })
            const started = yield* server.post("/api/v2/transcribe", {
              key: paying,
              json: { video: recordedVideos.onlyDubs, mode: "speech_to_text_only" }
            })
            expect(started.status, started.text).toBe(202)
            expect(started.json).toMatchObject({ status: "processing", dubbed_audio_language: "id" })
          })
      )

      it.effect(
        "recommendations leave out a transcribed channel that is now age-gated, as a removed one",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ credits: 3 })
            const transcribed = yield* server.post("/api/v2/transcribe", {
              key,
              json: { video: gatedChannelVideo, language: "en", mode: "captions_only" }
            })
            expect(transcribed.status).toBe(200)
            const response = yield* server.get("/api/v2/recommendations/videos", { key })
            expect(response.status).toBe(200)
            expect(response.json).toMatchObject({ recommendations: [], channels: [], count: 0 })
          })
      )

      it.effect(
        "a long channel resolves with every upload; an age-gated one is 403 channel_age_restricted",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "pro", credits: 3 })
            const long = yield* server.post("/api/v2/channels/resolve", {
              key,
              json: { channel_id: recordedCollections.longChannel.id, limit: 100 }
            })
            expect(long.status).toBe(200)
            expect(long.json).toMatchObject({
              channel_id: recordedCollections.longChannel.id,
              subscriber_count: recordedCollections.longChannel.subscribers,
              video_count: recordedCollections.longChannel.videos,
              total: recordedCollections.longChannel.uploads,
              truncated: false
            })
            expect((long.json as { items: Array<unknown> }).items).toHaveLength(
              recordedCollections.longChannel.uploads
            )
            const gated = yield* server.post("/api/v2/channels/resolve", {
              key,
              json: { channel_id: recordedCollections.ageGatedChannel }
            })
            expect(gated.status).toBe(403)
            expect(gated.json).toMatchObject({
              error: "channel_age_restricted",
              details: { channel_id: recordedCollections.ageGatedChannel }
            })
          })
      )
    })
  }
)
