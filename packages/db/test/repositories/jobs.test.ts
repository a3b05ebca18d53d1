/**
 * `Jobs` on every database: jobs read back as written, only by their account, listed newest first
 * with a status filter and a correct total; a deleted transcript leaves its jobs without one.
 */

import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import {
  InsufficientCredits,
  type JobRecord,
  Jobs,
  ServedTranscript,
  type TranscriptRecord
} from "@verbatim/core"
import { type Ids, Transcript } from "@verbatim/domain"
import { DateTime, Effect, Either, Option, Schema, Struct } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import {
  at,
  fundedAccount,
  job,
  jobId,
  language,
  newAccount,
  repositories,
  transcript,
  transcriptId
} from "./fixtures.js"

const ids = (jobs: ReadonlyArray<JobRecord>) => jobs.map((item) => item.id)

const encodeSegments = Schema.encodeSync(Schema.Array(Transcript.Segment))

/** What serving reads of a stored transcript: with its segments' JSON text, their schema's encoding. */
const servedOf = (record: TranscriptRecord): ServedTranscript => ({
  ...Struct.pick(
    record,
    ...(Object.keys(ServedTranscript.fields) as Array<keyof typeof ServedTranscript.fields>)
  ),
  segmentsJson: Transcript.encodeSegmentsJson(record.segments)
})

