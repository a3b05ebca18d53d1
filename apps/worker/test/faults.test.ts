/**
 * Faults over real processes, on PostgreSQL and Redis: a worker killed with SIGKILL in the middle
 * of its jobs, a worker killed with SIGKILL in the middle of a batch, Redis losing every key mid-run, a worker stopped with SIGTERM while it works, and two
 * API servers with two workers sharing one database and one Redis. Every accepted job finishes
 * exactly once and is charged exactly once; the rate limit holds across servers.
 */
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import {
  AccountAdmin,
  type AccountWithBalance,
  Batches,
  BatchWork,
  JobLifecycle,
  type JobRecord,
  Jobs,
  Ledger
} from "@verbatim/core"
import { syntheticCatalogue, syntheticVideoId } from "@verbatim/demo-platform"
import { Api } from "@verbatim/domain"
import { eventually, type TestJobInput, testJob } from "@verbatim/runtime/testing"
import { Effect, Option, Schema } from "effect"
import { exitOf, fleetAvailable, flushPrefix, freePort, scriptCommand, startApp, withFleet } from "./fleet.js"

/** Workers that run `test.delay` jobs (the fault tests' worker; `pnpm worker` runs only the release's lanes). */
const testLane = { testLane: true } as const

const newAccount = (credits: number, plan: AccountWithBalance["plan"] = "pro") =>
  Effect.flatMap(AccountAdmin, (admin) =>
    admin.createAccount({ name: `faults ${Math.random()}`, plan, credits }).pipe(Effect.orDie)
  )

const createJobs = (count: number, input: TestJobInput) =>
  Effect.gen(function* () {
    const lifecycle = yield* JobLifecycle
    return yield* Effect.forEach(
      Array.from({ length: count }),
      () => Effect.flatMap(testJob(input), lifecycle.create),
      { concurrency: 8 }
    )
  })

const current = (created: ReadonlyArray<JobRecord>) =>
  Effect.flatMap(Jobs, (jobs) =>
    Effect.forEach(created, (job) => Effect.map(jobs.find(job.id), Option.getOrThrow))
  )

/** Waits until every job is finished; the jobs as they ended. */
const allFinished = (created: ReadonlyArray<JobRecord>, timeoutMs = 90_000) =>
  eventually(
    "every job to finish",
    Effect.map(current(created), (jobs) =>
      Option.liftPredicate(jobs, (all) => all.every((job) => job.status !== "processing"))
    ),
    timeoutMs
  )

/** Each job completed and charged exactly `credits`, once; the balance equals the ledger. */
const expectChargedOnce = (
  account: AccountWithBalance,
  finished: ReadonlyArray<JobRecord>,
  credits: number
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    expect(finished.map((job) => job.status)).toEqual(finished.map(() => "completed"))
    expect(finished.map((job) => job.creditsUsed)).toEqual(finished.map(() => credits))
    const entries = yield* ledger.entries(account.id)
    const charges = entries.filter((entry) => entry.kind === "charge")
    expect(charges).toHaveLength(finished.length)
    expect(new Set(charges.map((entry) => entry.jobId)).size).toBe(finished.length)
    expect(charges.every((entry) => entry.amount === -credits)).toBe(true)
    const balance = yield* ledger.balance(account.id)
    expect(balance).toBe(entries.reduce((sum, entry) => sum + entry.amount, 0))
    expect(balance).toBe(account.credits - credits * finished.length)
  })

const inCi = process.env.CI === "true"

