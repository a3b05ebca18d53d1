/**
 * Spending under concurrency, as properties of the Transcribe use case on the production wiring
 * (fast-check, modest run counts; each run on an account of its own):
 *
 * - N concurrent requests for one video by one account charge exactly once, and each gets a job;
 * - concurrent requests against a small balance never drive it below zero, and charge exactly
 *   min(balance, distinct transcripts asked for), each transcript once;
 * - whatever runs concurrently (grants, transcribes, deletes), the balance equals the sum of the
 *   ledger entries, and the charges equal the credits the jobs say they used.
 *
 * Then the race that used to answer 500 on PostgreSQL: an owned video transcribed while its
 * transcript is deleted (`StoredTranscripts.remove`) must never be a defect or an internal error,
 * and the job is recorded, without a transcript reference when the transcript was gone.
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  type Account,
  AccountAdmin,
  JobLifecycle,
  JobQueries,
  Ledger,
  StoredTranscripts,
  Transcribe,
  Transcripts
} from "@verbatim/core"
import { Api, type Errors, type Ids } from "@verbatim/domain"
import { Cause, DateTime, Effect, Exit, FastCheck as fc, Option } from "effect"
import {
  createAccount,
  expectBalancedBooks,
  jobRecord,
  jobsOf,
  liveSuiteOptions,
  query,
  servable,
  storedJob,
  transcribeRequest,
  transcriptRecord,
  useCasesLayer,
  uuid
} from "./support.js"

type Outcome =
  | { readonly _tag: "completed"; readonly answer: Api.TranscribeCompleted }
  | { readonly _tag: "refused"; readonly error: Errors.ApiError }

const keyOf = (t: { readonly video: string; readonly language: string; readonly source: string }) =>
  `${t.video}:${t.language}:${t.source}`

/**
 * One transcribe request; the test fails on anything but a completed answer or an `ApiError` (a
 * store failure, a defect or an interruption fails it).
 */
const attempt = (account: Account, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(
      Effect.flatMap(Transcribe, (useCase) => useCase.transcribe(account, transcribeRequest(body)))
    )
    if (Exit.isSuccess(exit)) {
      expect(exit.value, JSON.stringify(exit.value)).toBeInstanceOf(Api.TranscribeCompleted)
      return { _tag: "completed", answer: exit.value as Api.TranscribeCompleted } satisfies Outcome
    }
    const failure = Cause.failureOption(exit.cause)
    expect(Option.isSome(failure), Cause.pretty(exit.cause)).toBe(true)
    const error = Option.getOrThrow(failure)
    expect(error._tag, Cause.pretty(exit.cause)).toBe("ApiError")
    return { _tag: "refused", error: error as Errors.ApiError } satisfies Outcome
  })

const servableIndex = fc.integer({ min: 0, max: servable.length - 1 })

