/**
 * Asynchronous work on the embedded default (in-memory queue, the worker's fibers in the server
 * process): a job that asks for retries runs again until it completes, charged once; a job that
 * keeps failing transiently fails for good after the attempt limit, charged nothing.
 */
import { expect, layer } from "@effect/vitest"
import { JobLifecycle, Jobs, Ledger } from "@verbatim/core"
import { eventually, testJob, testWorkSettings } from "@verbatim/runtime/testing"
import { Effect, Option } from "effect"
import { TestServer, TestServerLive } from "./server.js"

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("embedded work", (it) => {
  const finishedJob = (
    accountId: Parameters<Jobs["Type"]["get"]>[0],
    id: Parameters<Jobs["Type"]["get"]>[1]
  ) =>
    eventually(
      "the job to finish",
      Effect.map(
        Effect.flatMap(Jobs, (jobs) => jobs.get(accountId, id)),
        Option.filter((job) => job.status !== "processing")
      )
    )

  it.effect(
    "a transient failure is retried until the job completes, charged once",
    () =>
      Effect.gen(function* () {
        const account = yield* (yield* TestServer).createAccount({ credits: 10 })
        const job = yield* testJob({ accountId: account.id, payload: { credits: 4, retry_until_attempt: 3 } })
        yield* (yield* JobLifecycle).create(job)
        const done = yield* finishedJob(account.id, job.id)
        expect(done).toMatchObject({ status: "completed", attempts: 3, creditsUsed: 4 })
        const charges = (yield* (yield* Ledger).entries(account.id)).filter((e) => e.kind === "charge")
        expect(charges.map((e) => [e.jobId, e.amount])).toEqual([[job.id, -4]])
      }),
    30_000
  )

  it.effect(
    "a job still failing after the attempt limit fails for good and charges nothing",
    () =>
      Effect.gen(function* () {
        const account = yield* (yield* TestServer).createAccount({ credits: 10 })
        const job = yield* testJob({
          accountId: account.id,
          payload: { credits: 4, retry_until_attempt: 1000 }
        })
        yield* (yield* JobLifecycle).create(job)
        const done = yield* finishedJob(account.id, job.id)
        expect(done).toMatchObject({
          status: "failed",
          attempts: testWorkSettings().maxAttempts,
          creditsUsed: 0
        })
        expect(done.error).toContain("asked to retry")
        expect((yield* (yield* Ledger).entries(account.id)).filter((e) => e.kind === "charge")).toEqual([])
      }),
    30_000
  )
})
