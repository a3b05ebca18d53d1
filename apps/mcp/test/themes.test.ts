/**
 * get_themes over Streamable HTTP, the in-process operations and the REST operations: free and
 * locked without unlock, 1 credit once with unlock (a repeat is free), anchors the transcript's
 * segments, and not_found for a video the account owns nothing of.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer, TestServerLive, type TestServerService } from "../../server/test/server.js"
import { balanceOf, transcribe, videos } from "../../server/test/support.js"
import { type Connected, call, callFailing, onEveryTransport } from "./support.js"

interface Keyword {
  readonly term: string
  readonly mentions: ReadonlyArray<{ readonly segment_index: number; readonly start: number }>
}

const tour = (server: TestServerService, mcp: Connected, key: string) =>
  Effect.gen(function* () {
    expect((yield* transcribe(server, key, { video: videos.manualOnly })).status).toBe(200)
    const locked = yield* call(mcp, "get_themes", { video_id: videos.manualOnly })
    expect(locked.structured).toMatchObject({
      status: "locked",
      credits_used: 0,
      credits_required: 1,
      themes: []
    })
    expect(yield* balanceOf(server, key)).toBe(2)

    const unlocked = yield* call(mcp, "get_themes", { video_id: videos.manualOnly, unlock: true })
    expect(unlocked.structured).toMatchObject({
      status: "completed",
      video_id: videos.manualOnly,
      credits_used: 1
    })
    const themes = unlocked.structured.themes as ReadonlyArray<{ readonly keywords: ReadonlyArray<Keyword> }>
    expect(themes.length).toBeGreaterThan(0)
    const transcript = (yield* server.get(`/api/v2/transcripts/${videos.manualOnly}`, { key })).json as {
      readonly segments: ReadonlyArray<{ readonly start: number }>
    }
    for (const keyword of themes.flatMap((t) => t.keywords)) {
      for (const mention of keyword.mentions) {
        expect(transcript.segments[mention.segment_index]?.start).toBe(mention.start)
      }
    }
    const again = yield* call(mcp, "get_themes", { video_id: videos.manualOnly, unlock: true })
    expect(again.structured).toMatchObject({ status: "completed", credits_used: 0 })
    expect(again.structured.themes).toEqual(unlocked.structured.themes)
    expect(yield* balanceOf(server, key)).toBe(1)
    expect((yield* callFailing(mcp, "get_themes", { video_id: videos.germanOnly, unlock: true })).error).toBe(
      "not_found"
    )
    expect(yield* balanceOf(server, key)).toBe(1)
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: 60_000, excludeTestServices: true })("get_themes", (it) => {
  it.effect("over Streamable HTTP, in process and over REST", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      yield* onEveryTransport(server, 3, (mcp, key) => tour(server, mcp, key))
    })
  )
})
