/**
 * Credit holds on the production wiring (PGlite, and PostgreSQL with DATABASE_URL), with the
 * AssemblyAI stand-in as the speech engine: speech recognition holds its quote when its job is
 * created, so parallel requests never start more than the available balance covers; the job's
 * settlement charges at most the hold and closes it, a failed job releases it, and the reconciler
 * releases a hold whose job ended without closing it. The books stay exact throughout.
 */
import { expect, layer } from "@effect/vitest"
import { AssemblyAiStandIn, standInEngine } from "@verbatim/assemblyai/testing"
import {
  type Account,
  BackgroundWork,
  Jobs,
  jobHoldKey,
  Ledger,
  reconcileOnce,
  Transcribe,
  VideoPlatform,
  Worker
} from "@verbatim/core"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Api, type Ids } from "@verbatim/domain"
import { DateTime, Effect, Either, Layer, Option } from "effect"
import { demoPlatform, servicesOn } from "../../src/index.js"
import { testInfrastructure, testWorkerOn, testWorkSettings } from "../../src/testing.js"
import { createAccount, expectBalancedBooks, liveSuiteOptions, transcribeRequest, videos } from "./support.js"

/** Demo videos with speech (5 s, quoted 1 credit) and a captionless one without media (12 min). */
const speech = { welcome: "Wv5SpkDmo1A", kitchen: "Kt9SpkDmo2B" } as const

const wiring = Layer.unwrapEffect(
  Effect.map(AssemblyAiStandIn, (standIn) =>
    servicesOn(testInfrastructure({ speech: standInEngine(standIn) }))
  )
).pipe(
  Layer.provideMerge(
    AssemblyAiStandIn.layer({ recognise: () => "hello from the kitchen", pollsUntilDone: 1 })
  )
)

const transcribe = (account: Account, body: Record<string, unknown>) =>
  Effect.flatMap(Transcribe, (useCase) => useCase.transcribe(account, transcribeRequest(body)))

const worker = testWorkerOn(testWorkSettings({ concurrency: 2, leaseMs: 2_000, reconcileEveryMs: 60_000 }))

/** Runs the job once on a worker of this process, and settles it. */
const runJob = (id: Ids.JobId) =>
  Effect.scoped(Effect.flatMap(Worker, (w) => w.runJob(id))).pipe(Effect.provide(worker))

const findJob = (id: Ids.JobId) =>
  Effect.flatMap(Jobs, (jobs) => jobs.find(id)).pipe(Effect.map(Option.getOrThrow))

/** Waits for a settle the worker ran in the background. */
const finished = (id: Ids.JobId) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      const job = yield* findJob(id)
      if (job.status !== "processing") return job
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`job ${id} did not finish`)
  })

