/**
 * The typed client's requests are what a caller writes: against a running server, a query with only
 * the fields the caller means (the server's defaults fill the rest), a plain-object body without
 * `format` or `asr_options`, and an invalid literal refused by the client before anything is sent.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, ParseResult } from "effect"
import { TestServer, TestServerLive } from "./server.js"
import { balanceOf, oldAccount, videos } from "./support.js"

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "120 seconds", excludeTestServices: true })(
  "the typed client's requests",
  (it) => {
    it.effect(
      "only the required fields: a plain-object transcribe body, a job list with only limit, a transcript with no query",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
          const client = yield* server.client(key)
          const answer = yield* client.transcribe.transcribe({
            payload: { video: videos.manualAndAuto, mode: "captions_only" },
            headers: {}
          })
          expect(answer).toMatchObject({ status: "completed", credits_used: 1 })
          const jobs = yield* client.jobs.jobs({ urlParams: { limit: 2 } })
          expect(jobs.jobs.length).toBe(1)
          const videoId = answer.status === "completed" ? answer.data.video_id : ""
          const stored = yield* client.transcripts.get({ path: { video_id: videoId }, urlParams: {} })
          expect(stored).toMatchObject({ video_id: videoId })
          expect(yield* balanceOf(server, key)).toBe(4)
        })
    )

    it.effect("an invalid literal is refused by the client with a ParseError, and nothing is charged", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
        const client = yield* server.client(key)
        const refused = yield* Effect.flip(
          client.transcribe.transcribe({
            payload: { video: videos.manualAndAuto, mode: "fastest" as "captions_only" },
            headers: {}
          })
        )
        expect(ParseResult.isParseError(refused)).toBe(true)
        const badQuery = yield* Effect.flip(client.jobs.jobs({ urlParams: { limit: -1 } }))
        expect(ParseResult.isParseError(badQuery)).toBe(true)
        expect(yield* balanceOf(server, key)).toBe(5)
      })
    )
  }
)
