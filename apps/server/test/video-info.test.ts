/**
 * GET /videos/info on YouTube as it really answers (recorded responses, `@verbatim/youtube/testing`;
 * nothing reaches the network): the free look before paying reads title, duration, the manual and
 * automatic caption languages and the translation targets of a recorded video, prices each mode
 * for the account, charges nothing, and a recorded refusal keeps its documented status and code.
 */
import { describe, expect, layer } from "@effect/vitest"
import { recordedVideos, recordedYouTube, replayFetch, replayLayer } from "@verbatim/youtube/testing"
import { Effect } from "effect"
import { TestServer, testServerOn } from "./server.js"

interface Info {
  readonly video_id: string
  readonly title: string | null
  readonly duration_seconds: number | null
  readonly manual_caption_languages: ReadonlyArray<string>
  readonly auto_caption_languages: ReadonlyArray<string>
  readonly translation_languages: ReadonlyArray<string>
  readonly default_mode: string
  readonly prices: ReadonlyArray<{
    mode: string
    source: string | null
    language: string | null
    credits: number
  }>
}

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ platform: replayLayer(replayFetch(recordedYouTube())) }), {
  timeout: "60 seconds",
  excludeTestServices: true
})("GET /videos/info on recorded YouTube", (it) => {
  describe("a recorded video", () => {
    it.effect("reads title, duration, caption and translation languages and each mode's price, free", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ credits: 5, defaultMode: "auto" })
        const answer = yield* server.get(
          `/api/v2/videos/info?video=${encodeURIComponent(`https://youtu.be/${recordedVideos.captioned}`)}`,
          { key }
        )
        expect(answer.status, answer.text).toBe(200)
        const info = answer.json as Info
        expect(info.video_id).toBe(recordedVideos.captioned)
        expect(info.title).toContain("Surface Go")
        expect(info.duration_seconds).toBe(316)
        expect([...info.manual_caption_languages].sort()).toEqual([
          "cs",
          "de",
          "en",
          "es",
          "hi",
          "ja",
          "ko",
          "zh"
        ])
        expect(info.auto_caption_languages).toEqual(["en"])
        expect(info.translation_languages.length).toBeGreaterThan(0)
        expect(info.default_mode).toBe("auto")
        expect(info.prices.find((price) => price.mode === "auto")).toMatchObject({
          source: "manual",
          credits: 1
        })
        expect(info.prices.find((price) => price.mode === "speech_to_text_only")?.source).toBe("asr")
        expect((yield* server.get("/api/v2/credits", { key })).json).toMatchObject({ credits: 5 })
      })
    )

    it.effect(
      "a video without captions prices speech recognition only; an unavailable one is its refusal",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 5 })
          const silent = yield* server.get(`/api/v2/videos/info?video=${recordedVideos.captionsDisabled}`, {
            key
          })
          expect(silent.status, silent.text).toBe(200)
          const info = silent.json as Info
          expect(info.manual_caption_languages).toEqual([])
          expect(info.prices.find((price) => price.mode === "captions_only")).toMatchObject({
            source: null,
            credits: 0
          })
          const gone = yield* server.get(`/api/v2/videos/info?video=${recordedVideos.ageRestricted}`, { key })
          expect(gone.status).toBeGreaterThanOrEqual(400)
          expect(gone.status).toBeLessThan(500)
          expect(gone.json).toMatchObject({ error: expect.any(String), message: expect.any(String) })
        })
    )
  })
})