// Live clock: the embedded worker runs the held jobs in the background (see `liveSuiteOptions`).
layer(wiring, liveSuiteOptions)("credit holds on the production wiring", (it) => {
  it.effect(
    "8 parallel ASR requests on 1 credit: one job holds the credit, seven 402; settled at the real price",
    () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const standIn = yield* AssemblyAiStandIn
        const account = yield* createAccount({ credits: 1 })
        const answers = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            Effect.either(
              transcribe(account, {
                video: i % 2 === 0 ? speech.welcome : speech.kitchen,
                mode: "speech_to_text_only"
              })
            )
          ),
          { concurrency: "unbounded" }
        )
        const accepted = answers.filter(Either.isRight).map((answer) => answer.right)
        const refused = answers.filter(Either.isLeft).map((answer) => answer.left)
        expect(accepted.length).toBe(1)
        expect(refused.map((error) => ("code" in error ? error.code : error._tag))).toEqual(
          Array.from({ length: 7 }, () => "payment_required")
        )
        const [processing] = accepted
        expect(processing).toBeInstanceOf(Api.TranscribeProcessing)
        if (!(processing instanceof Api.TranscribeProcessing)) return
        const jobId = processing.job_id as Ids.JobId
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 1, held: 1, available: 0 })

        const runs = standIn.requests.filter((request) => request.route === "create").length
        yield* runJob(jobId)
        const job = yield* finished(jobId)
        expect(job).toMatchObject({ status: "completed", creditsUsed: 1 })
        expect(standIn.requests.filter((request) => request.route === "create").length - runs).toBe(1)
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 0, held: 0, available: 0 })
        const holds = yield* ledger.holds(account.id)
        expect(
          holds.map(({ key, amount, status, charged, settledKey }) => ({
            key,
            amount,
            status,
            charged,
            settledKey
          }))
        ).toEqual([
          {
            key: jobHoldKey(jobId),
            amount: 1,
            status: "settled",
            charged: 1,
            settledKey: `charge:job:${jobId}`
          }
        ])
        yield* expectBalancedBooks(account)
      })
  )

  it.effect("a job that fails releases its hold: nothing charged, the credits available again", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const account = yield* createAccount({ credits: 10 })
      // The demo platform holds no audio for this captionless 12-minute video: the job fails.
      const answer = yield* transcribe(account, { video: videos.noCaptions, mode: "speech_to_text_only" })
      if (!(answer instanceof Api.TranscribeProcessing))
        return expect.fail(`not processing: ${answer.status}`)
      expect(yield* ledger.funds(account.id)).toEqual({
        balance: 10,
        held: answer.estimated_credits,
        available: 10 - answer.estimated_credits
      })
      const jobId = answer.job_id as Ids.JobId
      yield* runJob(jobId)
      expect(yield* finished(jobId)).toMatchObject({ status: "failed", creditsUsed: 0 })
      expect(yield* ledger.funds(account.id)).toEqual({ balance: 10, held: 0, available: 10 })
      expect((yield* ledger.holds(account.id)).map((hold) => hold.status)).toEqual(["released"])
      yield* expectBalancedBooks(account)
    })
  )

  it.effect(
    "the reconciler releases the hold of a job that ended without closing it, never a running job's",
    () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const jobs = yield* Jobs
        const account = yield* createAccount({ credits: 2 })
        const first = yield* transcribe(account, { video: speech.welcome, mode: "speech_to_text_only" })
        const second = yield* transcribe(account, { video: speech.kitchen, mode: "speech_to_text_only" })
        if (!(first instanceof Api.TranscribeProcessing) || !(second instanceof Api.TranscribeProcessing)) {
          return expect.fail("both requests should start")
        }
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 2, held: 2, available: 0 })
        // The first job's work is gone: it ended by a path that does not close holds (its lease
        // taken and the job settled failed directly in the store).
        const now = yield* DateTime.now
        const gone = first.job_id as Ids.JobId
        yield* jobs.claim({ id: gone, owner: "lost", now, leaseMs: 60_000 })
        const settled = yield* jobs.settle(gone, "lost", {
          status: "failed",
          error: "the lease was lost for good",
          creditsUsed: 0,
          transcriptId: null,
          videoTitle: null,
          language: null,
          source: null,
          completedAt: now
        })
        expect(Option.isSome(settled)).toBe(true)
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 2, held: 2, available: 0 })

        yield* Effect.scoped(Effect.flatMap(BackgroundWork, reconcileOnce)).pipe(Effect.provide(worker))
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 2, held: 1, available: 1 })
        const statuses = new Map((yield* ledger.holds(account.id)).map((hold) => [hold.jobId, hold.status]))
        expect(statuses.get(gone)).toBe("released")
        expect(statuses.get(second.job_id as Ids.JobId)).toBe("open")
        yield* expectBalancedBooks(account)
      })
  )
})

/** The demo catalogue as a platform that tells no video's duration (YouTube may not). */
const untoldDurations = Layer.effect(
  VideoPlatform,
  Effect.map(VideoPlatform, (platform) => ({
    ...platform,
    video: (id: Ids.VideoId) =>
      Effect.map(platform.video(id), (details) => ({ ...details, durationSeconds: null }))
  }))
).pipe(Layer.provide(demoPlatform(shippedCataloguePath)))

const untoldWiring = Layer.unwrapEffect(
  Effect.map(AssemblyAiStandIn, (standIn) =>
    servicesOn(testInfrastructure({ speech: standInEngine(standIn), platform: untoldDurations }))
  )
).pipe(
  Layer.provideMerge(
    AssemblyAiStandIn.layer({ recognise: () => "hello from the kitchen", pollsUntilDone: 1 })
  )
)

// Live clock: the embedded worker runs the held jobs in the background (see `liveSuiteOptions`).
layer(untoldWiring, liveSuiteOptions)("credit holds when the platform does not tell the duration", (it) => {
  it.effect(
    "a duration the platform does not tell holds the 480-minute quote; the job is charged the real one",
    () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        // 480 minutes of speech recognition cost ceil(28,800 / 90) = 320 credits.
        const short = yield* createAccount({ credits: 319 })
        const refused = yield* Effect.either(
          transcribe(short, { video: speech.welcome, mode: "speech_to_text_only" })
        )
        expect(Either.isLeft(refused) && "code" in refused.left ? refused.left.code : refused).toBe(
          "payment_required"
        )
        expect(yield* ledger.funds(short.id)).toEqual({ balance: 319, held: 0, available: 319 })

        const account = yield* createAccount({ credits: 320 })
        const started = yield* transcribe(account, { video: speech.welcome, mode: "speech_to_text_only" })
        if (!(started instanceof Api.TranscribeProcessing)) return expect.fail("the request should start")
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 320, held: 320, available: 0 })
        const jobId = started.job_id as Ids.JobId
        yield* runJob(jobId)
        expect(yield* finished(jobId)).toMatchObject({ status: "completed", creditsUsed: 1 })
        expect(yield* ledger.funds(account.id)).toEqual({ balance: 319, held: 0, available: 319 })
        yield* expectBalancedBooks(account)
      })
  )
})