/** A new processing job of the test lane, not claimed yet. */
const processingJob = (owner: Ids.AccountId) =>
  Effect.flatMap(Jobs, (jobs) =>
    jobs.insert(job(owner, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null }))
  )

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

    it.effect(
      "serves the newest owned transcript matching the filter, recording the job in the same step",
      () =>
        Effect.gen(function* () {
          const { jobs, transcripts } = yield* repositories
          const account = yield* newAccount()
          const other = yield* newAccount()
          const older = transcript(account.id, { sourceKind: "auto", videoTitle: "Older" })
          const newer = transcript(account.id, {
            videoTitle: "Newer",
            createdAt: at("2026-10-04T12:00:00.000Z")
          })
          const french = transcript(account.id, { language: language("fr"), videoTitle: "French" })
          for (const record of [older, newer, french]) yield* transcripts.store(record)
          // What the lifecycle sends: the job as served, before the transcript's fields are known.
          const serving = job(account.id, { videoTitle: null, language: null, source: null, creditsUsed: 0 })

          const served = yield* jobs.insertServing(serving, { language: language("en") })
          expect(served).toEqual(Option.some(servedOf(newer)))
          expect(yield* jobs.get(account.id, serving.id)).toEqual(
            Option.some({
              ...serving,
              transcriptId: newer.id,
              videoTitle: "Newer",
              language: language("en"),
              source: "manual"
            })
          )

          const auto = job(account.id)
          expect(
            yield* jobs.insertServing(auto, { language: language("en"), sourceKinds: ["auto"] })
          ).toEqual(Option.some(servedOf(older)))
          expect((yield* jobs.get(account.id, auto.id)).pipe(Option.map((j) => j.transcriptId))).toEqual(
            Option.some(older.id)
          )

          // Nothing owned (another account's, another language, another video): none, and no job.
          for (const [owner, filter, videoId] of [
            [other.id, {}, serving.videoId],
            [account.id, { language: language("de") }, serving.videoId],
            [account.id, {}, "otherVideo1"]
          ] as const) {
            const missing = job(owner, { videoId })
            expect(yield* jobs.insertServing(missing, filter)).toEqual(Option.none())
            expect(yield* jobs.get(owner, missing.id)).toEqual(Option.none())
          }
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "serves segments as the JSON text they were written as, byte for byte; a row without it from jsonb",
      () =>
        Effect.gen(function* () {
          const { jobs, transcripts } = yield* repositories
          const sql = yield* SqlClient.SqlClient
          const account = yield* newAccount()
          // Text that jsonb would write otherwise: escapes, a control character, non-ASCII, a key-like
          // quote; keys in the schema's order (jsonb sorts them) and no spaces (jsonb adds them).
          const text = 'Say "words": \\ tab\there\u0001 — café 𝄞 \u2028 </script>'
          const segments = [
            new Transcript.Segment({
              text,
              start: 0,
              end: 4_000,
              words: [new Transcript.Word({ text: '"Say"', start: 0, end: 500 })]
            }),
            new Transcript.Segment({ text: "Goodbye", start: 4_000, end: 5_500 })
          ]
          const stored = transcript(account.id, { text: `${text} Goodbye`, segments, segmentCount: 2 })
          yield* transcripts.store(stored)
          const served = yield* jobs.insertServing(job(account.id), {})
          const json = Option.getOrThrow(served).segmentsJson
          expect(json).toBe(JSON.stringify(encodeSegments(segments)))
          expect(served).toEqual(Option.some(servedOf(stored)))
          // jsonb's own text differs: serving must not read that.
          const [row] = yield* sql<{
            readonly t: string
          }>`SELECT segments::text AS t FROM transcripts WHERE id = ${stored.id}`
          expect(row?.t).not.toBe(json)

          // A row stored before the column: its segments are read from the jsonb column, without text.
          yield* sql`UPDATE transcripts SET segments_json = NULL WHERE id = ${stored.id}`
          const before = Option.getOrThrow(yield* jobs.insertServing(job(account.id), {}))
          expect(before.segmentsJson).toBeUndefined()
          expect(before).toEqual({ ...servedOf(stored), segmentsJson: undefined })
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

    it.effect("a job naming a transcript deleted before the insert is recorded without it", () =>
      Effect.gen(function* () {
        const { jobs, transcripts } = yield* repositories
        const account = yield* newAccount()
        const stored = yield* transcripts.store(transcript(account.id))
        yield* transcripts.removeByIds(account.id, [stored.record.id])
        const served = yield* jobs.insert(job(account.id, { transcriptId: stored.record.id }))
        expect(served.transcriptId).toBeNull()
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("keeps the kind, payload and webhook of a job", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const work = job(account.id, {
          kind: "test.delay",
          status: "processing",
          payload: { delay_ms: 5, credits: 2, nested: { __proto__: 1, list: [1, "a"] } },
          webhookUrl: "https://example.com/hook",
          completedAt: null,
          startedAt: null
        })
        expect(yield* jobs.insert(work)).toEqual(work)
        expect(yield* jobs.find(work.id)).toEqual(Option.some(work))
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("claims a processing job once per lease; an expired lease can be taken over", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const work = yield* jobs.insert(
          job(account.id, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null })
        )
        const now = at("2026-10-03T12:00:00.000Z")
        const first = yield* jobs.claim({ id: work.id, owner: "a", now, leaseMs: 1000 })
        expect(Option.map(first, (j) => [j.leaseOwner, j.attempts, j.startedAt])).toEqual(
          Option.some(["a", 1, now])
        )
        // Held: nobody else gets it until the lease expires.
        expect(
          yield* jobs.claim({
            id: work.id,
            owner: "b",
            now: DateTime.add(now, { millis: 999 }),
            leaseMs: 1000
          })
        ).toEqual(Option.none())
        // The holder keeps it alive; a stranger cannot.
        expect(yield* jobs.extendLease({ id: work.id, owner: "b", now, leaseMs: 5000 })).toBe(false)
        expect(yield* jobs.extendLease({ id: work.id, owner: "a", now, leaseMs: 2000 })).toBe(true)
        const later = DateTime.add(now, { millis: 1500 })
        expect(yield* jobs.claim({ id: work.id, owner: "b", now: later, leaseMs: 1000 })).toEqual(
          Option.none()
        )
        const runnableIds = (now: DateTime.Utc) =>
          Effect.map(jobs.runnable(now, 1000), (rows) => rows.filter((row) => row.id === work.id))
        expect(yield* runnableIds(later)).toEqual([])
        // Expired: listed as runnable and taken over, the attempt counted, started_at kept.
        const expired = DateTime.add(now, { millis: 2000 })
        expect(yield* runnableIds(expired)).toEqual([
          { id: work.id, kind: "test.delay", accountId: account.id, attempts: 1 }
        ])
        const second = yield* jobs.claim({ id: work.id, owner: "b", now: expired, leaseMs: 1000 })
        expect(Option.map(second, (j) => [j.leaseOwner, j.attempts, j.startedAt])).toEqual(
          Option.some(["b", 2, now])
        )
        // The old holder can no longer settle it; the new one can, once.
        const settlement = {
          status: "completed" as const,
          error: null,
          creditsUsed: 3,
          transcriptId: null,
          videoTitle: null,
          language: null,
          source: null,
          completedAt: expired
        }
        expect(yield* jobs.settle(work.id, "a", settlement)).toEqual(Option.none())
        const settled = yield* jobs.settle(work.id, "b", settlement)
        expect(Option.map(settled, (j) => [j.status, j.creditsUsed, j.leaseOwner, j.completedAt])).toEqual(
          Option.some(["completed", 3, null, expired])
        )
        expect(yield* jobs.settle(work.id, "b", settlement)).toEqual(Option.none())
        expect(
          yield* jobs.claim({ id: work.id, owner: "c", now: DateTime.add(expired, { hours: 1 }), leaseMs: 1 })
        ).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("a released job runs again from its next run time", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const work = yield* jobs.insert(
          job(account.id, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null })
        )
        const now = at("2026-10-03T12:00:00.000Z")
        yield* jobs.claim({ id: work.id, owner: "a", now, leaseMs: 60_000 })
        expect(yield* jobs.release(work.id, "b", now)).toBe(false)
        const retryAt = DateTime.add(now, { seconds: 10 })
        expect(yield* jobs.release(work.id, "a", retryAt)).toBe(true)
        expect(yield* jobs.claim({ id: work.id, owner: "b", now, leaseMs: 1000 })).toEqual(Option.none())
        expect((yield* jobs.runnable(now, 1000)).filter((row) => row.id === work.id)).toEqual([])
        expect(
          Option.isSome(yield* jobs.claim({ id: work.id, owner: "b", now: retryAt, leaseMs: 1000 }))
        ).toBe(true)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("of many concurrent claims on one job exactly one wins", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const work = yield* jobs.insert(
          job(account.id, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null })
        )
        const now = at("2026-10-03T12:00:00.000Z")
        const claims = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            jobs.claim({ id: work.id, owner: `w${i}`, now, leaseMs: 1000 })
          ),
          { concurrency: "unbounded" }
        )
        expect(claims.filter(Option.isSome)).toHaveLength(1)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("claimMany takes, in one statement, only the jobs a claim would take", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const now = at("2026-10-03T12:00:00.000Z")
        const processing = () =>
          jobs.insert(
            job(account.id, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null })
          )
        const [free, held, later, done] = yield* Effect.all([
          processing(),
          processing(),
          processing(),
          processing()
        ])
        yield* jobs.insert(job(account.id))
        yield* jobs.claim({ id: held.id, owner: "b", now, leaseMs: 60_000 })
        yield* jobs.release(later.id, "nobody", now)
        yield* jobs.claim({ id: later.id, owner: "b", now, leaseMs: 1 })
        yield* jobs.release(later.id, "b", DateTime.add(now, { minutes: 5 }))
        yield* jobs.claim({ id: done.id, owner: "b", now, leaseMs: 60_000 })
        yield* jobs.settle(done.id, "b", {
          status: "failed",
          error: "gave up",
          creditsUsed: 0,
          transcriptId: null,
          videoTitle: null,
          language: null,
          source: null,
          completedAt: now
        })
        const claimed = yield* jobs.claimMany({
          ids: [free.id, held.id, later.id, done.id, jobId(), free.id, "not-a-uuid" as typeof free.id],
          owner: "a",
          now,
          leaseMs: 1000
        })
        expect(claimed.map((j) => [j.id, j.leaseOwner, j.attempts, j.startedAt])).toEqual([
          [free.id, "a", 1, now]
        ])
        expect(claimed[0]).toEqual({ ...Option.getOrThrow(yield* jobs.find(free.id)), takenOverFrom: null })
        expect(yield* jobs.claimMany({ ids: [], owner: "a", now, leaseMs: 1000 })).toEqual([])
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("claimMany names the owner of an expired lease it takes over; a handed-back job has none", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const now = at("2026-10-03T12:00:00.000Z")
        const [dead, handedBack] = yield* Effect.all([processingJob(account.id), processingJob(account.id)])
        const first = yield* jobs.claimMany({ ids: [dead.id, handedBack.id], owner: "a", now, leaseMs: 1000 })
        expect(first.map((j) => j.takenOverFrom)).toEqual([null, null])
        yield* jobs.release(handedBack.id, "a", now)
        const later = DateTime.add(now, { seconds: 2 })
        const second = yield* jobs.claimMany({
          ids: [dead.id, handedBack.id],
          owner: "b",
          now: later,
          leaseMs: 1000
        })
        const from = Object.fromEntries(second.map((j) => [j.id, [j.takenOverFrom, j.leaseOwner]]))
        expect(from).toEqual({ [dead.id]: ["a", "b"], [handedBack.id]: [null, "b"] })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("two workers racing claimMany on the same ids never both get one", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const now = at("2026-10-03T12:00:00.000Z")
        const work = yield* Effect.forEach(Array.from({ length: 24 }), () =>
          jobs.insert(
            job(account.id, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null })
          )
        )
        const ids = work.map((j) => j.id)
        for (let round = 0; round < 5; round++) {
          // Each worker asks for every id, in its own order, several times at once.
          const claims = yield* Effect.all(
            Array.from({ length: 6 }, (_, i) =>
              jobs.claimMany({
                ids: i % 2 === 0 ? ids : [...ids].reverse(),
                owner: `w${i % 2}`,
                now: DateTime.add(now, { seconds: round * 10 }),
                leaseMs: 5_000
              })
            ),
            { concurrency: "unbounded" }
          )
          const taken = claims.flat().map((j) => j.id)
          // Every job once per round: the leases of the previous round have expired.
          expect(new Set(taken).size).toBe(taken.length)
          expect([...taken].sort()).toEqual([...ids].sort())
        }
        for (const id of ids) expect(Option.getOrThrow(yield* jobs.find(id)).attempts).toBe(5)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("extendLeases keeps alive only the leases the owner still holds", () =>
      Effect.gen(function* () {
        const { jobs } = yield* repositories
        const account = yield* newAccount()
        const now = at("2026-10-03T12:00:00.000Z")
        const [mine, lost] = yield* Effect.all([processingJob(account.id), processingJob(account.id)])
        yield* jobs.claimMany({ ids: [mine.id, lost.id], owner: "a", now, leaseMs: 1000 })
        const expired = DateTime.add(now, { seconds: 2 })
        yield* jobs.claim({ id: lost.id, owner: "b", now: expired, leaseMs: 1000 })
        const kept = yield* jobs.extendLeases({
          ids: [mine.id, lost.id, jobId()],
          owner: "a",
          now: expired,
          leaseMs: 60_000
        })
        expect(kept).toEqual([mine.id])
        expect(Option.getOrThrow(yield* jobs.find(mine.id)).leaseExpiresAt).toEqual(
          DateTime.add(expired, { seconds: 60 })
        )
        expect(Option.getOrThrow(yield* jobs.find(lost.id)).leaseOwner).toBe("b")
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "settleMany moves the held jobs and posts their charges; a lost job writes nothing; an account that cannot pay moves none of its jobs",
      () =>
        Effect.gen(function* () {
          const { jobs, ledger } = yield* repositories
          const rich = yield* fundedAccount(10)
          const poor = yield* fundedAccount(3)
          const now = at("2026-10-03T12:00:00.000Z")
          const processing = (owner: typeof rich.id) =>
            jobs.insert(
              job(owner, { kind: "test.delay", status: "processing", startedAt: null, completedAt: null })
            )
          const [a, b, lost, p1, p2] = yield* Effect.all([
            processing(rich.id),
            processing(rich.id),
            processing(rich.id),
            processing(poor.id),
            processing(poor.id)
          ])
          yield* jobs.claimMany({ ids: [a.id, b.id, lost.id, p1.id, p2.id], owner: "w", now, leaseMs: 1000 })
          yield* jobs.claim({
            id: lost.id,
            owner: "other",
            now: DateTime.add(now, { seconds: 2 }),
            leaseMs: 60_000
          })
          const completed = (id: typeof a.id, owner: typeof rich.id, price: number) => ({
            id,
            status: "completed" as const,
            error: null,
            creditsUsed: price,
            transcriptId: null,
            videoTitle: "Title",
            language: null,
            source: null,
            completedAt: now,
            charge:
              price === 0
                ? null
                : {
                    request: {
                      accountId: owner,
                      key: `charge:job:${id}`,
                      jobId: id,
                      reason: "work",
                      at: now
                    },
                    amount: price
                  }
          })
          const results = yield* jobs.settleMany("w", [
            completed(a.id, rich.id, 4),
            { ...completed(b.id, rich.id, 0), status: "failed" as const, error: "gave up" },
            completed(lost.id, rich.id, 5),
            completed(p1.id, poor.id, 2),
            completed(p2.id, poor.id, 2)
          ])
          expect(results).toEqual([
            { _tag: "Settled", transcriptId: null },
            { _tag: "Settled", transcriptId: null },
            { _tag: "NotHeld" },
            { _tag: "Unpaid", required: 4, balance: 3 },
            { _tag: "Unpaid", required: 4, balance: 3 }
          ])
          expect(Option.getOrThrow(yield* jobs.find(a.id))).toMatchObject({
            status: "completed",
            creditsUsed: 4,
            videoTitle: "Title",
            leaseOwner: null,
            leaseExpiresAt: null,
            completedAt: now
          })
          expect(Option.getOrThrow(yield* jobs.find(b.id))).toMatchObject({
            status: "failed",
            error: "gave up"
          })
          expect(Option.getOrThrow(yield* jobs.find(lost.id))).toMatchObject({
            status: "processing",
            leaseOwner: "other"
          })
          for (const unpaid of [p1, p2]) {
            expect(Option.getOrThrow(yield* jobs.find(unpaid.id))).toMatchObject({
              status: "processing",
              leaseOwner: "w"
            })
          }
          expect(yield* ledger.balance(rich.id)).toBe(6)
          expect((yield* ledger.entries(rich.id)).map((e) => [e.key, e.amount, e.jobId])).toEqual([
            [expect.stringMatching(/^grant:/), 10, null],
            [`charge:job:${a.id}`, -4, a.id]
          ])
          expect(yield* ledger.balance(poor.id)).toBe(3)
          // Alone, the first fits; a job settled already moves nothing and is charged nothing more.
          expect(
            yield* jobs.settleMany("w", [completed(p1.id, poor.id, 2), completed(a.id, rich.id, 4)])
          ).toEqual([{ _tag: "Settled", transcriptId: null }, { _tag: "NotHeld" }])
          expect([yield* ledger.balance(poor.id), yield* ledger.balance(rich.id)]).toEqual([1, 6])
          expect(yield* jobs.settleMany("w", [])).toEqual([])
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "insertPaid writes a transcript, its job and its charge at once, or nothing: a key owned already, a balance short, a race for the last credit",
      () =>
        Effect.gen(function* () {
          const { jobs, ledger, transcripts } = yield* repositories
          const sql = yield* SqlClient.SqlClient
          const account = yield* fundedAccount(3)
          const now = at("2026-10-03T12:00:00.000Z")
          const paid = (videoId: string, price: number) => {
            const made = transcript(account.id, { videoId, creditsUsed: price })
            const done = job(account.id, { videoId, transcriptId: made.id, creditsUsed: price })
            const request = {
              accountId: account.id,
              key: `charge:job:${done.id}`,
              jobId: done.id,
              reason: "captions",
              at: now
            }
            return { made, done, write: jobs.insertPaid(done, made, { request, amount: price }) }
          }
          /** What the account holds: its transcripts, jobs, ledger entries and balance. */
          const holdings = Effect.gen(function* () {
            const [row] = yield* sql<{ readonly transcripts: number; readonly jobs: number }>`SELECT
              (SELECT count(*)::int FROM transcripts WHERE account_id = ${account.id}) AS transcripts,
              (SELECT count(*)::int FROM jobs WHERE account_id = ${account.id}) AS jobs`
            const entries = yield* ledger.entries(account.id)
            const balance = yield* ledger.balance(account.id)
            expect(entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(balance)
            return { ...row, entries: entries.length, balance }
          })
          const first = paid("video-one", 2)
          expect(yield* first.write).toBe("stored")
          expect(yield* jobs.find(first.done.id)).toEqual(Option.some(first.done))
          expect(yield* transcripts.get(account.id, first.made.id)).toEqual(Option.some(first.made))
          expect(
            (yield* ledger.entries(account.id)).find((entry) => entry.jobId === first.done.id)?.amount
          ).toBe(-2)
          expect(yield* holdings).toEqual({ transcripts: 1, jobs: 1, entries: 2, balance: 1 })
          // The account owns that video's transcript (same language and source): nothing written.
          expect(yield* paid("video-one", 1).write).toBe("exists")
          expect(yield* holdings).toEqual({ transcripts: 1, jobs: 1, entries: 2, balance: 1 })
          // Short: refused with the balance it saw, nothing written; in a caller's transaction too,
          // which stays usable.
          expect(yield* Effect.flip(paid("video-two", 2).write)).toEqual(
            new InsufficientCredits({ required: 2, balance: 1 })
          )
          const inside = yield* sql.withTransaction(
            Effect.gen(function* () {
              const refused = yield* Effect.either(paid("video-two", 2).write)
              return { refused: Either.isLeft(refused), stored: yield* paid("video-three", 1).write }
            })
          )
          expect(inside).toEqual({ refused: true, stored: "stored" })
          expect(yield* holdings).toEqual({ transcripts: 2, jobs: 2, entries: 3, balance: 0 })
          // Five at once for one credit granted now: exactly one is written.
          yield* ledger.grant({ accountId: account.id, key: "grant:race", reason: "race", at: now }, 1)
          const racing = yield* Effect.all(
            Array.from({ length: 5 }, (_, i) => Effect.either(paid(`race-${i}`, 1).write)),
            { concurrency: "unbounded" }
          )
          expect(racing.filter(Either.isRight)).toEqual([Either.right("stored")])
          expect(racing.filter(Either.isLeft).map((refused) => refused.left._tag)).toEqual(
            Array.from({ length: 4 }, () => "InsufficientCredits")
          )
          expect(yield* holdings).toEqual({ transcripts: 3, jobs: 3, entries: 5, balance: 0 })
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("settleMany keeps a job's transcript only if it still exists", () =>
      Effect.gen(function* () {
        const { jobs, transcripts } = yield* repositories
        const account = yield* newAccount()
        const now = at("2026-10-03T12:00:00.000Z")
        const kept = yield* transcripts.store(transcript(account.id))
        const [first, second] = yield* Effect.all([processingJob(account.id), processingJob(account.id)])
        yield* jobs.claimMany({ ids: [first.id, second.id], owner: "w", now, leaseMs: 1000 })
        const settlement = (id: typeof first.id, transcriptId: typeof kept.record.id) => ({
          id,
          status: "completed" as const,
          error: null,
          creditsUsed: 0,
          transcriptId,
          videoTitle: null,
          language: null,
          source: null,
          completedAt: now,
          charge: null
        })
        expect(
          yield* jobs.settleMany("w", [
            settlement(first.id, kept.record.id),
            settlement(second.id, transcriptId())
          ])
        ).toEqual([
          { _tag: "Settled", transcriptId: kept.record.id },
          { _tag: "Settled", transcriptId: null }
        ])
        expect(Option.getOrThrow(yield* jobs.find(first.id)).transcriptId).toBe(kept.record.id)
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
