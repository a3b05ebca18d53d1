/**
 * JobLifecycle on the production wiring: the one place a job is created and finished.
 *
 * - `create` accepts exactly the first states `Status.JobMachine` allows (a processing job is offered
 *   to its lane) and dies, writing nothing, on any other: a refused state is our defect;
 * - `record` with `Completed` stores the transcript and charges once (key `charge:job:<id>`), with a
 *   transcript already owned charges nothing; `Served` and `Failed` charge nothing; a charge the
 *   balance cannot cover leaves nothing written;
 * - `settle` finishes a claimed job once, for its lease owner only: a second settle, a settle by
 *   another owner or of an unclaimed job writes nothing (none) and charges nothing more; an
 *   `InsufficientCredits` leaves the job processing under its lease, with nothing stored;
 * - a job with a webhook gets exactly one outbox row, whose payload is the job object GET /jobs/{id}
 *   answers, and whose delivery is offered on the webhook lane.
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  type Account,
  type Finished,
  JobLifecycle,
  JobQueries,
  type JobRecord,
  Jobs,
  Ledger,
  type Outcome,
  type Settled,
  Transcripts,
  WebhookDeliveries,
  WorkQueue,
  webhookLane
} from "@verbatim/core"
import { Api, type Ids, Language, Status } from "@verbatim/domain"
import { Cause, DateTime, Effect, Either, Exit, Option, Schema } from "effect"
import {
  books,
  createAccount,
  expectBalancedBooks,
  jobRecord,
  ownedOf,
  query,
  suiteOptions,
  transcriptRecord,
  useCasesLayer,
  uuid,
  videos
} from "./support.js"

const hook = "https://hooks.example.com/verbatim"

const findJob = (id: Ids.JobId) =>
  Effect.flatMap(Jobs, (jobs) => jobs.find(id)).pipe(Effect.map(Option.getOrUndefined))

const waiting = (lane: string) =>
  Effect.flatMap(WorkQueue, (queue) => queue.depth(lane)).pipe(
    Effect.orDie,
    Effect.map((depth) => depth.waiting + depth.delayed)
  )

const completedWith = (account: Account, price = 1): Outcome => ({
  _tag: "Completed",
  transcript: transcriptRecord(account),
  price,
  reason: "test work"
})

/** A processing job of the test lane, created and claimed by `owner`. */
const claimed = (account: Account, owner: string, fields: Partial<JobRecord> = {}) =>
  Effect.gen(function* () {
    const lifecycle = yield* JobLifecycle
    const jobs = yield* Jobs
    const id = uuid<Ids.JobId>()
    yield* lifecycle.create(jobRecord(account, { id, status: "processing", kind: "test.delay", ...fields }))
    const claim = yield* jobs.claim({ id, owner, now: yield* DateTime.now, leaseMs: 60_000 })
    expect(Option.isSome(claim), "the new job can be claimed").toBe(true)
    return Option.getOrThrow(claim)
  })

/** The one outbox row of a job, checked against what GET /jobs/{id} answers with the same parts. */
const expectOneDelivery = (account: Account, finished: Finished, fields: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const rows = yield* (yield* WebhookDeliveries).ofJob(finished.job.id)
    expect(rows).toHaveLength(1)
    const row = rows[0]
    expect(row).toMatchObject({
      accountId: account.id,
      jobId: finished.job.id,
      event: `job.${finished.job.status}`,
      url: hook,
      status: "pending",
      attempts: 0
    })
    const answered = yield* (yield* JobQueries).get(account, finished.job.id, query(Api.JobQuery, fields))
    expect(JSON.parse(row?.payload ?? "null")).toEqual(Schema.encodeSync(Api.Job)(answered))
    return row
  })

