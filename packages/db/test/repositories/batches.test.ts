/**
 * `Batches` on every database: items are taken under a lease once; an item whose video an earlier
 * item of the account's batches names (same batch at a lower position, or an older batch) waits
 * until that item is done, so one video is fetched once; another account's batches never hold an
 * item back; a lease that expired can be taken again; a heartbeat extends only its owner's lease.
 */
import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { Batches, type BatchItem, type BatchRecord, Transcripts } from "@verbatim/core"
import { Api, Ids } from "@verbatim/domain"
import { DateTime, Effect, Option, Schema } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, newAccount, transcript } from "./fixtures.js"

const batch = (accountId: Ids.AccountId, createdAt: string, total: number): BatchRecord => ({
  id: Ids.BatchId.make(randomUUID()),
  accountId,
  requestId: Ids.RequestId.make(randomUUID()),
  status: "processing",
  request: { format: Schema.decodeUnknownSync(Api.FormatOptions)({}), asr_options: {} },
  total,
  webhookUrl: null,
  webhookDeliveryId: null,
  fetchesAfterFinish: 0,
  fetchWindowStartedAt: null,
  createdAt: at(createdAt),
  startedAt: null,
  completedAt: null
})

const items = (videoIds: ReadonlyArray<string>): Array<BatchItem> =>
  videoIds.map((videoId, position) => ({
    position,
    requestId: Ids.RequestId.make(randomUUID()),
    jobId: Ids.JobId.make(randomUUID()),
    videoId,
    error: null,
    done: false
  }))

const now = at("2026-11-01T12:00:00.000Z")

