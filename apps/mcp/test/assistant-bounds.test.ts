/**
 * Bounded answers on every assistant surface, on a 3-hour transcript (2,700 segments, built here):
 * every GPT Actions operation (the document's server, /api/v2/gpt) answers at most 90,000
 * characters, a transcript longer than that as its head with the readTranscript call for the rest,
 * which succeeds as named; the same routes over REST keep the spec's whole answer.
 */
import { describe, expect, layer } from "@effect/vitest"
import { gptBasePath } from "@verbatim/api"
import { AnswerBounds } from "@verbatim/core"
import { demoPlatform } from "@verbatim/runtime"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Option } from "effect"
import { TestServer, testServerOn } from "../../server/test/server.js"
import { catalogueWithThreeHours } from "./support.js"

const threeHours = "ThreeHrs_02"
const segmentCount = 2_700

const segments = Array.from({ length: segmentCount }, (_, i) => ({
  text: `Line ${i + 1}: the speaker explains "graphs", queues & the order of visits, once more and again.`,
  start: i * 4_000,
  end: i * 4_000 + 3_900
}))

const catalogueFile = (): string => catalogueWithThreeHours(threeHours, segments)

interface Cut {
  readonly text: string
  readonly segments: ReadonlyArray<{ readonly text: string }>
  readonly truncated: boolean
  readonly segments_included: number
  readonly segment_count: number
  readonly note: string
  readonly continue_with: {
    readonly operation: string
    readonly path: string
    readonly query: Record<string, string>
  }
}

const limit = AnswerBounds.assistantAnswerLimit

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ platform: demoPlatform(catalogueFile()) }), {
  timeout: 180_000,
  excludeTestServices: true
})("a 3-hour transcript to an assistant", (it) => {
  describe("every GPT operation answers at most 90,000 characters", () => {
    it.scoped(
      "transcribeVideo, getJob, getTranscript and getBatch answer the head and the call for the rest",
      () =>
        Effect.gen(function* () {
          expect(limit).toBe(90_000)
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business" })
          const gpt = (path: string) => `${gptBasePath}${path}`

          // The call an answer names for the rest succeeds as sent, and reads on from the head.
          const followed = (cut: Cut) =>
            Effect.gen(function* () {
              expect(cut.truncated).toBe(true)
              expect(cut.segment_count).toBe(segmentCount)
              expect(cut.segments_included).toBeGreaterThan(10)
              expect(cut.segments).toHaveLength(cut.segments_included)
              expect(cut.segments.map((s) => s.text)).toEqual(
                segments.slice(0, cut.segments_included).map((s) => s.text)
              )
              expect(cut.note).toContain("readTranscript")
              expect(cut.continue_with.operation).toBe("readTranscript")
              const query = new URLSearchParams({ ...cut.continue_with.query, format: "timed" })
              const page = yield* server.get(gpt(`${cut.continue_with.path}?${query}`), { key })
              expect(page.status, page.text).toBe(200)
              expect(page.text.length).toBeLessThanOrEqual(limit)
              return page.json as { readonly segments: ReadonlyArray<{ readonly segment: number }> }
            })

          const transcribed = yield* server.post(gpt("/transcribe"), { key, json: { video: threeHours } })
          expect(transcribed.status, transcribed.text.slice(0, 500)).toBe(200)
          expect(transcribed.text.length).toBeLessThanOrEqual(limit)
          const answer = transcribed.json as {
            job_id: string
            credits_used: number
            data: { transcript: Cut }
          }
          expect(answer.credits_used).toBe(1)
          yield* followed(answer.data.transcript)

          const job = yield* server.get(gpt(`/jobs/${answer.job_id}`), { key })
          expect(job.status, job.text.slice(0, 500)).toBe(200)
          expect(job.text.length).toBeLessThanOrEqual(limit)
          yield* followed((job.json as { data: { transcript: Cut } }).data.transcript)

          const stored = yield* server.get(gpt(`/transcripts/${threeHours}`), { key })
          expect(stored.status, stored.text.slice(0, 500)).toBe(200)
          expect(stored.text.length).toBeLessThanOrEqual(limit)
          const cut = stored.json as Cut
          // The stored transcript's id is known: the cursor reads on right after the head.
          expect(cut.continue_with.query.cursor).toBeTypeOf("string")
          const next = yield* followed(cut)
          expect(next.segments[0]?.segment).toBe(cut.segments_included)

          const batch = yield* server.post(gpt("/batch"), { key, json: { video_ids: [threeHours] } })
          expect(batch.status, batch.text).toBe(202)
          const batchId = (batch.json as { batch_id: string }).batch_id
          const finished = yield* eventually(
            "the batch to finish",
            Effect.map(server.get(gpt(`/batch/${batchId}`), { key }), (response) =>
              response.status === 202 ? Option.none() : Option.some(response)
            ),
            60_000
          )
          expect(finished.status, finished.text.slice(0, 500)).toBe(200)
          expect(finished.text.length).toBeLessThanOrEqual(limit)
          const results = (finished.json as { results: ReadonlyArray<{ data: { transcript: Cut } }> }).results
          yield* followed((results[0] as { data: { transcript: Cut } }).data.transcript)

          // REST keeps the spec's answer: the whole transcript.
          const whole = yield* server.get(`/api/v2/transcripts/${threeHours}`, { key })
          expect(whole.status).toBe(200)
          expect(whole.text.length).toBeGreaterThan(3 * limit)
          expect((whole.json as { segments: ReadonlyArray<unknown> }).segments).toHaveLength(segmentCount)
        }),
      180_000
    )
  })
})
