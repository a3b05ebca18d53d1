/**
 * The worker on the production wiring (its claims and settles in batches, its one heartbeat):
 *
 * - a backlog of many jobs of several accounts is drained with every job claimed and settled once,
 *   each charged once, the books balanced; an account that runs out of credits has only the jobs it
 *   cannot pay failed, uncharged;
 * - a job whose lease is lost while its handler runs is interrupted by the heartbeat and writes
 *   nothing: the new holder settles it;
 * - closing the worker waits for the settles in flight: nothing is left processing in its hands;
 * - reconciling sweeps expired idempotency keys and OAuth codes and tokens, never live ones, and day-old unused clients;
 * - each job's claim, completion, failure, retry and lease takeover is logged with its id, kind,
 *   account and the time since it was claimed.
 */
import { randomUUID } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import {
  BackgroundWork,
  IdempotencyKeys,
  JobLifecycle,
  type JobRecord,
  Jobs,
  OAuthStore,
  oauthLifetimes,
  reconcileOnce,
  WorkQueue
} from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { DateTime, Duration, Effect, HashMap, Logger, Option } from "effect"
import { runWorker } from "../../src/index.js"
import { eventually, testJob, testWorkerOn, testWorkSettings } from "../../src/testing.js"
import {
  accountWithKey,
  books,
  createAccount,
  expectBalancedBooks,
  liveSuiteOptions,
  useCasesLayer
} from "./support.js"

const findJob = (id: Ids.JobId) =>
  Effect.flatMap(Jobs, (jobs) => jobs.find(id)).pipe(Effect.map(Option.getOrThrow))

/** Waits until none of the jobs is processing; their records. */
const allFinished = (ids: ReadonlyArray<Ids.JobId>) =>
  eventually(
    "every job to finish",
    Effect.map(Effect.forEach(ids, findJob), (jobs) =>
      jobs.every((job) => job.status !== "processing") ? Option.some(jobs) : Option.none()
    ),
    60_000
  )

const workers = (concurrency: number) =>
  testWorkerOn(testWorkSettings({ concurrency, leaseMs: 600, reconcileEveryMs: 200 }))

