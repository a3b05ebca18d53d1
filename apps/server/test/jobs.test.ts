/**
 * GET /jobs/{job_id} and GET /jobs over real HTTP: each job status with its fields, the include_*
 * options, 404 for unknown and foreign jobs, 400 for a malformed id; the list newest first, its
 * pagination fields, the status filter and the bounds of page and limit.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Api, Transcript } from "@verbatim/domain"
import { DateTime, Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"
import {
  allJobs,
  api,
  decode,
  expectError,
  expectInvalid,
  newAccount,
  oldAccount,
  timed,
  trackSegments,
  transcribe,
  unknownUuid,
  videos
} from "./support.js"

const jobIdOf = (json: unknown): string => (json as { job_id: string }).job_id

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the jobs endpoints over real HTTP",
  (it) => {
    describe("GET /jobs/{job_id}", () => {
      it.effect("a completed job carries its transcript, segments by default", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const served = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.multiLanguage, language: "fr" })
          )
          const response = yield* server.get(api(`/jobs/${served.job_id}`), { key })
          expect(response.status, response.text).toBe(200)
          const job = yield* decode(Api.JobCompleted, response)
          const segments = trackSegments(videos.multiLanguage, "fr", "manual")
          expect(job).toMatchObject({
            job_id: served.job_id,
            request_id: served.request_id,
            status: "completed",
            credits_used: 1
          })
          expect(job.data.video_id).toBe(videos.multiLanguage)
          expect(job.data.transcript).toMatchObject({
            language: "fr",
            source: "manual",
            text: Transcript.textOf(segments),
            paragraphs: null,
            words: null
          })
          expect(job.data.transcript.segments.map(timed)).toEqual(segments.map(timed))
          expect(job.completed_at).not.toBeNull()
          const raw = response.json as Record<string, unknown>
          expect(Number.isNaN(Date.parse(String(raw.created_at)))).toBe(false)
        })
      )

      it.effect("include_segments, include_paragraphs and include_words shape the transcript", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const id = jobIdOf((yield* transcribe(server, key, { video: videos.manualAndAuto })).json)
          const get = (query: string) =>
            server
              .get(api(`/jobs/${id}?${query}`), { key })
              .pipe(Effect.flatMap((response) => decode(Api.JobCompleted, response)))
          const segments = trackSegments(videos.manualAndAuto, "en", "manual")
          expect((yield* get("include_segments=false")).data.transcript.segments).toEqual([])
          expect((yield* get("include_segments=true")).data.transcript.segments).toHaveLength(segments.length)
          const withParagraphs = yield* get("include_paragraphs=true&include_segments=false")
          expect(withParagraphs.data.transcript.paragraphs?.map(timed)).toEqual(
            Transcript.paragraphsOf(segments).map(timed)
          )
          expect(withParagraphs.data.transcript.segments).toEqual([])
          expect((yield* get("include_words=true")).data.transcript.words).toBeNull()
          expectInvalid(yield* server.get(api(`/jobs/${id}?include_segments=yes`), { key }), [
            "include_segments"
          ])
          expectInvalid(yield* server.get(api(`/jobs/${id}?include_words=1`), { key }), ["include_words"])
        })
      )

      it.effect("a failed job carries its error; a quote job its status; neither has data", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: newAccount })
          yield* transcribe(server, key, { video: videos.noCaptions, mode: "captions_only" })
          const quoted = yield* transcribe(server, key, { video: videos.noCaptions })
          const [quote, failed] = yield* allJobs(server, key)
          expect(quote?.job_id).toBe(jobIdOf(quoted.json))
          const failedJob = yield* server.get(api(`/jobs/${failed?.job_id}`), { key })
          expect(failedJob.status).toBe(200)
          const failedBody = yield* decode(Api.JobFailed, failedJob)
          expect(failedBody).toMatchObject({ status: "failed", credits_used: 0 })
          expect(failedBody.error).toMatch(/captions/)
          expect(failedJob.json).not.toHaveProperty("data")
          const quoteJob = yield* server.get(api(`/jobs/${quote?.job_id}`), { key })
          expect(quoteJob.status).toBe(200)
          expect(yield* decode(Api.JobConfirmation, quoteJob)).toMatchObject({
            status: "requires_asr_confirmation",
            credits_used: 0
          })
          expect(quoteJob.json).not.toHaveProperty("data")
        })
      )

      it.effect("404 not_found for an unknown id and for another account's job; 400 for a malformed id", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const owner = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const other = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const id = jobIdOf((yield* transcribe(server, owner.key, { video: videos.manualAndAuto })).json)
          expectError(yield* server.get(api(`/jobs/${unknownUuid}`), { key: owner.key }), 404, "not_found")
          expectError(yield* server.get(api(`/jobs/${id}`), { key: other.key }), 404, "not_found")
          for (const bad of ["abc", "123", `${id}x`, "not-a-uuid-at-all-0000000000000000"]) {
            expectInvalid(yield* server.get(api(`/jobs/${bad}`), { key: owner.key }), ["job_id"])
          }
          expect((yield* server.get(api(`/jobs/${id}`), { key: owner.key })).status).toBe(200)
        })
      )

      it.effect("a job whose transcript was deleted stays completed, with an empty transcript", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const id = jobIdOf((yield* transcribe(server, key, { video: videos.manualOnly })).json)
          expect((yield* server.del(api(`/transcripts/${videos.manualOnly}`), { key })).status).toBe(200)
          const job = yield* decode(Api.JobCompleted, yield* server.get(api(`/jobs/${id}`), { key }))
          expect(job).toMatchObject({ status: "completed", credits_used: 1 })
          expect(job.data.transcript).toMatchObject({
            text: "",
            segments: [],
            language: "en",
            source: "manual"
          })
        })
      )
    })

    describe("GET /jobs", () => {
      it.effect("an account without jobs gets an empty first page", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business" })
          const response = yield* server.get(api("/jobs"), { key })
          expect(response.status).toBe(200)
          expect(response.json).toEqual({
            jobs: [],
            count: 0,
            pagination: { page: 1, limit: 50, total: 0, totalPages: 0, hasMore: false }
          })
        })
      )

      it.effect("lists newest first with the list item fields, and pages through them", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          const bodies = [
            { video: videos.manualAndAuto },
            { video: videos.noCaptions },
            { video: videos.multiLanguage, language: "de" },
            { video: videos.unavailable },
            { video: videos.manualAndAuto }
          ]
          const statuses: Array<number> = []
          for (const body of bodies) statuses.push((yield* transcribe(server, key, body)).status)
          expect(statuses).toEqual([200, 404, 200, 404, 200])

          const all = yield* decode(Api.JobList, yield* server.get(api("/jobs"), { key }))
          expect(all.jobs.map((job) => job.video_id)).toEqual(bodies.map((body) => body.video).reverse())
          const newestFirst = all.jobs.map((job) => job.job_id)
          expect(new Set(newestFirst).size).toBe(5)
          expect(all.count).toBe(5)
          expect(all.pagination).toEqual({ page: 1, limit: 50, total: 5, totalPages: 1, hasMore: false })
          const times = all.jobs.map((job) => DateTime.toEpochMillis(job.created_at))
          expect(times).toEqual([...times].sort((a, b) => b - a))
          expect(all.jobs[2]).toMatchObject({
            video_id: videos.multiLanguage,
            video_title: "The Quiet Power of Good Documentation",
            language: "de",
            source: "manual",
            status: "completed",
            error: null,
            credits_used: 1
          })
          expect(all.jobs[1]).toMatchObject({
            video_id: videos.unavailable,
            language: null,
            source: null,
            status: "failed",
            credits_used: 0
          })
          expect(all.jobs[1]?.error).toEqual(expect.any(String))
          expect(all.jobs[0]).toMatchObject({ status: "completed", credits_used: 0 })

          const pages = []
          for (const page of [1, 2, 3, 4]) {
            pages.push(
              yield* decode(Api.JobList, yield* server.get(api(`/jobs?limit=2&page=${page}`), { key }))
            )
          }
          expect(pages.map((p) => p.pagination)).toEqual([
            { page: 1, limit: 2, total: 5, totalPages: 3, hasMore: true },
            { page: 2, limit: 2, total: 5, totalPages: 3, hasMore: true },
            { page: 3, limit: 2, total: 5, totalPages: 3, hasMore: false },
            { page: 4, limit: 2, total: 5, totalPages: 3, hasMore: false }
          ])
          expect(pages.map((p) => p.count)).toEqual([2, 2, 1, 0])
          expect(pages.flatMap((p) => p.jobs.map((job) => job.job_id))).toEqual(newestFirst)
        })
      )

      it.effect("filters by status", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: newAccount })
          yield* transcribe(server, key, { video: videos.manualAndAuto })
          yield* transcribe(server, key, { video: videos.noCaptions })
          yield* transcribe(server, key, { video: videos.unavailable })
          yield* transcribe(server, key, { video: videos.autoOnly, mode: "human_captions_only" })
          const byStatus = (status: string) =>
            server
              .get(api(`/jobs?status=${status}`), { key })
              .pipe(Effect.flatMap((response) => decode(Api.JobList, response)))
          const failed = yield* byStatus("failed")
          expect(failed.jobs.map((job) => job.video_id)).toEqual([videos.autoOnly, videos.unavailable])
          expect(failed.pagination.total).toBe(2)
          expect((yield* byStatus("completed")).jobs.map((job) => job.video_id)).toEqual([
            videos.manualAndAuto
          ])
          expect((yield* byStatus("requires_asr_confirmation")).jobs.map((job) => job.video_id)).toEqual([
            videos.noCaptions
          ])
          expect((yield* byStatus("processing")).jobs).toEqual([])
          expectInvalid(yield* server.get(api("/jobs?status=done"), { key }), ["status"])
        })
      )

      it.effect("page and limit are bounded: limit 1 to 100, page from 1", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business" })
          for (const query of ["limit=0", "limit=101", "limit=-1", "limit=2.5", "limit=ten", "limit="]) {
            expectInvalid(yield* server.get(api(`/jobs?${query}`), { key }), ["limit"])
          }
          for (const query of ["page=0", "page=-3", "page=1.5", "page=x"]) {
            expectInvalid(yield* server.get(api(`/jobs?${query}`), { key }), ["page"])
          }
          for (const limit of [1, 100]) {
            const list = yield* decode(
              Api.JobList,
              yield* server.get(api(`/jobs?limit=${limit}&page=7`), { key })
            )
            expect(list.pagination).toEqual({ page: 7, limit, total: 0, totalPages: 0, hasMore: false })
          }
        })
      )
    })
  }
)
