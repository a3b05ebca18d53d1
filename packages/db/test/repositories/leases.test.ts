/**
 * The lease contract (`src/repositories/lease.ts`), one suite for every kind of leased work (jobs,
 * webhook deliveries, batch items, theme detections) on every database: of concurrent claims exactly
 * one wins; only the holder extends (the heartbeat), and an extension keeps others out past the
 * first expiry; an expired lease is taken over by another claim, after which the old holder can
 * neither extend nor finish; a finished lease is never claimed again; work handed back (where it
 * can be) is claimed again at once.
 */
import { randomUUID } from "node:crypto"
import { describe, expect } from "@effect/vitest"
import { Batches, type BatchRecord, ThemesId, ThemesStore } from "@verbatim/core"
import { Api, Ids } from "@verbatim/domain"
import { DateTime, Effect, Option, Schema } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, job, newAccount, repositories, transcript } from "./fixtures.js"

const start = at("2026-11-20T12:00:00.000Z")
const leaseMs = 10_000
const later = (millis: number) => DateTime.add(start, { millis })

type Needs = Effect.Effect.Context<typeof repositories> | Batches | ThemesStore

/** One kind of leased work, seen through its repository. */
interface Leased {
  readonly name: string
  /** A new row ready to be claimed at `start`; its id. */
  readonly make: Effect.Effect<string, unknown, Needs>
  readonly claim: (id: string, owner: string, now: DateTime.Utc) => Effect.Effect<boolean, unknown, Needs>
  /** The heartbeat, where the kind has one (a delivery's lease covers one attempt: none). */
  readonly extend?: (id: string, owner: string, now: DateTime.Utc) => Effect.Effect<boolean, unknown, Needs>
  /** Finishes the work under the lease; whether it was held. */
  readonly finish: (id: string, owner: string, now: DateTime.Utc) => Effect.Effect<boolean, unknown, Needs>
  /** Hands the work back to run again at once, where the kind can be handed back. */
  readonly handBack?: (id: string, owner: string, now: DateTime.Utc) => Effect.Effect<unknown, unknown, Needs>
}

const jobs: Leased = {
  name: "jobs",
  make: Effect.gen(function* () {
    const { jobs } = yield* repositories
    const account = yield* newAccount()
    const inserted = yield* jobs.insert(
      job(account.id, {
        kind: "asr",
        status: "processing",
        startedAt: null,
        completedAt: null,
        creditsUsed: 0
      })
    )
    return inserted.id
  }),
  claim: (id, owner, now) =>
    Effect.flatMap(repositories, ({ jobs }) =>
      Effect.map(
        jobs.claimMany({ ids: [Ids.JobId.make(id)], owner, now, leaseMs }),
        (got) => got.length === 1
      )
    ),
  extend: (id, owner, now) =>
    Effect.flatMap(repositories, ({ jobs }) =>
      Effect.map(
        jobs.extendLeases({ ids: [Ids.JobId.make(id)], owner, now, leaseMs }),
        (kept) => kept.length === 1
      )
    ),
  finish: (id, owner, now) =>
    Effect.flatMap(repositories, ({ jobs }) =>
      Effect.map(
        jobs.settle(Ids.JobId.make(id), owner, {
          status: "failed",
          error: "done",
          creditsUsed: 0,
          transcriptId: null,
          videoTitle: null,
          language: null,
          source: null,
          completedAt: now
        }),
        Option.isSome
      )
    ),
  handBack: (id, owner, now) =>
    Effect.flatMap(repositories, ({ jobs }) => jobs.release(Ids.JobId.make(id), owner, now))
}

const deliveries: Leased = {
  name: "webhook deliveries",
  make: Effect.gen(function* () {
    const { deliveries } = yield* repositories
    const account = yield* newAccount()
    const id = randomUUID()
    yield* deliveries.insert({
      id,
      accountId: account.id,
      jobId: null,
      event: "job.completed",
      url: "https://example.com/hook",
      payload: "{}",
      at: start
    })
    return id
  }),
  claim: (id, owner, now) =>
    Effect.flatMap(repositories, ({ deliveries }) =>
      Effect.map(deliveries.claim(id, owner, now, leaseMs), Option.isSome)
    ),
  finish: (id, owner, now) =>
    Effect.flatMap(repositories, ({ deliveries }) =>
      deliveries.record(id, owner, {
        attempt: { attempt: 1, at: now, statusCode: 200, error: null, durationMs: 1 },
        status: "delivered",
        nextAttemptAt: now
      })
    )
}

const batchItems: Leased = {
  name: "batch items",
  make: Effect.gen(function* () {
    const batches = yield* Batches
    const account = yield* newAccount()
    const batch: BatchRecord = {
      id: Ids.BatchId.make(randomUUID()),
      accountId: account.id,
      requestId: Ids.RequestId.make(randomUUID()),
      status: "processing",
      request: { format: Schema.decodeUnknownSync(Api.FormatOptions)({}), asr_options: {} },
      total: 1,
      webhookUrl: null,
      webhookDeliveryId: null,
      fetchesAfterFinish: 0,
      fetchWindowStartedAt: null,
      createdAt: start,
      startedAt: null,
      completedAt: null
    }
    yield* batches.insert(batch, [{ videoId: "vidLEASEaaa", error: null }])
    return `${batch.id}:0`
  }),
  claim: (id, owner, now) =>
    Effect.flatMap(Batches, (batches) =>
      Effect.map(
        batches.claimItem({
          batchId: Ids.BatchId.make(id.split(":")[0] ?? ""),
          position: 0,
          owner,
          now,
          leaseMs
        }),
        (claimed) => claimed._tag === "Claimed"
      )
    ),
  extend: (id, owner, now) =>
    Effect.flatMap(Batches, (batches) =>
      batches.extendItemLease({
        batchId: Ids.BatchId.make(id.split(":")[0] ?? ""),
        position: 0,
        owner,
        now,
        leaseMs
      })
    ),
  finish: (id, owner) =>
    Effect.flatMap(Batches, (batches) =>
      Effect.map(
        batches.itemDone(Ids.BatchId.make(id.split(":")[0] ?? ""), 0, owner),
        (done) => done !== "not held"
      )
    )
}