describeEachDatabase(
  "Batches repository",
  (it) => {
    it.effect("an item waits for an earlier item of the same video, in its batch or an older one", () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const owner = yield* newAccount()
        const other = yield* newAccount("Grace")
        const older = batch(owner.id, "2026-11-01T11:00:00.000Z", 2)
        const newer = batch(owner.id, "2026-11-01T11:30:00.000Z", 2)
        const others = batch(other.id, "2026-11-01T11:45:00.000Z", 1)
        yield* batches.insert(older, items(["vidAAAAAAAA", "vidBBBBBBBB"]))
        yield* batches.insert(newer, items(["vidBBBBBBBB", "vidAAAAAAAA"]))
        yield* batches.insert(others, items(["vidAAAAAAAA"]))
        const claim = (id: Ids.BatchId, position: number, owner = "w1", when = now) =>
          batches.claimItem({ batchId: id, position, owner, now: when, leaseMs: 10_000 })

        // Another account's item is never held back by this account's batches.
        expect((yield* claim(others.id, 0))._tag).toBe("Claimed")
        // The newer batch waits for the older batch's items of the same videos.
        expect(yield* claim(newer.id, 0)).toEqual({ _tag: "Waiting" })
        expect((yield* claim(newer.id, 1))._tag).toBe("Waiting")
        const first = yield* claim(older.id, 0)
        expect(first).toMatchObject({
          _tag: "Claimed",
          item: { position: 0, videoId: "vidAAAAAAAA", done: false }
        })
        // The first claim started the batch, and read the batch's account with it.
        if (first._tag === "Claimed") {
          expect(first.batch.startedAt).toEqual(now)
          const { credits: _, ...account } = owner
          expect(first.account).toEqual(Option.some(account))
          expect(first.available).toBe(owner.credits)
          expect(first.ownsVideo).toBe(false)
        }
        // Held by a worker: taken, not waiting.
        expect((yield* claim(older.id, 0, "w2"))._tag).toBe("Taken")
        expect(yield* batches.itemDone(older.id, 0, "w1")).toBe("marked")
        // The claim tells whether the account has a transcript of the item's video (its own only).
        const transcripts = yield* Transcripts
        yield* transcripts.store(transcript(owner.id, { videoId: "vidAAAAAAAA" }))
        yield* transcripts.store(transcript(other.id, { videoId: "vidBBBBBBBB" }))
        expect(yield* claim(newer.id, 1)).toMatchObject({ _tag: "Claimed", ownsVideo: true })
        expect((yield* claim(newer.id, 0))._tag).toBe("Waiting")
        // An expired lease can be taken again, by another worker.
        const later = DateTime.add(now, { seconds: 11 })
        const fresh = yield* claim(older.id, 1, "w1")
        expect(fresh).toMatchObject({ _tag: "Claimed", takenBefore: false, batch: { id: older.id } })
        // Taken again: the claim says so (the item's job may exist already).
        expect(yield* claim(older.id, 1, "w2", later)).toMatchObject({ _tag: "Claimed", takenBefore: true })
        expect(yield* batches.itemDone(older.id, 1, "w1")).toBe("not held")
        expect(yield* batches.itemDone(older.id, 1, "w2")).toBe("last")
        expect(yield* batches.itemDone(older.id, 1, "w2")).toBe("not held")
        expect(yield* claim(newer.id, 0)).toMatchObject({ _tag: "Claimed", ownsVideo: false })
        // Done items are taken by nobody (the claim tells the batch's size).
        expect(yield* claim(older.id, 0, "w3", later)).toEqual({ _tag: "Taken", total: 2 })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("within one batch, a repeated video runs after its first position", () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const owner = yield* newAccount()
        const one = batch(owner.id, "2026-11-01T11:00:00.000Z", 3)
        yield* batches.insert(one, items(["vidCCCCCCCC", "vidDDDDDDDD", "vidCCCCCCCC"]))
        const claim = (position: number) =>
          batches.claimItem({ batchId: one.id, position, owner: "w1", now, leaseMs: 10_000 })
        expect((yield* claim(2))._tag).toBe("Waiting")
        expect((yield* claim(1))._tag).toBe("Claimed")
        expect((yield* claim(0))._tag).toBe("Claimed")
        expect((yield* claim(2))._tag).toBe("Waiting")
        yield* batches.itemDone(one.id, 0, "w1")
        expect((yield* claim(2))._tag).toBe("Claimed")
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("a heartbeat extends the lease of the item its owner holds, until the item is done", () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const owner = yield* newAccount()
        const one = batch(owner.id, "2026-11-01T11:00:00.000Z", 1)
        yield* batches.insert(one, items(["vidEEEEEEEE"]))
        const claim = (worker: string, when: DateTime.Utc) =>
          batches.claimItem({ batchId: one.id, position: 0, owner: worker, now: when, leaseMs: 10_000 })
        const extend = (worker: string, when: DateTime.Utc) =>
          batches.extendItemLease({ batchId: one.id, position: 0, owner: worker, now: when, leaseMs: 10_000 })
        expect((yield* claim("w1", now))._tag).toBe("Claimed")
        // Extended 8 s in by its owner, the lease runs to 18 s: at 11 s the item is still held.
        expect(yield* extend("w1", DateTime.add(now, { seconds: 8 }))).toBe(true)
        expect(yield* extend("w2", DateTime.add(now, { seconds: 8 }))).toBe(false)
        expect((yield* claim("w2", DateTime.add(now, { seconds: 11 })))._tag).toBe("Taken")
        // Once the lease is over, another worker takes the item, and the first one's heartbeat fails.
        expect((yield* claim("w2", DateTime.add(now, { seconds: 19 })))._tag).toBe("Claimed")
        expect(yield* extend("w1", DateTime.add(now, { seconds: 20 }))).toBe(false)
        // A done item has no lease to extend.
        expect(yield* batches.itemDone(one.id, 0, "w2")).toBe("last")
        expect(yield* extend("w2", DateTime.add(now, { seconds: 20 }))).toBe(false)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "items marked done at once: every mark lands, and exactly one of them is told it was the last",
      () =>
        Effect.gen(function* () {
          const batches = yield* Batches
          const owner = yield* newAccount()
          for (const round of [0, 1, 2]) {
            const size = 12
            const one = batch(owner.id, `2026-11-01T11:0${round}:00.000Z`, size)
            yield* batches.insert(
              one,
              items(Array.from({ length: size }, (_, i) => `vid${round}${String(i).padStart(7, "0")}`))
            )
            for (let position = 0; position < size; position++) {
              const claimed = yield* batches.claimItem({
                batchId: one.id,
                position,
                owner: "w",
                now,
                leaseMs: 60_000
              })
              expect(claimed._tag).toBe("Claimed")
            }
            const marks = yield* Effect.all(
              Array.from({ length: size }, (_, position) => batches.itemDone(one.id, position, "w")),
              { concurrency: "unbounded" }
            )
            expect(marks.filter((mark) => mark === "last")).toEqual(["last"])
            expect(marks.filter((mark) => mark === "marked")).toHaveLength(size - 1)
            expect(yield* batches.hasUndone(one.id)).toBe(false)
          }
        }).pipe(Effect.provide(RepositoriesLive))
    )

    // Migration 0022 (decision BATCH-18): the foreign key's two rules, checked per statement.
    it.effect("items need their batch, and leave with it (deleting the account deletes both)", () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const sql = yield* SqlClient.SqlClient
        const owner = yield* newAccount()
        const other = yield* newAccount("Grace")
        const kept = batch(other.id, "2026-11-01T11:00:00.000Z", 2)
        const first = batch(owner.id, "2026-11-01T11:00:00.000Z", 2)
        const second = batch(owner.id, "2026-11-01T11:10:00.000Z", 1)
        const gone = [first, second]
        yield* batches.insert(kept, items(["vidFFFFFFFF", "vidGGGGGGGG"]))
        yield* batches.insert(first, items(["vidFFFFFFFF", "vidGGGGGGGG"]))
        yield* batches.insert(second, items(["vidHHHHHHHH"]))
        const count = (ids: ReadonlyArray<Ids.BatchId>) =>
          Effect.map(
            sql<{
              readonly n: number
            }>`SELECT count(*)::int AS n FROM batch_items WHERE batch_id IN ${sql.in(ids)}`,
            (rows) => rows[0]?.n
          )
        expect(yield* count(gone.map((b) => b.id))).toBe(3)

        // An item naming no batch is refused, and nothing of its statement is kept, even beside
        // items whose batch exists.
        const orphan = Ids.BatchId.make(randomUUID())
        const refused = yield* sql`INSERT INTO batch_items (batch_id, position, request_id, video_id, job_id)
          VALUES (${kept.id}, 5, ${randomUUID()}, 'vidIIIIIIII', ${randomUUID()}),
            (${orphan}, 0, ${randomUUID()}, 'vidIIIIIIII', ${randomUUID()})`.pipe(Effect.flip)
        expect(String(refused.cause)).toContain(orphan)
        expect(yield* count([kept.id, orphan])).toBe(2)

        // Deleting one batch deletes its items only; deleting the account deletes the rest.
        yield* sql`DELETE FROM batches WHERE id = ${second.id}`
        expect(yield* count([second.id])).toBe(0)
        expect(yield* count([first.id])).toBe(2)
        yield* sql`DELETE FROM accounts WHERE id = ${owner.id}`
        expect(yield* count(gone.map((b) => b.id))).toBe(0)
        expect(yield* count([kept.id])).toBe(2)
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
