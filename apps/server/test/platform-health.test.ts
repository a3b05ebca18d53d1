/**
 * GET /health/details (the operator's report; GET /health answers only its status) reports the video platform's last outcome over real HTTP, with the real
 * YouTube adapter answering from recordings: none before the platform is asked, then ok, blocked
 * or unreachable after each answer; it is information, never a reason to be unready.
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  answering,
  recordedVideos,
  recordedYouTube,
  replayFetch,
  replayLayer
} from "@verbatim/youtube/testing"
import { Effect } from "effect"
import { TestServer, testServerOn } from "./server.js"

/** A video whose /player answers 503 on every attempt: the platform cannot be reached. */
const unreachableVideo = "Unreachab01"

const Live = testServerOn({
  platform: replayLayer(
    replayFetch([
      answering(
        "/youtubei/v1/player",
        () => ({ status: 503, body: "" }),
        (r) => r.body.includes(unreachableVideo)
      ),
      ...recordedYouTube()
    ])
  )
})

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(Live, { timeout: "60 seconds", excludeTestServices: true })(
  "GET /health/details and the video platform",
  (it) => {
    describe("the last outcome", () => {
      it.effect("none, then ok, blocked, unreachable and ok again; the server stays ready throughout", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 10 })
          const health = Effect.map(server.get("/health/details"), (response) => {
            expect(response.status).toBe(200)
            expect(response.json).toMatchObject({ status: "ready", database: { status: "up" } })
            return (response.json as { video_platform: { status: string; at?: string; reason?: string } })
              .video_platform
          })
          const transcribe = (video: string) =>
            server.post("/api/v2/transcribe", { key, json: { video, mode: "captions_only" } })

          expect(yield* health).toEqual({ status: "none" })

          expect((yield* transcribe(recordedVideos.captioned)).status).toBe(200)
          const ok = yield* health
          expect(ok).toEqual({ status: "ok", at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })

          expect((yield* transcribe(recordedVideos.botCheck)).status).toBe(503)
          const blocked = yield* health
          expect(blocked).toMatchObject({ status: "blocked", reason: expect.stringMatching(/^bot_check: /) })

          expect((yield* transcribe(unreachableVideo)).status).toBe(503)
          expect(yield* health).toMatchObject({
            status: "unreachable",
            reason: expect.stringContaining("503")
          })

          // A refusal about one video is an answer: the platform is reachable again.
          expect((yield* transcribe(recordedVideos.unavailable)).status).toBe(404)
          expect(yield* health).toMatchObject({ status: "ok" })
        })
      )
    })
  }
)