// Live clock: worker and server processes, killed and restarted, on PostgreSQL and Redis. Under
// CI=true they always run: .ci/run sets DATABASE_URL and REDIS_URL, and without them the suite fails.
describe.skipIf(!fleetAvailable && !inCi)("faults over real processes (PostgreSQL + Redis)", () => {
  beforeAll(() => {
    if (!fleetAvailable) {
      throw new Error(
        "DATABASE_URL and REDIS_URL are not both set: under CI=true the fault tests run (.ci/run sets both)"
      )
    }
  })
  it.live(
    "a worker killed with SIGKILL mid-job: another worker finishes every job once, charged once",
    () =>
      withFleet((fleet) =>
        Effect.scoped(
          Effect.gen(function* () {
            const account = yield* newAccount(100)
            const created = yield* createJobs(6, {
              accountId: account.id,
              payload: { delay_ms: 4_000, credits: 3 }
            })
            const first = yield* startApp("worker", fleet.env, testLane)
            yield* eventually(
              "the first worker to hold every job",
              Effect.map(current(created), (jobs) =>
                Option.liftPredicate(jobs, (all) => all.every((job) => job.leaseOwner !== null))
              ),
              60_000
            )
            first.child.kill("SIGKILL")
            expect(Option.isSome(yield* exitOf(first, 10_000))).toBe(true)
            // Nothing finished in the killed worker.
            expect((yield* current(created)).every((job) => job.status === "processing")).toBe(true)

            yield* startApp("worker", fleet.env, testLane)
            const finished = yield* allFinished(created)
            yield* expectChargedOnce(account, finished, 3)
            // Each was claimed by the dead worker, then again by the live one.
            expect(finished.every((job) => job.attempts >= 2)).toBe(true)
          })
        )
      ),
    180_000
  )

  it.live(
    "a worker killed with SIGKILL mid-batch: another worker finishes the batch, every item once, charged once",
    () =>
      withFleet((fleet) =>
        Effect.scoped(
          Effect.gen(function* () {
            const size = 60
            const catalogue = join(tmpdir(), `verbatim-faults-batch-${process.pid}-${Date.now()}.json`)
            writeFileSync(catalogue, JSON.stringify(syntheticCatalogue(size)))
            yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(catalogue, { force: true })))
            const env = {
              ...fleet.env,
              VERBATIM_DEMO_CATALOG: catalogue,
              VERBATIM_DEMO_LATENCY_MS: "150",
              VERBATIM_BATCH_CONCURRENCY: "4"
            }
            const account = yield* newAccount(500, "business")
            const work = yield* BatchWork
            const batches = yield* Batches
            const sql = yield* SqlClient.SqlClient
            const videoIds = Array.from({ length: size }, (_, i) => syntheticVideoId(i))
            const accepted = yield* work
              .create(
                account,
                Schema.decodeUnknownSync(Api.BatchRequest)({ video_ids: videoIds, mode: "captions_only" })
              )
              .pipe(Effect.orDie)
            const id = accepted.batch_id
            const doneItems = Effect.map(
              batches.view(account.id, id).pipe(Effect.orDie),
              (view) =>
                Option.getOrThrow(view).items.filter((item) => item.job?.status === "completed").length
            )

            const first = yield* startApp("worker", env)
            const before = yield* eventually(
              "the first worker to finish some items of the batch",
              Effect.map(
                doneItems,
                Option.liftPredicate((done) => done >= 10)
              ),
              60_000
            )
            expect(before, first.output()).toBeLessThan(size)
            first.child.kill("SIGKILL")
            expect(Option.isSome(yield* exitOf(first, 10_000))).toBe(true)
            const afterKill = yield* doneItems
            expect(afterKill).toBeLessThan(size)
            // What the dead worker left: items it still holds (their leases expire, 1.5 s).
            const held = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM batch_items
              WHERE batch_id = ${id} AND NOT done AND lease_owner IS NOT NULL`
            expect(held[0]?.n ?? 0).toBeGreaterThan(0)

            const restarted = Date.now()
            const second = yield* startApp("worker", env)
            const finished = yield* eventually(
              "the batch to finish",
              Effect.map(
                work.get(account, id).pipe(Effect.orDie),
                Option.liftPredicate((batch) => batch.status !== "processing")
              ),
              120_000,
              250
            )
            const takeoverMs = Date.now() - restarted
            expect(finished.status, second.output()).toBe("completed")
            // The dead worker's items are offered again under new keys once their 1.5 s leases
            // expire, not only when the queue's stall timeout gives back what it holds for that
            // worker: pinned without a clock by "offers ... expired leases always" in
            // packages/runtime/test/usecases/batch.test.ts. The time is logged, never asserted
            // (it measured 31.8 s once with the machine's two cores loaded by other work).
            expect(finished.summary).toMatchObject({ total: size, succeeded: size, failed: 0, processing: 0 })
            expect(finished.results).toHaveLength(size)
            expect(finished.results.map((result) => result.video_id)).toEqual(videoIds)
            expect(finished.results.every((result) => result.status === "completed")).toBe(true)
            expect(finished.results.every((result) => result.credits_used === 1)).toBe(true)
            const jobIds = finished.results.map((result) => result.job_id)
            expect(jobIds.every((jobId) => jobId !== null)).toBe(true)
            expect(new Set(jobIds).size).toBe(size)
            expect(finished.credits_used).toBe(size)

            const ledger = yield* Ledger
            const entries = yield* ledger.entries(account.id)
            const charges = entries.filter((entry) => entry.kind === "charge")
            expect(charges).toHaveLength(size)
            expect(charges.every((entry) => entry.amount === -1)).toBe(true)
            // One charge per job, and the jobs are the batch's.
            expect(new Set(charges.map((entry) => entry.jobId)).size).toBe(size)
            expect(new Set(charges.map((entry) => entry.jobId))).toEqual(new Set(jobIds))
            const balance = yield* ledger.balance(account.id)
            expect(balance).toBe(entries.reduce((sum, entry) => sum + entry.amount, 0))
            expect(balance).toBe(account.credits - size)
            // One transcript per video: nothing was transcribed twice.
            const transcripts = yield* sql<{ readonly n: number; readonly videos: number }>`
              SELECT count(*)::int AS n, count(DISTINCT video_id)::int AS videos FROM transcripts
              WHERE account_id = ${account.id}`
            expect(transcripts[0]).toEqual({ n: size, videos: size })
            const jobRows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM jobs
              WHERE account_id = ${account.id}`
            expect(jobRows[0]?.n).toBe(size)
            yield* Effect.logInfo(
              `batch after the kill: ${afterKill} of ${size} done, ${held[0]?.n ?? 0} held by the dead worker; finished ${takeoverMs} ms after the second worker started`
            )
          })
        )
      ),
    180_000
  )

  it.live(
    "Redis losing every key mid-run: every accepted job still finishes once",
    () =>
      withFleet((fleet) =>
        Effect.scoped(
          Effect.gen(function* () {
            const account = yield* newAccount(100)
            const created = yield* createJobs(20, {
              accountId: account.id,
              payload: { delay_ms: 300, credits: 1 }
            })
            yield* startApp("worker", { ...fleet.env, VERBATIM_WORKER_CONCURRENCY: "2" }, testLane)
            yield* eventually(
              "some jobs to finish",
              Effect.map(current(created), (jobs) =>
                Option.liftPredicate(jobs, (all) => all.some((job) => job.status === "completed"))
              ),
              60_000
            )
            const deleted = yield* flushPrefix(fleet.prefix)
            expect(deleted).toBeGreaterThan(0)
            const finished = yield* allFinished(created)
            yield* expectChargedOnce(account, finished, 1)
          })
        )
      ),
    180_000
  )

  it.live(
    "SIGTERM: the worker stops within its grace period and hands its job back; another finishes it once",
    () =>
      withFleet((fleet) =>
        Effect.scoped(
          Effect.gen(function* () {
            const account = yield* newAccount(10)
            const created = yield* createJobs(1, {
              accountId: account.id,
              payload: { delay_ms: 5_000, credits: 2 }
            })
            const first = yield* startApp("worker", fleet.env, testLane)
            yield* eventually(
              "the worker to hold the job",
              Effect.map(current(created), (jobs) =>
                Option.liftPredicate(jobs, (all) => all.every((job) => job.leaseOwner !== null))
              ),
              60_000
            )
            first.child.kill("SIGTERM")
            // Grace is 300 ms: it stops well before the 5 s job would end.
            expect(Option.isSome(yield* exitOf(first, 4_000))).toBe(true)
            const [handedBack] = yield* current(created)
            expect(handedBack).toMatchObject({ status: "processing", leaseOwner: null, attempts: 1 })
            expect(first.output()).not.toMatch(/Error|defect/i)
            // Handed back, not left to expire: another worker takes it at once and finishes it once.
            yield* startApp("worker", fleet.env, testLane)
            const finished = yield* allFinished(created)
            yield* expectChargedOnce(account, finished, 2)
            expect(finished[0]?.attempts).toBe(2)
          })
        )
      ),
    120_000
  )

  it.live(
    "pnpm worker runs the bundled worker with node; SIGTERM to a worker's process group, repeated during the shutdown, still hands the job back",
    () =>
      withFleet((fleet) =>
        Effect.scoped(
          Effect.gen(function* () {
            // The same node process as `pnpm worker`: the bundle's check, then the compiled worker in
            // that same process (`--run`), no loader or wrapper command in between to relay signals.
            expect(scriptCommand("worker").slice(1)).toEqual([
              "scripts/bundle.mjs",
              "--if-changed",
              "--run",
              "worker"
            ])
            const account = yield* newAccount(10)
            const created = yield* createJobs(1, {
              accountId: account.id,
              payload: { delay_ms: 8_000, credits: 2 }
            })
            const worker = yield* startApp(
              "worker",
              { ...fleet.env, VERBATIM_SHUTDOWN_GRACE_MS: "1500" },
              { detached: true, testLane: true }
            )
            yield* eventually(
              "the worker to hold the job",
              Effect.map(current(created), (jobs) =>
                Option.liftPredicate(jobs, (all) => all.every((job) => job.leaseOwner !== null))
              ),
              60_000
            )
            const group = worker.child.pid ?? 0
            const signalGroup = () => {
              try {
                process.kill(-group, "SIGTERM")
              } catch {
                // Already gone.
              }
            }
            signalGroup()
            // The repeats land while the worker waits its 1.5 s grace for the job in hand.
            for (const delay of [100, 500, 1_000]) setTimeout(signalGroup, delay)
            const code = yield* exitOf(worker, 6_000)
            expect(Option.isSome(code), worker.output()).toBe(true)
            expect(typeof Option.getOrUndefined(code), worker.output()).toBe("number")
            const [handedBack] = yield* current(created)
            expect(handedBack, worker.output()).toMatchObject({
              status: "processing",
              leaseOwner: null,
              attempts: 1
            })
          })
        )
      ),
    120_000
  )

  it.live(
    "two API servers and two workers: a burst runs once per job, and the rate limit holds across servers",
    () =>
      withFleet((fleet) =>
        Effect.scoped(
          Effect.gen(function* () {
            const ports = [yield* freePort, yield* freePort]
            yield* Effect.forEach(ports, (port) =>
              startApp("server", {
                ...fleet.env,
                PORT: String(port),
                HOST: "127.0.0.1",
                VERBATIM_WORKER: "off"
              })
            )
            yield* startApp("worker", fleet.env, testLane)
            yield* startApp("worker", fleet.env, testLane)

            const account = yield* newAccount(200)
            const created = yield* createJobs(60, {
              accountId: account.id,
              payload: { delay_ms: 20, credits: 1 }
            })
            const finished = yield* allFinished(created)
            yield* expectChargedOnce(account, finished, 1)

            // The free plan: 1 request per second, a bucket of 2, per account across every server.
            const free = yield* newAccount(5, "free")
            const key = (yield* (yield* AccountAdmin).issueKey(free.id).pipe(Effect.orDie)).key
            for (const port of ports) {
              yield* eventually(
                `the server on ${port} to answer`,
                Effect.promise(() =>
                  fetch(`http://127.0.0.1:${port}/api/v2/ping`).then(
                    (response) => Option.liftPredicate(response.status, (status) => status === 200),
                    () => Option.none<number>()
                  )
                ),
                60_000
              )
            }
            const started = Date.now()
            const answers = yield* Effect.promise(() =>
              Promise.all(
                Array.from({ length: 10 }, (_, i) =>
                  fetch(`http://127.0.0.1:${ports[i % 2]}/api/v2/credits`, {
                    headers: { authorization: `Bearer ${key}` }
                  }).then((response) => ({
                    status: response.status,
                    retryAfter: response.headers.get("retry-after")
                  }))
                )
              )
            )
            const seconds = (Date.now() - started) / 1000
            const allowed = answers.filter((answer) => answer.status === 200).length
            expect(allowed).toBeGreaterThanOrEqual(1)
            // A limiter per server would let 2 through on each (4 or more).
            expect(allowed).toBeLessThanOrEqual(2 + Math.ceil(seconds))
            const refused = answers.filter((answer) => answer.status === 429)
            expect(refused.length).toBe(10 - allowed)
            expect(refused.every((answer) => answer.retryAfter !== null)).toBe(true)
          })
        )
      ),
    180_000
  )
})
