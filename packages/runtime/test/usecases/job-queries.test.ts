/**
 * JobQueries on the production wiring: a job read back in each status it can have (processing ones
 * made through `JobLifecycle.create`, which no HTTP request can produce yet), another account's job
 * as `not_found` (DESIGN decision 13), the parts of a completed job's transcript, and the list as a
 * property: any jobs, any page size, pages that together are the account's jobs newest first, once
 * each, with the status filter and the pagination fields agreeing.
 */
import { describe, expect, layer } from "@effect/vitest"
import { type Account, JobLifecycle, JobQueries, StoredTranscripts, Transcribe } from "@verbatim/core"
import { Api, type Ids, Status, Transcript } from "@verbatim/domain"
import { DateTime, Duration, Effect, FastCheck as fc, TestClock } from "effect"
import {
  createAccount,
  expectApiError,
  jobRecord,
  newAccount,
  query,
  suiteOptions,
  trackSegments,
  transcribeRequest,
  unknownUuid,
  useCasesLayer,
  uuid,
  videos
} from "./support.js"

/** Transcribes; a refusal is fine here (it is recorded as a failed job), a store failure is not. */
const transcribe = (account: Account, body: Record<string, unknown>) =>
  Effect.flatMap(Transcribe, (useCase) => useCase.transcribe(account, transcribeRequest(body))).pipe(
    Effect.catchTag("ApiError", () => Effect.void)
  )

const getJob = (account: Account, id: string, fields: Record<string, string> = {}) =>
  Effect.flatMap(JobQueries, (jobs) => jobs.get(account, id as Ids.JobId, query(Api.JobQuery, fields)))

