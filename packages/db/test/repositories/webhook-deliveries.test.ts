/**
 * `WebhookDeliveries` on every database: a delivery is taken for one attempt at a time, attempts are
 * logged in order with the delivery's next state, a lost lease records nothing, and only pending,
 * due, unleased deliveries are listed as due. The accounts' webhook secrets are set once and rotated.
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import { DateTime, Effect, Option, Redacted } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, job, newAccount, repositories } from "./fixtures.js"

describeEachDatabase(
  "WebhookDeliveries repository",
  (it) => {
    it.effect("takes a delivery for one attempt at a time and logs every attempt", () =>
      Effect.gen(function* () {
        const { deliveries, jobs } = yield* repositories
        const account = yield* newAccount()
        const owning = yield* jobs.insert(job(account.id))
        const now = at("2026-10-03T12:00:00.000Z")
        const id = randomUUID()
        const inserted = yield* deliveries.insert({
          id,
          accountId: account.id,
          jobId: owning.id,
          event: "job.completed",
          url: "https://example.com/hook",
          payload: '{"job_id":"x"}',
          at: now
        })
        expect(inserted).toMatchObject({ id, status: "pending", attempts: 0, nextAttemptAt: now })
        const mine = (rows: ReadonlyArray<{ readonly id: string }>) => rows.filter((row) => row.id === id)
        expect(mine(yield* deliveries.due(now, 1000))).toHaveLength(1)

        expect(Option.isSome(yield* deliveries.claim(id, "a", now, 10_000))).toBe(true)
        expect(yield* deliveries.claim(id, "b", now, 10_000)).toEqual(Option.none())
        expect(mine(yield* deliveries.due(now, 1000))).toHaveLength(0)

        const retryAt = DateTime.add(now, { seconds: 5 })
        const failed = { attempt: 1, at: now, statusCode: 503, error: "answered 503", durationMs: 12 }
        // Another worker's record is refused; the holder's is kept.
        expect(
          yield* deliveries.record(id, "b", { attempt: failed, status: "pending", nextAttemptAt: retryAt })
        ).toBe(false)
        expect(
          yield* deliveries.record(id, "a", { attempt: failed, status: "pending", nextAttemptAt: retryAt })
        ).toBe(true)
        // Not due before its time.
        expect(yield* deliveries.claim(id, "b", now, 10_000)).toEqual(Option.none())
        expect(mine(yield* deliveries.due(retryAt, 1000))).toEqual([
          { id, accountId: account.id, attempts: 1 }
        ])
        expect(Option.isSome(yield* deliveries.claim(id, "b", retryAt, 10_000))).toBe(true)
        const ok = { attempt: 2, at: retryAt, statusCode: 204, error: null, durationMs: 3 }
        expect(
          yield* deliveries.record(id, "b", { attempt: ok, status: "delivered", nextAttemptAt: retryAt })
        ).toBe(true)
        // Delivered: never taken again, and the same attempt cannot be recorded twice.
        expect(yield* deliveries.claim(id, "c", DateTime.add(retryAt, { hours: 1 }), 10_000)).toEqual(
          Option.none()
        )
        expect(
          yield* deliveries.record(id, "b", { attempt: ok, status: "delivered", nextAttemptAt: retryAt })
        ).toBe(false)
        expect(yield* deliveries.attempts(id)).toEqual([failed, ok])
        const [record] = yield* deliveries.ofJob(owning.id)
        expect(record).toMatchObject({
          id,
          status: "delivered",
          attempts: 2,
          lastStatus: 204,
          completedAt: retryAt
        })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("gives each account one webhook secret, set once, replaced only by a rotation", () =>
      Effect.gen(function* () {
        const { accounts } = yield* repositories
        const account = yield* newAccount()
        const first = yield* accounts.ensureWebhookSecret(account.id, Redacted.make("whsec_first"))
        const again = yield* accounts.ensureWebhookSecret(account.id, Redacted.make("whsec_second"))
        expect(Option.map(first, Redacted.value)).toEqual(Option.some("whsec_first"))
        expect(Option.map(again, Redacted.value)).toEqual(Option.some("whsec_first"))
        expect(yield* accounts.setWebhookSecret(account.id, Redacted.make("whsec_rotated"))).toBe(true)
        const rotated = yield* accounts.ensureWebhookSecret(account.id, Redacted.make("whsec_third"))
        expect(Option.map(rotated, Redacted.value)).toEqual(Option.some("whsec_rotated"))
        const missing = yield* accounts.ensureWebhookSecret(
          "00000000-0000-4000-8000-000000000000" as typeof account.id,
          Redacted.make("x")
        )
        expect(missing).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