layer(useCasesLayer(), suiteOptions)("JobLifecycle on the production wiring", (it) => {
  describe("create", () => {
    it.effect("creates a job in every first state the job machine allows; a processing one is offered", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const account = yield* createAccount()
        expect(Status.JobMachine.table.initial.length).toBeGreaterThan(0)
        for (const status of Status.JobMachine.table.initial) {
          const kind = status === "processing" ? "test.delay" : "transcribe"
          const before = yield* waiting(kind)
          const id = uuid<Ids.JobId>()
          const created = yield* lifecycle.create(jobRecord(account, { id, status, kind }))
          expect(created).toMatchObject({ id, status, kind, accountId: account.id })
          expect((yield* findJob(id))?.status).toBe(status)
          expect(yield* waiting(kind)).toBe(before + (status === "processing" ? 1 : 0))
        }
      })
    )

    it.effect("dies on a state the job machine refuses as first, writing nothing", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const account = yield* createAccount()
        const refused = ["queued", "cancelled", "COMPLETED", ""].map((s) => s as Status.JobStatus)
        for (const status of refused) {
          expect(Status.JobMachine.canStart(status)).toBe(false)
          const id = uuid<Ids.JobId>()
          const exit = yield* Effect.exit(lifecycle.create(jobRecord(account, { id, status })))
          expect(Exit.isFailure(exit) && Cause.isDie(exit.cause), `create in ${status}`).toBe(true)
          const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined
          expect(defect).toBeInstanceOf(Status.IllegalTransition)
          expect(yield* findJob(id)).toBeUndefined()
        }
      })
    )
  })

  describe("record", () => {
    it.effect("Completed stores the transcript and charges the price once, keyed on the job", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const account = yield* createAccount({ credits: 5 })
        const id = uuid<Ids.JobId>()
        const outcome = completedWith(account, 2)
        const finished = yield* lifecycle.record(
          jobRecord(account, { id, status: "completed" }),
          outcome,
          yield* DateTime.now
        )
        expect(finished.credits).toBe(2)
        expect(finished.job).toMatchObject({
          id,
          status: "completed",
          creditsUsed: 2,
          error: null,
          language: "en",
          source: "manual"
        })
        const owned = yield* ownedOf(account, videos.manualAndAuto)
        expect(owned.map((t) => t.id)).toEqual([finished.transcript?.id])
        expect(finished.job.transcriptId).toBe(owned[0]?.id)
        const { balance, charges } = yield* expectBalancedBooks(account)
        expect(balance).toBe(3)
        expect(charges.map((c) => [c.key, c.amount, c.jobId])).toEqual([[`charge:job:${id}`, -2, id]])

        // The same work finished again for a transcript now owned: stored nothing, charged nothing.
        const again = yield* lifecycle.record(
          jobRecord(account, { id: uuid<Ids.JobId>(), status: "completed" }),
          completedWith(account, 2),
          yield* DateTime.now
        )
        expect(again.credits).toBe(0)
        expect(again.job.creditsUsed).toBe(0)
        expect(again.job.transcriptId).toBe(owned[0]?.id)
        expect(yield* ownedOf(account, videos.manualAndAuto)).toHaveLength(1)
        expect((yield* expectBalancedBooks(account)).charges).toHaveLength(1)
      })
    )

    it.effect("Completed without a transcript charges the price; the job has no transcript", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const id = uuid<Ids.JobId>()
        const finished = yield* (yield* JobLifecycle).record(
          jobRecord(account, { id, status: "completed", kind: "test.delay" }),
          { _tag: "Completed", transcript: null, price: 3, reason: "work without a transcript" },
          yield* DateTime.now
        )
        expect(finished).toMatchObject({ credits: 3, transcript: null })
        expect(finished.job.transcriptId).toBeNull()
        expect((yield* expectBalancedBooks(account)).balance).toBe(2)
      })
    )

    it.effect("Served and Failed charge nothing", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const account = yield* createAccount({ credits: 5 })
        const { record: kept } = yield* (yield* Transcripts).store(transcriptRecord(account))
        const served = yield* lifecycle.record(
          jobRecord(account, { id: uuid<Ids.JobId>(), status: "completed" }),
          { _tag: "Served", transcript: kept },
          yield* DateTime.now
        )
        expect(served.credits).toBe(0)
        expect(served.job).toMatchObject({ status: "completed", creditsUsed: 0, transcriptId: kept.id })
        const failed = yield* lifecycle.record(
          jobRecord(account, { id: uuid<Ids.JobId>(), status: "failed" }),
          { _tag: "Failed", error: "the work failed" },
          yield* DateTime.now
        )
        expect(failed.credits).toBe(0)
        expect(failed.job).toMatchObject({
          status: "failed",
          error: "the work failed",
          creditsUsed: 0,
          transcriptId: null
        })
        const { balance, charges } = yield* expectBalancedBooks(account)
        expect([balance, charges.length]).toEqual([5, 0])
      })
    )

    it.effect(
      "serveOwned records the job serving the owned transcript for 0 credits; none when none is owned",
      () =>
        Effect.gen(function* () {
          const lifecycle = yield* JobLifecycle
          const account = yield* createAccount({ credits: 5 })
          const { record: kept } = yield* (yield* Transcripts).store(transcriptRecord(account))
          const now = yield* DateTime.now
          const plain = jobRecord(account, { id: uuid<Ids.JobId>(), status: "completed", creditsUsed: 3 })
          // What an answer carries of the transcript.
          const answered = {
            id: kept.id,
            videoId: kept.videoId,
            videoTitle: kept.videoTitle,
            language: kept.language,
            sourceKind: kept.sourceKind,
            text: kept.text,
            segments: kept.segments,
            asrIntelligence: kept.asrIntelligence
          }
          const served = yield* lifecycle.serveOwned(plain, { sourceKinds: [kept.sourceKind] }, now)
          expect(Option.getOrUndefined(served)).toMatchObject(answered)
          expect(yield* findJob(plain.id)).toMatchObject({
            status: "completed",
            creditsUsed: 0,
            error: null,
            transcriptId: kept.id,
            videoTitle: kept.videoTitle,
            language: kept.language,
            source: kept.sourceKind
          })
          expect(yield* (yield* WebhookDeliveries).ofJob(plain.id)).toEqual([])
          // With a webhook, the job's delivery is written with it.
          const hooked = jobRecord(account, { id: uuid<Ids.JobId>(), status: "completed", webhookUrl: hook })
          expect(Option.getOrUndefined(yield* lifecycle.serveOwned(hooked, {}, now))).toMatchObject(answered)
          const job = yield* findJob(hooked.id)
          if (job === undefined) return expect.unreachable("the hooked job was not recorded")
          yield* expectOneDelivery(account, { job, transcript: kept, credits: 0 })
          // Nothing owned in French (the transcript is English): none, and no job.
          const missing = jobRecord(account, { id: uuid<Ids.JobId>(), status: "completed" })
          expect(
            yield* lifecycle.serveOwned(missing, { language: Language.LanguageCode.make("fr") }, now)
          ).toEqual(Option.none())
          expect(yield* findJob(missing.id)).toBeUndefined()
          const { balance, charges } = yield* expectBalancedBooks(account)
          expect([balance, charges.length]).toEqual([5, 0])
        })
    )

    it.effect("a charge the balance cannot cover fails InsufficientCredits and writes nothing", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 1 })
        const id = uuid<Ids.JobId>()
        const error = yield* Effect.flip(
          (yield* JobLifecycle).record(
            jobRecord(account, { id, status: "completed", webhookUrl: hook }),
            completedWith(account, 2),
            yield* DateTime.now
          )
        )
        expect(error).toMatchObject({ _tag: "InsufficientCredits", required: 2, balance: 1 })
        expect(yield* findJob(id)).toBeUndefined()
        expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual([])
        expect(yield* (yield* WebhookDeliveries).ofJob(id)).toEqual([])
        const { balance, charges } = yield* expectBalancedBooks(account)
        expect([balance, charges.length]).toEqual([1, 0])
      })
    )
  })

  describe("settle", () => {
    it.effect(
      "completes a claimed job once, for its lease owner; anything after writes and charges nothing",
      () =>
        Effect.gen(function* () {
          const lifecycle = yield* JobLifecycle
          const account = yield* createAccount({ credits: 5 })
          const job = yield* claimed(account, "worker-1")
          expect(job).toMatchObject({ status: "processing", leaseOwner: "worker-1", attempts: 1 })

          const stranger = yield* lifecycle.settle(
            job,
            "worker-2",
            completedWith(account),
            yield* DateTime.now
          )
          expect(Option.isNone(stranger)).toBe(true)
          expect(yield* findJob(job.id)).toMatchObject({ status: "processing", leaseOwner: "worker-1" })
          expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual([])
          expect((yield* books(account)).charges).toEqual([])

          const settled = yield* lifecycle.settle(
            job,
            "worker-1",
            completedWith(account),
            yield* DateTime.now
          )
          expect(Option.isSome(settled)).toBe(true)
          const finished = Option.getOrThrow(settled)
          expect(finished.credits).toBe(1)
          expect(finished.job).toMatchObject({
            status: "completed",
            creditsUsed: 1,
            leaseOwner: null,
            leaseExpiresAt: null
          })
          expect(finished.job.transcriptId).toBe(finished.transcript?.id)
          expect(finished.job.completedAt).not.toBeNull()

          for (const [owner, outcome] of [
            ["worker-1", completedWith(account)],
            ["worker-1", { _tag: "Failed", error: "late failure" }],
            ["worker-2", completedWith(account, 3)]
          ] as const) {
            const late = yield* lifecycle.settle(job, owner, outcome, yield* DateTime.now)
            expect(Option.isNone(late), `a later settle by ${owner}`).toBe(true)
          }
          expect(yield* findJob(job.id)).toMatchObject({ status: "completed", creditsUsed: 1, error: null })
          const { balance, charges } = yield* expectBalancedBooks(account)
          expect(balance).toBe(4)
          expect(charges.map((c) => c.key)).toEqual([`charge:job:${job.id}`])
          expect(yield* ownedOf(account, videos.manualAndAuto)).toHaveLength(1)
        })
    )

    it.effect("an unclaimed job is not settled; Failed settles without a charge", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const account = yield* createAccount({ credits: 5 })
        const id = uuid<Ids.JobId>()
        const created = yield* lifecycle.create(
          jobRecord(account, { id, status: "processing", kind: "test.delay" })
        )
        const unclaimed = yield* lifecycle.settle(
          created,
          "worker-1",
          completedWith(account),
          yield* DateTime.now
        )
        expect(Option.isNone(unclaimed)).toBe(true)
        expect(yield* findJob(id)).toMatchObject({ status: "processing", leaseOwner: null })

        const job = yield* claimed(account, "worker-1")
        const failed = yield* lifecycle.settle(
          job,
          "worker-1",
          { _tag: "Failed", error: "gave up" },
          yield* DateTime.now
        )
        expect(Option.getOrThrow(failed).job).toMatchObject({
          status: "failed",
          error: "gave up",
          creditsUsed: 0
        })
        const { balance, charges } = yield* expectBalancedBooks(account)
        expect([balance, charges.length]).toEqual([5, 0])
        expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual([])
      })
    )

    it.effect("InsufficientCredits on settle leaves nothing written: still processing under its lease", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const account = yield* createAccount({ credits: 0 })
        const job = yield* claimed(account, "worker-1", { webhookUrl: hook })
        const before = yield* waiting(webhookLane)
        const error = yield* Effect.flip(
          lifecycle.settle(job, "worker-1", completedWith(account), yield* DateTime.now)
        )
        expect(error).toMatchObject({ _tag: "InsufficientCredits", required: 1, balance: 0 })
        const after = yield* findJob(job.id)
        expect(after).toMatchObject({
          status: "processing",
          leaseOwner: "worker-1",
          creditsUsed: 0,
          transcriptId: null,
          completedAt: null
        })
        expect(after?.leaseExpiresAt).toEqual(job.leaseExpiresAt)
        expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual([])
        expect(yield* (yield* WebhookDeliveries).ofJob(job.id)).toEqual([])
        expect(yield* waiting(webhookLane)).toBe(before)
        expect((yield* expectBalancedBooks(account)).entries).toEqual([])

        // The lease still holds: the worker can settle the job as failed.
        const failed = yield* lifecycle.settle(
          job,
          "worker-1",
          { _tag: "Failed", error: "no credits" },
          yield* DateTime.now
        )
        expect(Option.getOrThrow(failed).job.status).toBe("failed")
      })
    )
  })

  describe("settleMany", () => {
    /** A job settled by a batch: its result, or the failure of the batch. */
    const outcomes = (results: ReadonlyArray<Settled>) =>
      results.map((result) =>
        Either.match(result, {
          onLeft: (error) => `refused ${error.required}/${error.balance}`,
          onRight: Option.match({
            onNone: () => "not settled",
            onSome: (f) => `${f.job.status} ${f.credits}`
          })
        })
      )

    it.effect(
      "settles a batch in one step; a job whose lease was lost writes nothing, with or without a transcript",
      () =>
        Effect.gen(function* () {
          const lifecycle = yield* JobLifecycle
          const jobs = yield* Jobs
          const account = yield* createAccount({ credits: 10 })
          for (const withTranscripts of [false, true]) {
            const [kept, lost, failed] = yield* Effect.all([
              claimed(account, "worker-1"),
              claimed(account, "worker-1"),
              claimed(account, "worker-1")
            ])
            // worker-1 stopped answering: its lease on `lost` expired and worker-2 took the job.
            yield* jobs.release(lost.id, "worker-1", yield* DateTime.now)
            yield* jobs.claim({ id: lost.id, owner: "worker-2", now: yield* DateTime.now, leaseMs: 60_000 })
            const before = yield* books(account)
            const transcript = (videoId: string) =>
              withTranscripts ? transcriptRecord(account, { videoId }) : null
            const at = yield* DateTime.now
            const results = yield* lifecycle.settleMany("worker-1", [
              {
                job: kept,
                outcome: {
                  _tag: "Completed",
                  transcript: transcript(videos.autoOnly),
                  price: 2,
                  reason: "work"
                },
                at
              },
              {
                job: lost,
                outcome: {
                  _tag: "Completed",
                  transcript: transcript(videos.germanOnly),
                  price: 3,
                  reason: "work"
                },
                at
              },
              { job: failed, outcome: { _tag: "Failed", error: "gave up" }, at }
            ])
            expect(outcomes(results)).toEqual(["completed 2", "not settled", "failed 0"])
            expect(yield* findJob(lost.id)).toMatchObject({
              status: "processing",
              leaseOwner: "worker-2",
              creditsUsed: 0
            })
            expect(yield* ownedOf(account, videos.germanOnly)).toEqual([])
            expect((yield* ownedOf(account, videos.autoOnly)).length).toBe(withTranscripts ? 1 : 0)
            const after = yield* expectBalancedBooks(account)
            expect(before.balance - after.balance).toBe(2)
            expect(after.charges.map((c) => c.key)).toContain(`charge:job:${kept.id}`)
            expect(after.charges.map((c) => c.key)).not.toContain(`charge:job:${lost.id}`)
            if (withTranscripts) {
              const settled = Option.getOrThrow(Either.getOrThrow(results[0] ?? Either.right(Option.none())))
              expect(settled.job.transcriptId).toBe(settled.transcript?.id)
              expect((yield* findJob(kept.id))?.transcriptId).toBe(settled.transcript?.id)
            }
            // worker-2 still settles it, once.
            const late = yield* lifecycle.settle(lost, "worker-2", { _tag: "Failed", error: "late" }, at)
            expect(Option.getOrThrow(late).job.status).toBe("failed")
          }
        })
    )

    it.effect("an account that cannot pay has only the jobs it cannot pay refused; the others settle", () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const rich = yield* createAccount({ credits: 10 })
        const poor = yield* createAccount({ credits: 3 })
        for (const webhookUrl of [null, hook]) {
          const [r1, p1, p2, r2] = yield* Effect.all([
            claimed(rich, "worker-1", { webhookUrl }),
            claimed(poor, "worker-1", { webhookUrl }),
            claimed(poor, "worker-1", { webhookUrl }),
            claimed(rich, "worker-1", { webhookUrl })
          ])
          const at = yield* DateTime.now
          const completed = (price: number): Outcome => ({
            _tag: "Completed",
            transcript: null,
            price,
            reason: "work"
          })
          const results = yield* lifecycle.settleMany("worker-1", [
            { job: r1, outcome: completed(1), at },
            { job: p1, outcome: completed(2), at },
            { job: p2, outcome: completed(2), at },
            { job: r2, outcome: completed(1), at }
          ])
          // Together the poor account's jobs cost 4 of its 3 credits: settled alone, the first is paid
          // and the second refused (2 needed, 1 left), still processing under its lease.
          expect(outcomes(results)).toEqual(["completed 1", "completed 2", "refused 2/1", "completed 1"])
          expect((yield* books(poor)).balance).toBe(1)
          expect(yield* findJob(p2.id)).toMatchObject({ status: "processing", leaseOwner: "worker-1" })
          yield* expectBalancedBooks(rich)
          yield* expectBalancedBooks(poor)
          const deliveries = yield* WebhookDeliveries
          for (const [job, count] of [
            [r1, 1],
            [p1, 1],
            [p2, 0],
            [r2, 1]
          ] as const) {
            expect((yield* deliveries.ofJob(job.id)).length).toBe(webhookUrl === null ? 0 : count)
          }
          yield* Effect.flatMap(Ledger, (ledger) =>
            ledger.grant({ accountId: poor.id, key: `top-up:${p2.id}`, reason: "test", at }, 2)
          )
        }
      })
    )
  })

  describe("the webhook outbox", () => {
    it.effect(
      "a settled job with a webhook gets exactly one delivery: the job as GET /jobs/{id} answers it",
      () =>
        Effect.gen(function* () {
          const lifecycle = yield* JobLifecycle
          const account = yield* createAccount({ credits: 5 })
          const job = yield* claimed(account, "worker-1", { webhookUrl: hook })
          const before = yield* waiting(webhookLane)
          const finished = Option.getOrThrow(
            yield* lifecycle.settle(job, "worker-1", completedWith(account), yield* DateTime.now)
          )
          const row = yield* expectOneDelivery(account, finished)
          expect(JSON.parse(row?.payload ?? "{}")).toMatchObject({
            status: "completed",
            job_id: job.id,
            credits_used: 1
          })
          expect(yield* waiting(webhookLane)).toBe(before + 1)
          // A late settle adds nothing.
          yield* lifecycle.settle(job, "worker-1", completedWith(account), yield* DateTime.now)
          expect(yield* (yield* WebhookDeliveries).ofJob(job.id)).toHaveLength(1)
        })
    )

    it.effect(
      "a recorded job with a webhook gets one delivery too, completed or failed, cut to its format",
      () =>
        Effect.gen(function* () {
          const lifecycle = yield* JobLifecycle
          const account = yield* createAccount({ credits: 5 })
          const completed = yield* lifecycle.record(
            jobRecord(account, {
              id: uuid<Ids.JobId>(),
              status: "completed",
              webhookUrl: hook,
              payload: { format: { timestamp: false, paragraphs: true } }
            }),
            completedWith(account),
            yield* DateTime.now
          )
          const row = yield* expectOneDelivery(account, completed, {
            include_segments: "false",
            include_paragraphs: "true"
          })
          const body = JSON.parse(row?.payload ?? "{}") as {
            data: { transcript: { segments: unknown; paragraphs: unknown } }
          }
          expect(body.data.transcript.segments).toEqual([])
          expect(body.data.transcript.paragraphs).not.toBeNull()

          const failed = yield* lifecycle.record(
            jobRecord(account, { id: uuid<Ids.JobId>(), status: "failed", webhookUrl: hook }),
            { _tag: "Failed", error: "refused" },
            yield* DateTime.now
          )
          const failedRow = yield* expectOneDelivery(account, failed)
          expect(JSON.parse(failedRow?.payload ?? "{}")).toMatchObject({ status: "failed", error: "refused" })
        })
    )

    it.effect("a job without a webhook gets no delivery", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const finished = yield* (yield* JobLifecycle).record(
          jobRecord(account, { id: uuid<Ids.JobId>(), status: "completed" }),
          completedWith(account),
          yield* DateTime.now
        )
        expect(yield* (yield* WebhookDeliveries).ofJob(finished.job.id)).toEqual([])
      })
    )
  })
})
