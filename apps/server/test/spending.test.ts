/**
 * Concurrent spending over real HTTP: many parallel POST /transcribe against a small balance never
 * drive it below zero, charge exactly what the balance covers, charge a transcript once however
 * many requests race for it, and leave the balance equal to the ledger: the initial grant minus
 * the credits_used of every job.
 */
import { expect, layer } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import {
  allJobs,
  balanceOf,
  decode,
  expectError,
  oldAccount,
  servableTranscripts,
  transcribe,
  transcriptList
} from "./support.js"

const keyOf = (t: { readonly video: string; readonly language: string; readonly source: string }) =>
  `${t.video}:${t.language}:${t.source}`

/** The balance is the grant minus what the jobs charged, and never negative. */
const expectLedger = (server: TestServerService, key: string, granted: number) =>
  Effect.gen(function* () {
    const jobs = yield* allJobs(server, key)
    const charged = jobs.reduce((sum, job) => sum + job.credits_used, 0)
    const balance = yield* balanceOf(server, key)
    expect(balance).toBeGreaterThanOrEqual(0)
    expect(balance).toBe(granted - charged)
    return { jobs, charged, balance }
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("concurrent spending", (it) => {
  it.effect("parallel requests for different transcripts against a balance of 3: exactly 3 are charged", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "business", credits: 3, createdAt: oldAccount })
      const responses = yield* Effect.all(
        servableTranscripts.map((t) => transcribe(server, key, { video: t.video, language: t.language })),
        { concurrency: "unbounded" }
      )
      const served = responses.filter((response) => response.status === 200)
      const refused = responses.filter((response) => response.status !== 200)
      expect(served).toHaveLength(3)
      expect(refused).toHaveLength(servableTranscripts.length - 3)
      for (const response of refused) expectError(response, 402, "payment_required")
      const bodies = yield* Effect.forEach(served, (response) => decode(Api.TranscribeCompleted, response))
      expect(bodies.map((body) => body.credits_used)).toEqual([1, 1, 1])
      const { balance, jobs } = yield* expectLedger(server, key, 3)
      expect(balance).toBe(0)
      expect(jobs).toHaveLength(servableTranscripts.length)
      expect(jobs.filter((job) => job.status === "failed")).toHaveLength(servableTranscripts.length - 3)
      const owned = (yield* transcriptList(server, key)).history
      expect(
        owned.map((item) => keyOf({ video: item.video_id, ...item, source: item.source_kind })).sort()
      ).toEqual(bodies.map((body) => keyOf({ video: body.data.video_id, ...body.data.transcript })).sort())
    })
  )

  it.effect("30 parallel requests over 9 transcripts against a balance of 3: 3 charged, repeats free", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "business", credits: 3, createdAt: oldAccount })
      const requests = Array.from(
        { length: 30 },
        (_, i) => servableTranscripts[i % servableTranscripts.length]
      )
      const responses = yield* Effect.all(
        requests.map((t) => transcribe(server, key, { video: t?.video, language: t?.language })),
        { concurrency: "unbounded" }
      )
      for (const response of responses) {
        if (response.status !== 200) expectError(response, 402, "payment_required")
      }
      const bodies = yield* Effect.forEach(
        responses.filter((response) => response.status === 200),
        (response) => decode(Api.TranscribeCompleted, response)
      )
      const charged = bodies.filter((body) => body.credits_used === 1)
      expect(charged).toHaveLength(3)
      expect(bodies.every((body) => body.credits_used === 0 || body.credits_used === 1)).toBe(true)
      const chargedKeys = new Set(
        charged.map((body) => keyOf({ video: body.data.video_id, ...body.data.transcript }))
      )
      expect(chargedKeys.size).toBe(3)
      // A free answer is a transcript that one of the charged requests paid for.
      for (const body of bodies) {
        expect(chargedKeys.has(keyOf({ video: body.data.video_id, ...body.data.transcript }))).toBe(true)
      }
      const { balance, jobs } = yield* expectLedger(server, key, 3)
      expect(balance).toBe(0)
      expect(jobs).toHaveLength(30)
      expect((yield* transcriptList(server, key)).history).toHaveLength(3)
    })
  )

  it.effect("30 parallel requests for the same video are charged once", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
      const first = servableTranscripts[0]
      const responses = yield* Effect.all(
        Array.from({ length: 30 }, () => transcribe(server, key, { video: first?.video })),
        { concurrency: "unbounded" }
      )
      expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200))
      const bodies = yield* Effect.forEach(responses, (response) => decode(Api.TranscribeCompleted, response))
      expect(bodies.reduce((sum, body) => sum + body.credits_used, 0)).toBe(1)
      expect(new Set(bodies.map((body) => body.job_id)).size).toBe(30)
      const { balance, charged, jobs } = yield* expectLedger(server, key, 5)
      expect(balance).toBe(4)
      expect(charged).toBe(1)
      expect(jobs).toHaveLength(30)
      const owned = (yield* transcriptList(server, key)).history
      expect(owned).toHaveLength(1)
      expect(owned[0]?.credits_used).toBe(1)
    })
  )

  it.effect("parallel requests for the same video with a balance of 1 never go below zero", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "business", credits: 1, createdAt: oldAccount })
      const responses = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) =>
          transcribe(server, key, { video: servableTranscripts[i % 2]?.video, mode: "captions_only" })
        ),
        { concurrency: "unbounded" }
      )
      const bodies = yield* Effect.forEach(
        responses.filter((response) => response.status === 200),
        (response) => decode(Api.TranscribeCompleted, response)
      )
      for (const response of responses) {
        if (response.status !== 200) expectError(response, 402, "payment_required")
      }
      expect(bodies.reduce((sum, body) => sum + body.credits_used, 0)).toBe(1)
      expect(new Set(bodies.map((body) => body.data.video_id)).size).toBe(1)
      const { balance } = yield* expectLedger(server, key, 1)
      expect(balance).toBe(0)
    })
  )
})