const themes: Leased = {
  name: "theme detections",
  make: Effect.gen(function* () {
    const { transcripts } = yield* repositories
    const store = yield* ThemesStore
    const account = yield* newAccount()
    const { record: stored } = yield* transcripts.store(transcript(account.id))
    const unlocked = yield* store.unlock({
      id: ThemesId.make(randomUUID()),
      accountId: account.id,
      transcriptId: stored.id,
      videoId: stored.videoId,
      language: stored.language,
      status: "processing",
      result: null,
      creditsCharged: 1,
      at: start
    })
    return Option.getOrThrow(unlocked).id
  }),
  claim: (id, owner, now) =>
    Effect.flatMap(ThemesStore, (store) =>
      Effect.map(store.claim({ id: ThemesId.make(id), owner, now, leaseMs }), Option.isSome)
    ),
  extend: (id, owner, now) =>
    Effect.flatMap(ThemesStore, (store) => store.extendLease({ id: ThemesId.make(id), owner, now, leaseMs })),
  finish: (id, owner, now) =>
    Effect.flatMap(ThemesStore, (store) =>
      Effect.map(store.refund(ThemesId.make(id), owner, "done", now), Option.isSome)
    ),
  handBack: (id, owner) => Effect.flatMap(ThemesStore, (store) => store.release(ThemesId.make(id), owner))
}

const kinds: ReadonlyArray<Leased> = [jobs, deliveries, batchItems, themes]

describeEachDatabase(
  "the lease contract",
  (it) => {
    describe("every leased table: one claim wins, the holder alone extends and finishes, expired leases are taken over, handed-back work is claimed again", () => {
      for (const kind of kinds) {
        it.effect(`${kind.name}: of concurrent claims exactly one wins, and the winner alone finishes`, () =>
          Effect.gen(function* () {
            const id = yield* kind.make
            const owners = Array.from({ length: 8 }, (_, i) => `w${i}`)
            const claims = yield* Effect.all(
              owners.map((owner) => kind.claim(id, owner, start)),
              { concurrency: "unbounded" }
            )
            expect(claims.filter(Boolean)).toHaveLength(1)
            const winner = owners[claims.indexOf(true)] ?? ""
            const loser = owners.find((owner) => owner !== winner) ?? ""
            expect(yield* kind.claim(id, loser, later(1))).toBe(false)
            expect(yield* kind.finish(id, loser, later(1))).toBe(false)
            expect(yield* kind.finish(id, winner, later(1))).toBe(true)
            // Finished: nobody takes it again, even once the lease would have expired.
            expect(yield* kind.claim(id, loser, later(leaseMs * 2))).toBe(false)
            if (kind.extend !== undefined) expect(yield* kind.extend(id, winner, later(2))).toBe(false)
          }).pipe(Effect.provide(RepositoriesLive))
        )

        it.effect(
          `${kind.name}: an expired lease is taken over; the old holder can neither extend nor finish`,
          () =>
            Effect.gen(function* () {
              const id = yield* kind.make
              expect(yield* kind.claim(id, "a", start)).toBe(true)
              expect(yield* kind.claim(id, "b", later(leaseMs - 1))).toBe(false)
              expect(yield* kind.claim(id, "b", later(leaseMs))).toBe(true)
              if (kind.extend !== undefined)
                expect(yield* kind.extend(id, "a", later(leaseMs + 1))).toBe(false)
              expect(yield* kind.finish(id, "a", later(leaseMs + 1))).toBe(false)
              expect(yield* kind.finish(id, "b", later(leaseMs + 1))).toBe(true)
            }).pipe(Effect.provide(RepositoriesLive))
        )

        const extend = kind.extend
        if (extend !== undefined) {
          it.effect(`${kind.name}: only the holder extends, and an extended lease keeps others out`, () =>
            Effect.gen(function* () {
              const id = yield* kind.make
              expect(yield* kind.claim(id, "a", start)).toBe(true)
              expect(yield* extend(id, "b", later(1))).toBe(false)
              expect(yield* extend(id, "a", later(leaseMs / 2))).toBe(true)
              // Past the first expiry, inside the extended one.
              expect(yield* kind.claim(id, "b", later(leaseMs + 1))).toBe(false)
              expect(yield* kind.claim(id, "b", later(leaseMs / 2 + leaseMs))).toBe(true)
            }).pipe(Effect.provide(RepositoriesLive))
          )
        }

        const handBack = kind.handBack
        if (handBack !== undefined) {
          it.effect(`${kind.name}: work handed back by its holder is claimed again at once`, () =>
            Effect.gen(function* () {
              const id = yield* kind.make
              expect(yield* kind.claim(id, "a", start)).toBe(true)
              yield* handBack(id, "b", later(1))
              expect(yield* kind.claim(id, "b", later(1))).toBe(false)
              yield* handBack(id, "a", later(1))
              expect(yield* kind.claim(id, "b", later(1))).toBe(true)
              if (kind.extend !== undefined) expect(yield* kind.extend(id, "a", later(2))).toBe(false)
            }).pipe(Effect.provide(RepositoriesLive))
          )
        }
      }
    })
  },
  { migrations }
)