layer(useCasesLayer(), suiteOptions)("JobQueries on the production wiring", (it) => {
  describe("get", () => {
    it.effect("reads back a job in each status, with data only when completed", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5, createdAt: newAccount })
        const { transcribe: run } = yield* Transcribe
        const served = yield* run(account, transcribeRequest({ video: videos.manualAndAuto }))
        const quote = yield* run(account, transcribeRequest({ video: videos.noCaptions }))
        const refused = yield* Effect.flip(
          run(account, transcribeRequest({ video: videos.noCaptions, mode: "captions_only" }))
        )
        expect(refused._tag).toBe("ApiError")
        const failedId = refused._tag === "ApiError" ? String(refused.details.job_id) : ""
        const processingId = uuid<Ids.JobId>()
        yield* (yield* JobLifecycle).create(
          jobRecord(account, { id: processingId, status: "processing", kind: "test.delay", videoId: "work" })
        )

        const completed = yield* getJob(account, served.job_id ?? "")
        expect(completed).toBeInstanceOf(Api.JobCompleted)
        expect(completed).toMatchObject({
          job_id: served.job_id,
          request_id: served.request_id,
          status: "completed",
          credits_used: 1
        })
        const segments = trackSegments(videos.manualAndAuto, "en", "manual")
        expect((completed as Api.JobCompleted).data.transcript).toMatchObject({
          language: "en",
          source: "manual",
          text: Transcript.textOf(segments),
          paragraphs: null,
          words: null
        })
        expect((completed as Api.JobCompleted).data.transcript.segments).toHaveLength(segments.length)

        const confirmation = yield* getJob(account, quote.job_id ?? "")
        expect(confirmation).toBeInstanceOf(Api.JobConfirmation)
        expect(confirmation).toMatchObject({ status: "requires_asr_confirmation", credits_used: 0 })
        expect(confirmation).not.toHaveProperty("data")

        const failed = yield* getJob(account, failedId)
        expect(failed).toBeInstanceOf(Api.JobFailed)
        expect(failed).toMatchObject({ status: "failed", credits_used: 0, error: refused.message })
        expect(failed).not.toHaveProperty("data")

        const processing = yield* getJob(account, processingId)
        expect(processing).toBeInstanceOf(Api.JobProcessing)
        expect(processing).toMatchObject({ status: "processing", credits_used: 0, completed_at: null })
        expect(processing).not.toHaveProperty("data")
      })
    )

    it.effect("include_segments and include_paragraphs cut a completed job's transcript", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const served = yield* (yield* Transcribe).transcribe(
          account,
          transcribeRequest({ video: videos.multiLanguage, language: "de" })
        )
        const segments = trackSegments(videos.multiLanguage, "de", "manual")
        const without = (yield* getJob(account, served.job_id ?? "", {
          include_segments: "false"
        })) as Api.JobCompleted
        expect(without.data.transcript.segments).toEqual([])
        expect(without.data.transcript.text).toBe(Transcript.textOf(segments))
        const paragraphs = (yield* getJob(account, served.job_id ?? "", {
          include_paragraphs: "true"
        })) as Api.JobCompleted
        expect(paragraphs.data.transcript.paragraphs?.map((p) => p.text)).toEqual(
          Transcript.paragraphsOf(segments).map((p) => p.text)
        )
      })
    )

    it.effect("another account's job, and an id no job has, are not_found; nothing tells them apart", () =>
      Effect.gen(function* () {
        const owner = yield* createAccount()
        const other = yield* createAccount()
        const served = yield* (yield* Transcribe).transcribe(
          owner,
          transcribeRequest({ video: videos.manualOnly })
        )
        const foreign = yield* expectApiError(getJob(other, served.job_id ?? ""), "not_found")
        const unknown = yield* expectApiError(getJob(other, unknownUuid), "not_found")
        expect(foreign.status).toBe(404)
        expect(Object.keys(foreign.details)).toEqual(Object.keys(unknown.details))
        expect(foreign.message.replace(served.job_id ?? "", "<id>")).toBe(
          unknown.message.replace(unknownUuid, "<id>")
        )
        expect((yield* getJob(owner, served.job_id ?? "")).status).toBe("completed")
      })
    )

    it.effect("a completed job whose transcript was deleted stays completed, with an empty transcript", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const served = yield* (yield* Transcribe).transcribe(
          account,
          transcribeRequest({ video: videos.germanOnly })
        )
        yield* (yield* StoredTranscripts).remove(account, videos.germanOnly, query(Api.DeleteTranscriptQuery))
        const job = yield* getJob(account, served.job_id ?? "")
        expect(job).toMatchObject({
          status: "completed",
          credits_used: 1,
          data: {
            video_id: videos.germanOnly,
            transcript: { text: "", segments: [], language: "de", source: "manual" }
          }
        })
      })
    )
  })

  describe("list", () => {
    const jobSpec = fc.record({
      status: fc.constantFrom(...Status.JobMachine.table.initial),
      /** Seconds after a fixed start: equal times are allowed, the id breaks the tie. */
      at: fc.integer({ min: 0, max: 5 })
    })

    it.effect.prop(
      "pages are the account's jobs newest first, once each; the status filter and pagination agree",
      [fc.array(jobSpec, { maxLength: 12 }), fc.integer({ min: 1, max: 5 })],
      ([specs, limit]) =>
        Effect.gen(function* () {
          const lifecycle = yield* JobLifecycle
          const queries = yield* JobQueries
          const account = yield* createAccount()
          const start = DateTime.unsafeMake("2026-01-01T00:00:00Z")
          const created = yield* Effect.forEach(specs, (spec) =>
            lifecycle.create(
              jobRecord(account, {
                id: uuid<Ids.JobId>(),
                status: spec.status,
                kind: spec.status === "processing" ? "test.delay" : "transcribe",
                error: spec.status === "failed" ? "refused" : null,
                createdAt: DateTime.add(start, { seconds: spec.at })
              })
            )
          )
          const newestFirst = [...created]
            .sort((a, b) =>
              a.createdAt.epochMillis !== b.createdAt.epochMillis
                ? b.createdAt.epochMillis - a.createdAt.epochMillis
                : a.id < b.id
                  ? 1
                  : -1
            )
            .map((job) => job.id)

          const readAll = (status?: Status.JobStatus) =>
            Effect.gen(function* () {
              const ids: Array<string> = []
              const total =
                status === undefined ? created.length : created.filter((j) => j.status === status).length
              const totalPages = Math.ceil(total / limit)
              for (let page = 1; page <= totalPages + 1; page++) {
                const list = yield* queries.list(
                  account,
                  query(Api.JobListQuery, {
                    page: String(page),
                    limit: String(limit),
                    ...(status === undefined ? {} : { status })
                  })
                )
                expect(list.pagination).toEqual({
                  page,
                  limit,
                  total,
                  totalPages,
                  hasMore: page < totalPages
                })
                expect(list.count).toBe(list.jobs.length)
                expect(list.jobs.length).toBe(
                  page <= totalPages ? Math.min(limit, total - (page - 1) * limit) : 0
                )
                if (status !== undefined) expect(list.jobs.every((job) => job.status === status)).toBe(true)
                ids.push(...list.jobs.map((job) => job.job_id))
              }
              return ids
            })

          expect(yield* readAll()).toEqual(newestFirst)
          for (const status of Status.JobMachine.table.states) {
            const expected = newestFirst.filter(
              (id) => created.find((job) => job.id === id)?.status === status
            )
            expect(yield* readAll(status)).toEqual(expected)
          }
        }),
      { timeout: 120_000, fastCheck: { numRuns: 15 } }
    )

    it.effect("lists only the account's own jobs, with the list item fields", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const other = yield* createAccount({ credits: 5 })
        yield* transcribe(other, { video: videos.manualAndAuto })
        yield* transcribe(account, { video: videos.multiLanguage, language: "fr" })
        // A second later: the list is newest first (at one instant the two would tie).
        yield* TestClock.adjust(Duration.seconds(1))
        yield* transcribe(account, { video: videos.unavailable })
        const list = yield* (yield* JobQueries).list(account, query(Api.JobListQuery))
        expect(list.jobs).toHaveLength(2)
        expect(list.jobs[0]).toMatchObject({
          video_id: videos.unavailable,
          video_title: null,
          language: null,
          source: null,
          status: "failed",
          credits_used: 0
        })
        expect(list.jobs[0]?.error).toEqual(expect.any(String))
        expect(list.jobs[1]).toMatchObject({
          video_id: videos.multiLanguage,
          video_title: "The Quiet Power of Good Documentation",
          language: "fr",
          source: "manual",
          status: "completed",
          error: null,
          credits_used: 1
        })
      })
    )
  })
})