// Live clock: the embedded worker runs in the background (see `liveSuiteOptions`).
layer(useCasesLayer(), liveSuiteOptions)("the worker on the production wiring", (it) => {
  it.effect(
    "drains a backlog in batches: every job claimed and settled once, charged once; a poor account's unpaid jobs fail",
    () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const rich = yield* createAccount({ credits: 1_000 })
        const poor = yield* createAccount({ credits: 7 })
        const created: Array<JobRecord> = []
        for (let i = 0; i < 60; i++) {
          const owner = i % 4 === 0 ? poor : rich
          created.push(
            yield* lifecycle.create(yield* testJob({ accountId: owner.id, payload: { credits: 2 } }))
          )
        }
        const done = yield* Effect.scoped(
          Effect.zipRight(runWorker, allFinished(created.map((j) => j.id)))
        ).pipe(Effect.provide(workers(16)))
        for (const job of done) expect(job).toMatchObject({ attempts: 1, leaseOwner: null })
        const ofPoor = done.filter((job) => job.accountId === poor.id)
        // 15 jobs of 2 credits against 7 credits: 3 paid, the others failed uncharged.
        expect(ofPoor.filter((job) => job.status === "completed").length).toBe(3)
        for (const job of ofPoor.filter((j) => j.status === "failed")) {
          expect(job).toMatchObject({ creditsUsed: 0 })
          expect(job.error).toContain("this needs 2 credits")
        }
        expect(
          done.filter((job) => job.accountId === rich.id).every((job) => job.status === "completed")
        ).toBe(true)
        const richBooks = yield* expectBalancedBooks(rich)
        expect(richBooks.balance).toBe(1_000 - 45 * 2)
        expect(new Set(richBooks.charges.map((c) => c.key)).size).toBe(45)
        const poorBooks = yield* expectBalancedBooks(poor)
        expect([poorBooks.balance, poorBooks.charges.length]).toEqual([1, 3])
      }),
    90_000
  )

  it.effect(
    "a job whose lease is lost while its handler runs is interrupted and writes nothing; the new holder settles it",
    () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const jobs = yield* Jobs
        const account = yield* createAccount({ credits: 10 })
        const job = yield* lifecycle.create(
          yield* testJob({ accountId: account.id, payload: { credits: 3, delay_ms: 60_000 } })
        )
        const logged: Array<string> = []
        const collect = Logger.make(({ message }) => {
          logged.push(...(Array.isArray(message) ? message : [message]).map(String))
        })
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* runWorker
            const started = yield* eventually(
              "the worker to claim the job",
              Effect.map(findJob(job.id), (found) =>
                Option.some(found).pipe(Option.filter((j) => j.attempts === 1))
              )
            )
            const owner = started.leaseOwner ?? ""
            // Another worker takes the job over (as it would once the lease had expired).
            yield* jobs.release(job.id, owner, yield* DateTime.now)
            yield* jobs.claim({ id: job.id, owner: "thief", now: yield* DateTime.now, leaseMs: 60_000 })
            // The heartbeat (every 200 ms here) finds the lease lost and stops the handler, long before
            // the worker stops (the handler would sleep for a minute).
            yield* eventually(
              "the worker to stop the handler",
              Effect.sync(() =>
                Option.some(logged).pipe(
                  Option.filter((lines) =>
                    lines.includes(`job ${job.id}: lease lost while working; another worker has it`)
                  )
                )
              ),
              10_000
            )
            expect(yield* findJob(job.id)).toMatchObject({ status: "processing", leaseOwner: "thief" })
          })
        ).pipe(Effect.provide(workers(2)), Effect.provide(Logger.replace(Logger.defaultLogger, collect)))
        const settled = yield* lifecycle.settle(
          yield* findJob(job.id),
          "thief",
          { _tag: "Completed", transcript: null, price: 3, reason: "the thief's work" },
          yield* DateTime.now
        )
        expect(Option.getOrThrow(settled).job).toMatchObject({ status: "completed", creditsUsed: 3 })
        const { balance, charges } = yield* expectBalancedBooks(account)
        expect([balance, charges.length]).toEqual([7, 1])
      }),
    60_000
  )

  it.effect("closing the worker waits for the settles in flight: nothing is left in its hands", () =>
    Effect.gen(function* () {
      const lifecycle = yield* JobLifecycle
      const queue = yield* WorkQueue
      const account = yield* createAccount({ credits: 100 })
      const created: Array<JobRecord> = []
      for (let i = 0; i < 30; i++) {
        created.push(
          yield* lifecycle.create(yield* testJob({ accountId: account.id, payload: { credits: 1 } }))
        )
      }
      // The worker is closed as soon as the lane is empty, while the last jobs may still be settling.
      yield* Effect.scoped(
        Effect.zipRight(
          runWorker,
          eventually(
            "the lane to be empty",
            Effect.map(Effect.orDie(queue.depth("test.delay")), (depth) =>
              depth.waiting + depth.delayed + depth.active === 0 ? Option.some(depth) : Option.none()
            )
          )
        )
      ).pipe(Effect.provide(workers(8)))
      for (const job of created) {
        expect(yield* findJob(job.id)).toMatchObject({ status: "completed", leaseOwner: null })
      }
      expect((yield* books(account)).balance).toBe(70)
    })
  )

  it.effect(
    "reconciling sweeps expired idempotency keys and OAuth codes and tokens, never live ones, and day-old unused clients",
    () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyKeys
        const store = yield* OAuthStore
        const { account, record: apiKey } = yield* accountWithKey()
        const now = yield* DateTime.now
        const ago = (hours: number) => DateTime.subtract(now, { hours })
        const claim = (key: string, createdAt: DateTime.Utc) =>
          keys.begin({
            accountId: account.id,
            endpoint: "POST /transcribe",
            key,
            request: "{}",
            now: createdAt,
            expiresAt: DateTime.add(createdAt, { hours: 24 })
          })
        yield* claim("expired", ago(25))
        yield* claim("live", ago(23))
        const clientId = randomUUID()
        yield* store.saveClient({
          id: clientId,
          secretHash: null,
          name: "Sweep",
          redirectUris: [],
          createdAt: ago(48)
        })
        const code = {
          codeHash: `code-${randomUUID()}`,
          clientId,
          accountId: account.id,
          apiKeyId: apiKey.id,
          redirectUri: "https://assistant.example/cb",
          codeChallenge: "c".repeat(43),
          resource: null,
          scope: null,
          expiresAt: ago(1)
        }
        yield* store.saveCode(code)
        const grantId = randomUUID()
        yield* store.saveGrant({
          id: grantId,
          clientId,
          accountId: account.id,
          apiKeyId: apiKey.id,
          createdAt: ago(48)
        })
        // Clients never signed in with: removed a day after their registration, not before.
        const unusedClient = (id: string, createdAt: DateTime.Utc) =>
          Effect.as(
            store.saveClient({ id, secretHash: null, name: "Unused", redirectUris: [], createdAt }),
            id
          )
        const oldUnused = yield* unusedClient(
          randomUUID(),
          DateTime.subtractDuration(now, Duration.sum(oauthLifetimes.unusedClient, Duration.seconds(1)))
        )
        const newUnused = yield* unusedClient(randomUUID(), ago(23))
        const token = (kind: "access" | "refresh", expiresAt: DateTime.Utc) => ({
          tokenHash: `${kind}-${randomUUID()}`,
          kind,
          grantId,
          resource: null,
          scope: null,
          createdAt: ago(48),
          expiresAt
        })
        const expiredAccess = token("access", ago(47))
        const liveRefresh = token("refresh", DateTime.add(now, { days: 28 }))
        yield* store.saveToken(expiredAccess)
        yield* store.saveToken(liveRefresh)

        yield* Effect.scoped(Effect.flatMap(BackgroundWork, reconcileOnce)).pipe(Effect.provide(workers(1)))

        expect(Option.isSome(yield* keys.get(account.id, "POST /transcribe", "expired"))).toBe(false)
        expect(Option.isSome(yield* keys.get(account.id, "POST /transcribe", "live"))).toBe(true)
        expect(yield* store.takeCode(code.codeHash)).toEqual(Option.none())
        expect(Option.isSome(yield* store.token(expiredAccess.tokenHash))).toBe(false)
        expect(yield* store.useRefreshToken(liveRefresh.tokenHash, now)).toBe(true)
        expect(Option.isSome(yield* store.client(oldUnused))).toBe(false)
        expect(Option.isSome(yield* store.client(newUnused))).toBe(true)
        expect(Option.isSome(yield* store.client(clientId))).toBe(true)
      })
  )

  it.effect(
    "logs each job's claim, completion, failure, retry and lease takeover with its id, kind, account and duration",
    () =>
      Effect.gen(function* () {
        const lifecycle = yield* JobLifecycle
        const jobs = yield* Jobs
        const account = yield* createAccount({ credits: 100 })
        const create = (payload: Record<string, unknown>) =>
          Effect.flatMap(testJob({ accountId: account.id, payload }), (job) => lifecycle.create(job))
        const completes = yield* create({ credits: 1 })
        const fails = yield* create({ fail: "it broke" })
        const retries = yield* create({ retry_until_attempt: 2 })
        const orphan = yield* create({})
        // A worker that died holding the job: its lease runs out and this worker takes the job over.
        yield* jobs.claim({ id: orphan.id, owner: "dead-worker", now: yield* DateTime.now, leaseMs: 1 })
        const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = []
        const collect = Logger.make(({ logLevel, message, annotations }) => {
          lines.push({
            level: logLevel.label,
            msg: (Array.isArray(message) ? message : [message]).map(String).join(" "),
            fields: Object.fromEntries(HashMap.toEntries(annotations))
          })
        })
        yield* Effect.scoped(
          Effect.zipRight(runWorker, allFinished([completes.id, fails.id, retries.id, orphan.id]))
        ).pipe(Effect.provide(workers(4)), Effect.provide(Logger.replace(Logger.defaultLogger, collect)))
        const about = (job: JobRecord, msg: string) =>
          lines.filter((line) => line.fields["job.id"] === job.id && line.msg === `job ${job.id} ${msg}`)
        // Every line names the request that made the job, too.
        const shape = {
          "job.kind": "test.delay",
          "account.id": account.id,
          duration_ms: expect.any(Number),
          request_id: expect.any(String)
        }
        expect(about(completes, "claimed")).toEqual([
          {
            level: "INFO",
            msg: `job ${completes.id} claimed`,
            fields: { ...shape, "job.id": completes.id, attempt: 1 }
          }
        ])
        expect(about(completes, "completed")).toEqual([
          {
            level: "INFO",
            msg: `job ${completes.id} completed`,
            fields: { ...shape, "job.id": completes.id, outcome: "Completed" }
          }
        ])
        expect(about(fails, "failed")).toEqual([
          {
            level: "WARN",
            msg: `job ${fails.id} failed`,
            fields: { ...shape, "job.id": fails.id, error: "it broke" }
          }
        ])
        expect(about(retries, "will be retried")).toEqual([
          {
            level: "INFO",
            msg: `job ${retries.id} will be retried`,
            fields: {
              ...shape,
              "job.id": retries.id,
              attempt: 1,
              retry_in_ms: 0,
              error: "attempt 1 asked to retry"
            }
          }
        ])
        expect(about(completes, "claimed")[0]?.fields.request_id).toBe(completes.requestId)
        expect(about(retries, "claimed").map((line) => line.fields.attempt)).toEqual([1, 2])
        expect(about(retries, "completed")).toHaveLength(1)
        expect(about(orphan, "taken over from an expired lease")).toEqual([
          {
            level: "WARN",
            msg: `job ${orphan.id} taken over from an expired lease`,
            fields: { ...shape, "job.id": orphan.id, attempt: 2, "lease.previous_owner": "dead-worker" }
          }
        ])
        expect(about(orphan, "claimed")).toEqual([])
        expect(about(orphan, "completed")).toHaveLength(1)
      }),
    60_000
  )
})
