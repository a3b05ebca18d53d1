/**
 * `Jobs` on every database: jobs read back as written, only by their account, listed newest first
 * with a status filter and a correct total; a deleted transcript leaves its jobs without one.
 */
import { expect } from "@effect/vitest"
import type { JobRecord } from "@verbatim/core"
import { Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, job, jobId, newAccount, repositories, transcript } from "./fixtures.js"

const ids = (jobs: ReadonlyArray<JobRecord>) => jobs.map((item) => item.id)

describeEachDatabase(
  "Jobs repository",
  (it) => {
    it.effect("inserts a job and reads it back for its account only", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const other = yield* newAccount()
        const completed = job(account.id)
        expect(yield* jobs.insert(completed)).toEqual(completed)
        const pending = job(account.id, {
          videoId: "upload-id-is-longer",
          videoTitle: null,
          language: null,
          source: null,
          mode: "speech_to_text_only",
          status: "processing",
          creditsUsed: 0,
          startedAt: null,
          completedAt: null
        })
        expect(yield* jobs.insert(pending)).toEqual(pending)
        const failed = job(account.id, { status: "failed", error: "video_unavailable: private video" })
        yield* jobs.insert(failed)
        expect(yield* jobs.get(account.id, completed.id)).toEqual(Option.some(completed))
        expect(yield* jobs.get(account.id, pending.id)).toEqual(Option.some(pending))
        expect(yield* jobs.get(account.id, failed.id)).toEqual(Option.some(failed))
        expect(yield* jobs.get(other.id, completed.id)).toEqual(Option.none())
        expect(yield* jobs.get(account.id, jobId())).toEqual(Option.none())
        const duplicate = yield* jobs.insert(completed).pipe(Effect.flip)
        expect(duplicate).toMatchObject({ _tag: "PersistenceError", operation: "Jobs.insert" })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("lists an account's jobs newest first, by status, in pages with a correct total", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const other = yield* newAccount()
        const statuses = [
          "completed",
          "processing",
          "failed",
          "completed",
          "requires_asr_confirmation"
        ] as const
        const inserted: Array<JobRecord> = []
        for (let i = 0; i < 9; i++) {
          const record = job(account.id, {
            status: statuses[i % statuses.length] ?? "completed",
            // Jobs 0 to 3 share a creation time: the id breaks the tie.
            createdAt: at(i < 4 ? "2026-07-01T00:00:00Z" : `2026-07-0${i}T00:00:00Z`)
          })
          inserted.push(yield* jobs.insert(record))
        }
        yield* jobs.insert(job(other.id, { createdAt: at("2026-08-01T00:00:00Z") }))
        const newestFirst = [...inserted].sort((a, b) => {
          const byTime = b.createdAt.epochMillis - a.createdAt.epochMillis
          return byTime !== 0 ? byTime : b.id < a.id ? -1 : 1
        })
        const all = yield* jobs.list(account.id, { offset: 0, limit: 50 })
        expect(all).toEqual({ items: newestFirst, total: 9 })
        for (const limit of [1, 2, 4, 9, 10]) {
          const pages: Array<JobRecord> = []
          for (let offset = 0; offset < 10; offset += limit) {
            const page = yield* jobs.list(account.id, { offset, limit })
            expect(page.total).toBe(9)
            pages.push(...page.items)
          }
          expect(ids(pages)).toEqual(ids(newestFirst))
        }
        expect(yield* jobs.list(account.id, { offset: 30, limit: 10 })).toEqual({ items: [], total: 9 })
        for (const status of statuses) {
          const expected = newestFirst.filter((record) => record.status === status)
          expect(yield* jobs.list(account.id, { status, offset: 0, limit: 50 })).toEqual({
            items: expected,
            total: expected.length
          })
        }
        const firstCompleted = yield* jobs.list(account.id, { status: "completed", offset: 0, limit: 1 })
        expect(firstCompleted.total).toBe(4)
        expect(ids(firstCompleted.items)).toEqual(
          ids(newestFirst.filter((record) => record.status === "completed").slice(0, 1))
        )
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("keeps a job whose transcript is deleted, without the transcript", () =>
      Effect.gen(function* () {
        const { jobs, transcripts } = yield* repositories
        const account = yield* newAccount()
        const stored = yield* transcripts.store(transcript(account.id))
        const served = yield* jobs.insert(job(account.id, { transcriptId: stored.record.id }))
        expect(served.transcriptId).toBe(stored.record.id)
        expect(yield* transcripts.removeByIds(account.id, [stored.record.id])).toBe(1)
        expect(yield* jobs.get(account.id, served.id)).toEqual(Option.some({ ...served, transcriptId: null }))
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