// Live clock: concurrent transactions on PostgreSQL retry their conflicts on a schedule while others wait on the database.
layer(useCasesLayer(), liveSuiteOptions)("spending under concurrency, on the production wiring", (it) => {
  describe("properties", () => {
    it.effect.prop(
      "N concurrent requests for the same video by one account charge exactly once",
      [servableIndex, fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 5 })],
      ([index, n, credits]) =>
        Effect.gen(function* () {
          const target = servable[index] ?? servable[0]
          const account = yield* createAccount({ credits })
          const outcomes = yield* Effect.all(
            Array.from({ length: n }, () =>
              attempt(account, { video: target?.video, language: target?.language })
            ),
            { concurrency: "unbounded" }
          )
          const answers = outcomes.map((outcome) => {
            expect(outcome._tag).toBe("completed")
            return (outcome as Extract<Outcome, { _tag: "completed" }>).answer
          })
          expect(answers.map((a) => a.credits_used).sort()).toEqual([1, ...Array(n - 1).fill(0)].sort())
          expect(new Set(answers.map((a) => a.job_id)).size).toBe(n)
          expect(
            new Set(answers.map((a) => keyOf({ video: a.data.video_id, ...a.data.transcript }))).size
          ).toBe(1)

          const { balance, charges } = yield* expectBalancedBooks(account)
          expect(balance).toBe(credits - 1)
          expect(charges).toHaveLength(1)
          const charged = answers.find((a) => a.credits_used === 1)
          expect(charges[0]?.key).toBe(`charge:job:${charged?.job_id}`)

          const jobs = yield* jobsOf(account)
          expect(jobs).toHaveLength(n)
          expect(jobs.every((job) => job.status === "completed")).toBe(true)
          expect(jobs.reduce((sum, job) => sum + job.creditsUsed, 0)).toBe(1)
          const owned = yield* Effect.flatMap(Transcripts, (t) =>
            t.owned(account.id, target?.video ?? "", {})
          )
          expect(owned).toHaveLength(1)
          expect(new Set(jobs.map((job) => job.transcriptId))).toEqual(new Set([owned[0]?.id]))
        }),
      // Pinned: found in CI (seed -2077220609): with 1 credit, a request that looked before the
      // winner stored the transcript and read the balance after it paid answered 402 instead of
      // serving the transcript now owned.
      { timeout: 120_000, fastCheck: { numRuns: 12, examples: [[0, 11, 1]] } }
    )

    it.effect.prop(
      "concurrent requests against a small balance never go below zero and charge min(balance, distinct) once each",
      [fc.integer({ min: 0, max: 3 }), fc.array(servableIndex, { minLength: 1, maxLength: 12 })],
      ([credits, picks]) =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits })
          const asked = picks.map((i) => servable[i] ?? servable[0]).filter((t) => t !== undefined)
          const outcomes = yield* Effect.all(
            asked.map((t) => attempt(account, { video: t.video, language: t.language })),
            { concurrency: "unbounded" }
          )
          const completed: Array<Api.TranscribeCompleted> = []
          let refused = 0
          for (const outcome of outcomes) {
            if (outcome._tag === "completed") completed.push(outcome.answer)
            else {
              expect(outcome.error.code).toBe("payment_required")
              refused++
            }
          }
          const distinct = new Set(asked.map(keyOf)).size
          const expectedCharges = Math.min(credits, distinct)
          const paid = completed.filter((a) => a.credits_used === 1)
          expect(completed.every((a) => a.credits_used === 0 || a.credits_used === 1)).toBe(true)
          expect(paid).toHaveLength(expectedCharges)
          const paidKeys = new Set(paid.map((a) => keyOf({ video: a.data.video_id, ...a.data.transcript })))
          expect(paidKeys.size).toBe(expectedCharges)
          // A free answer serves a transcript one of the paid requests stored.
          for (const a of completed) {
            expect(paidKeys.has(keyOf({ video: a.data.video_id, ...a.data.transcript }))).toBe(true)
          }

          const { balance, charges } = yield* expectBalancedBooks(account)
          expect(balance).toBe(credits - expectedCharges)
          expect(charges).toHaveLength(expectedCharges)
          expect(new Set(charges.map((c) => c.key)).size).toBe(expectedCharges)

          const jobs = yield* jobsOf(account)
          expect(jobs).toHaveLength(asked.length)
          expect(jobs.filter((job) => job.status === "failed")).toHaveLength(refused)
          expect(jobs.reduce((sum, job) => sum + job.creditsUsed, 0)).toBe(expectedCharges)
          const stored = yield* Effect.flatMap(StoredTranscripts, (s) =>
            s.list(account, query(Api.TranscriptListQuery, { limit: "100" }))
          )
          expect(
            new Set(stored.history.map((t) => keyOf({ video: t.video_id, ...t, source: t.source_kind })))
          ).toEqual(paidKeys)
        }),
      { timeout: 120_000, fastCheck: { numRuns: 15 } }
    )

    type Operation =
      | { readonly _tag: "grant"; readonly key: number; readonly amount: number }
      | { readonly _tag: "transcribe"; readonly pick: number }
      | { readonly _tag: "remove"; readonly pick: number }
      | { readonly _tag: "hold"; readonly amount: number; readonly settle: boolean }

    const operation: fc.Arbitrary<Operation> = fc.oneof(
      fc.record({
        _tag: fc.constant("grant" as const),
        key: fc.integer({ min: 0, max: 3 }),
        amount: fc.integer({ min: 0, max: 3 })
      }),
      fc.record({ _tag: fc.constant("transcribe" as const), pick: servableIndex }),
      fc.record({ _tag: fc.constant("remove" as const), pick: servableIndex }),
      // Paid work that holds its price, then is settled at it or released (credit holds).
      fc.record({
        _tag: fc.constant("hold" as const),
        amount: fc.integer({ min: 1, max: 2 }),
        settle: fc.boolean()
      })
    )

    it.effect.prop(
      "whatever runs at once, the balance equals the sum of the ledger and the charges what the jobs used; no hold is left open",
      [fc.integer({ min: 0, max: 3 }), fc.array(operation, { minLength: 1, maxLength: 16 })],
      ([credits, operations]) =>
        Effect.gen(function* () {
          const admin = yield* AccountAdmin
          const stored = yield* StoredTranscripts
          const ledger = yield* Ledger
          const account = yield* createAccount({ credits })
          const run = (op: Operation, i: number) => {
            switch (op._tag) {
              case "grant":
                return admin
                  .grantCredits(account.id, op.amount, "property grant", `grant:prop:${op.key}`)
                  .pipe(Effect.orDie, Effect.asVoid)
              case "transcribe": {
                const t = servable[op.pick] ?? servable[0]
                return Effect.asVoid(attempt(account, { video: t?.video, language: t?.language }))
              }
              case "remove": {
                const t = servable[op.pick] ?? servable[0]
                return stored.remove(account, t?.video ?? "", query(Api.DeleteTranscriptQuery)).pipe(
                  Effect.asVoid,
                  Effect.catchIf(
                    (error) => error._tag === "ApiError" && error.code === "not_found",
                    () => Effect.void
                  ),
                  Effect.orDie
                )
              }
              case "hold": {
                const request = (key: string) => ({
                  accountId: account.id,
                  key,
                  reason: "property work",
                  at: now
                })
                return ledger.hold(request(`hold:prop:${i}`), op.amount).pipe(
                  Effect.zipRight(
                    op.settle
                      ? Effect.asVoid(
                          ledger.settleHold(`hold:prop:${i}`, request(`charge:prop:${i}`), op.amount)
                        )
                      : Effect.asVoid(ledger.release(account.id, `hold:prop:${i}`, now))
                  ),
                  Effect.asVoid,
                  Effect.catchTag("InsufficientCredits", () => Effect.void),
                  Effect.orDie
                )
              }
            }
          }
          const now = yield* DateTime.now
          yield* Effect.all(operations.map(run), { concurrency: "unbounded", discard: true })

          const { entries, charges: allCharges, held } = yield* expectBalancedBooks(account)
          // Every hold was settled or released: none is left open, each settled one names its charge.
          expect(held).toBe(0)
          const holds = yield* ledger.holds(account.id)
          expect(holds.filter((hold) => hold.status === "open")).toEqual([])
          for (const hold of holds.filter((h) => h.status === "settled")) {
            expect(entries.find((e) => e.key === hold.settledKey)?.amount).toBe(-hold.charged)
          }
          expect(entries.filter((e) => e.key.startsWith("charge:prop:")).length).toBe(
            holds.filter((h) => h.status === "settled").length
          )
          const charges = allCharges.filter((charge) => !charge.key.startsWith("charge:prop:"))
          const keys = entries.map((entry) => entry.key)
          expect(new Set(keys).size).toBe(keys.length)
          const grantKeys = new Set(
            operations.flatMap((op) => (op._tag === "grant" && op.amount > 0 ? [op.key] : []))
          )
          expect(entries.filter((e) => e.key.startsWith("grant:prop:")).length).toBe(grantKeys.size)
          const jobs = yield* jobsOf(account)
          expect(jobs).toHaveLength(operations.filter((op) => op._tag === "transcribe").length)
          expect(charges.reduce((sum, c) => sum - c.amount, 0)).toBe(
            jobs.reduce((sum, job) => sum + job.creditsUsed, 0)
          )
          for (const charge of charges) {
            const job = jobs.find((j) => j.id === charge.jobId)
            expect(job).toMatchObject({ status: "completed", creditsUsed: -charge.amount })
          }
        }),
      {
        timeout: 120_000,
        fastCheck: {
          numRuns: 12,
          examples: [
            // Found in CI on PostgreSQL (seed -1038917245): a grant was the victim of a deadlock the
            // server broke; work it rolls back for a deadlock now runs again (`retryingConflicts`).
            [
              0,
              [
                { _tag: "grant", key: 0, amount: 1 },
                { _tag: "transcribe", pick: 0 },
                { _tag: "grant", key: 1, amount: 1 },
                { _tag: "grant", key: 1, amount: 1 }
              ]
            ],
            // Found in CI on PostgreSQL (seed -1081636833): a transcript's charge whose check missed a
            // concurrent hold of the whole balance broke accounts_held_covered (a 500); a posting now
            // locks the account's row before it checks the balance (CR-13).
            [
              1,
              [
                { _tag: "hold", amount: 1, settle: false },
                { _tag: "grant", key: 0, amount: 0 },
                { _tag: "transcribe", pick: 4 },
                { _tag: "grant", key: 1, amount: 0 }
              ]
            ],
            [
              1,
              [
                { _tag: "remove", pick: 0 },
                { _tag: "hold", amount: 1, settle: false },
                { _tag: "transcribe", pick: 0 }
              ]
            ],
            // Found in CI on PostgreSQL (seed 331241708): a transcript's charge in its store
            // transaction, racing holds settled and released, grants and deletes, broke
            // accounts_credits_nonnegative (a 500): its one statement checked a balance older than
            // the row it moved. A posting now locks the account's row in a statement of its own
            // and checks and moves it in the next (CR-13).
            [
              1,
              [
                { _tag: "hold", amount: 1, settle: true },
                { _tag: "transcribe", pick: 6 },
                { _tag: "transcribe", pick: 2 },
                { _tag: "remove", pick: 0 },
                { _tag: "grant", key: 3, amount: 2 },
                { _tag: "grant", key: 0, amount: 1 },
                { _tag: "remove", pick: 2 },
                { _tag: "transcribe", pick: 2 },
                { _tag: "remove", pick: 4 }
              ]
            ]
          ]
        }
      }
    )
  })

  describe("transcribe of an owned video while its transcript is deleted", () => {
    it.effect("is never a defect or internal_error; the job is recorded, its transcript null once gone", () =>
      Effect.gen(function* () {
        const stored = yield* StoredTranscripts
        const transcripts = yield* Transcripts
        const jobQueries = yield* JobQueries
        const rounds = Array.from({ length: 30 }, (_, i) => servable[i % servable.length] ?? servable[0])
        const outcomes = yield* Effect.forEach(
          rounds,
          (target) =>
            Effect.gen(function* () {
              const account = yield* createAccount({ credits: 5 })
              const body = { video: target?.video, language: target?.language }
              const first = yield* attempt(account, body)
              expect(first._tag).toBe("completed")
              const [again, removed] = yield* Effect.all(
                [
                  attempt(account, body),
                  Effect.exit(stored.remove(account, target?.video ?? "", query(Api.DeleteTranscriptQuery)))
                ],
                { concurrency: "unbounded" }
              )
              expect(
                Exit.isSuccess(removed),
                Exit.isFailure(removed) ? Cause.pretty(removed.cause) : ""
              ).toBe(true)
              if (Exit.isSuccess(removed)) expect(removed.value.deleted).toBeGreaterThanOrEqual(1)
              expect(again._tag).toBe("completed")
              const answer = (again as Extract<Outcome, { _tag: "completed" }>).answer
              const job = yield* storedJob(account, answer.job_id)
              expect(job).toMatchObject({ status: "completed", creditsUsed: answer.credits_used })
              if (job.transcriptId !== null) {
                const still = yield* transcripts.get(account.id, job.transcriptId)
                expect(Option.isSome(still), "a job's transcript reference names a stored transcript").toBe(
                  true
                )
              }
              const viewed = yield* jobQueries.get(account, job.id, query(Api.JobQuery))
              expect(viewed.status).toBe("completed")
              const { balance } = yield* expectBalancedBooks(account)
              expect(balance).toBe(4 - answer.credits_used)
              return { free: answer.credits_used === 0, orphaned: job.transcriptId === null }
            }),
          { concurrency: 5 }
        )
        // Served again for 0 credits means the transcript was read before the delete: it is gone now.
        for (const outcome of outcomes) if (outcome.free) expect(outcome.orphaned).toBe(true)
      })
    )

    it.effect("a job served from a transcript deleted just before it is recorded keeps no reference", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const transcripts = yield* Transcripts
        const account = yield* createAccount({ credits: 0 })
        const record = transcriptRecord(account, { id: uuid<Ids.TranscriptId>(), creditsUsed: 0 })
        const { record: kept } = yield* transcripts.store(record)
        expect(yield* transcripts.remove(account.id, kept.videoId, {})).toBe(1)
        const id = uuid<Ids.JobId>()
        const now = yield* DateTime.now
        const finished = yield* lifecycle.record(
          jobRecord(account, { id, status: "completed" }),
          { _tag: "Served", transcript: kept },
          now
        )
        expect(finished.job.transcriptId).toBeNull()
        expect(finished.credits).toBe(0)
        const viewed = yield* (yield* JobQueries).get(account, id, query(Api.JobQuery))
        expect(viewed).toMatchObject({
          status: "completed",
          data: { transcript: { text: "", segments: [] } }
        })
      })
    )
  })
})
