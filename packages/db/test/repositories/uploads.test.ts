/**
 * `Uploads` on every database: an upload is the account's alone, moves registered -> uploaded ->
 * consumed only once each (compare-and-set), and is swept when it expired unconsumed (record and
 * file) or when the job that consumed it finished (file only).
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import type { UploadRecord } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { DateTime, Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, job, newAccount, repositories } from "./fixtures.js"

const upload = (accountId: Ids.AccountId, overrides: Partial<UploadRecord> = {}): UploadRecord => {
  const id = Ids.UploadId.make(randomUUID())
  return {
    id,
    accountId,
    filename: "talk.wav",
    mimeType: "audio/wav",
    // Beyond 32 bits, to exercise the bigint column.
    sizeBytes: 2_147_483_648,
    durationSeconds: 28_800,
    path: `uploads/${accountId}/${id}`,
    status: "registered",
    jobId: null,
    expiresAt: at("2026-10-03T13:00:00.000Z"),
    createdAt: at("2026-10-03T12:00:00.000Z"),
    uploadedAt: null,
    consumedAt: null,
    fileRemovedAt: null,
    putClosesAt: at("2026-10-03T14:00:00.000Z"),
    ...overrides
  }
}

/** A quota no test here reaches. */
const roomy = { inFlight: 1_000, bytesStored: Number.MAX_SAFE_INTEGER }

describeEachDatabase(
  "Uploads repository",
  (it) => {
    it.effect(
      "an insert past the quota is refused with the usage it found; concurrent inserts of one account never pass it together",
      () =>
        Effect.gen(function* () {
          const { uploads, jobs } = yield* repositories
          const owner = yield* newAccount()
          const other = yield* newAccount("Grace")
          const quota = { inFlight: 3, bytesStored: 5 * 2_147_483_648 }
          const tried = yield* Effect.forEach(
            Array.from({ length: 8 }, () => upload(owner.id)),
            (u) => uploads.insert(u, quota),
            { concurrency: "unbounded" }
          )
          expect(tried.filter((t) => t.inserted).length).toBe(3)
          expect(tried.filter((t) => !t.inserted).map((t) => t.usage)).toEqual(
            Array.from({ length: 5 }, () => ({ inFlight: 3, bytesStored: 3 * 2_147_483_648 }))
          )
          // Another account's uploads are its own.
          expect((yield* uploads.insert(upload(other.id), quota)).inserted).toBe(true)
          // A consumed upload is no longer in flight, but its file counts as stored until removed.
          const first = yield* uploads.insert(upload(owner.id, { sizeBytes: 1 }), roomy)
          expect(first).toEqual({ inserted: true, usage: { inFlight: 3, bytesStored: 3 * 2_147_483_648 } })
          const consumedOne = upload(owner.id, { sizeBytes: 10 })
          yield* uploads.insert(consumedOne, roomy)
          const now = at("2026-10-03T12:10:00.000Z")
          yield* uploads.markUploaded(consumedOne.id, now, at("2026-10-04T12:10:00.000Z"))
          const consuming = yield* jobs.insert(job(owner.id))
          yield* uploads.consume(consumedOne.id, consuming.id, now)
          const after = yield* uploads.insert(upload(owner.id, { sizeBytes: 1 }), {
            inFlight: 5,
            bytesStored: Number.MAX_SAFE_INTEGER
          })
          expect(after).toEqual({
            inserted: true,
            usage: { inFlight: 4, bytesStored: 3 * 2_147_483_648 + 1 + 10 }
          })
          // Bytes: one more of the largest size does not fit in what is left.
          const full = yield* uploads.insert(upload(owner.id), {
            inFlight: 100,
            bytesStored: 4 * 2_147_483_648
          })
          expect(full.inserted).toBe(false)
          // An expired, unconsumed upload is no longer in flight (the sweep removes its file later).
          const late = yield* uploads.insert(
            upload(owner.id, { sizeBytes: 1, createdAt: at("2026-10-03T15:00:00.000Z") }),
            roomy
          )
          expect(late.usage.inFlight).toBe(0)
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("keeps an upload as registered and shows it to its account only", () =>
      Effect.gen(function* () {
        const { uploads } = yield* repositories
        const owner = yield* newAccount()
        const other = yield* newAccount("Grace")
        const registered = upload(owner.id)
        yield* uploads.insert(registered, roomy)
        expect(yield* uploads.get(owner.id, registered.id)).toEqual(Option.some(registered))
        expect(yield* uploads.get(other.id, registered.id)).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("moves registered -> uploaded -> consumed once each", () =>
      Effect.gen(function* () {
        const { uploads, jobs } = yield* repositories
        const owner = yield* newAccount()
        const registered = upload(owner.id)
        yield* uploads.insert(registered, roomy)
        const now = at("2026-10-03T12:10:00.000Z")
        const later = at("2026-10-04T12:10:00.000Z")
        const consuming = yield* jobs.insert(job(owner.id))
        // Not uploaded yet: nothing to consume.
        expect(yield* uploads.consume(registered.id, consuming.id, now)).toBe(false)
        const marked = yield* uploads.markUploaded(registered.id, now, later)
        expect(marked).toEqual(
          Option.some({ ...registered, status: "uploaded", uploadedAt: now, expiresAt: later })
        )
        expect(yield* uploads.markUploaded(registered.id, now, later)).toEqual(Option.none())
        expect(yield* uploads.consume(registered.id, consuming.id, now)).toBe(true)
        expect(yield* uploads.consume(registered.id, consuming.id, now)).toBe(false)
        expect(yield* uploads.get(owner.id, registered.id)).toEqual(
          Option.some({
            ...registered,
            status: "consumed",
            uploadedAt: now,
            expiresAt: later,
            jobId: consuming.id,
            consumedAt: now
          })
        )
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "sweeps expired unconsumed uploads (record and file) and consumed ones once their job ended (file)",
      () =>
        Effect.gen(function* () {
          const { uploads, jobs } = yield* repositories
          const owner = yield* newAccount()
          const now = at("2026-10-05T00:00:00.000Z")
          const past = DateTime.subtract(now, { hours: 1 })
          const future = DateTime.add(now, { hours: 1 })
          const expired = upload(owner.id, { expiresAt: past })
          const fresh = upload(owner.id, { expiresAt: future })
          const running = yield* jobs.insert(job(owner.id, { status: "processing", completedAt: null }))
          const finished = yield* jobs.insert(job(owner.id))
          const inWork = upload(owner.id, { status: "consumed", jobId: running.id, expiresAt: past })
          const done = upload(owner.id, { status: "consumed", jobId: finished.id, expiresAt: future })
          for (const u of [expired, fresh, inWork, done]) yield* uploads.insert(u, roomy)
          const mine = (rows: ReadonlyArray<UploadRecord>) =>
            rows.filter((row) => row.accountId === owner.id).map((row) => row.id)

          expect(mine(yield* uploads.sweepable(now, 1000)).sort()).toEqual([expired.id, done.id].sort())
          yield* uploads.fileRemoved(expired.id, now)
          yield* uploads.fileRemoved(done.id, now)
          expect(mine(yield* uploads.sweepable(now, 1000))).toEqual([])
          // The expired upload is gone; the consumed one stays, its file marked removed.
          expect(yield* uploads.get(owner.id, expired.id)).toEqual(Option.none())
          expect(Option.map(yield* uploads.get(owner.id, done.id), (u) => u.fileRemovedAt)).toEqual(
            Option.some(now)
          )
          expect(Option.isSome(yield* uploads.get(owner.id, inWork.id))).toBe(true)
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "an ended upload whose file was removed while a PUT could still land is swept once more, whatever its marks",
      () =>
        Effect.gen(function* () {
          const { uploads, jobs } = yield* repositories
          const owner = yield* newAccount()
          const now = at("2026-10-03T12:30:00.000Z")
          const closes = at("2026-10-03T14:00:00.000Z")
          const finished = yield* jobs.insert(job(owner.id))
          const done = upload(owner.id, { status: "consumed", jobId: finished.id, putClosesAt: closes })
          // Expired unconsumed, but a PUT started before the expiry may still be arriving.
          const late = upload(owner.id, {
            expiresAt: DateTime.subtract(now, { minutes: 5 }),
            putClosesAt: closes
          })
          for (const u of [done, late]) yield* uploads.insert(u, roomy)
          const mine = (when: DateTime.Utc) =>
            Effect.map(uploads.sweepable(when, 1000), (rows) =>
              rows.filter((row) => row.accountId === owner.id).map((row) => row.id)
            )

          expect(yield* mine(now)).toEqual([done.id])
          yield* uploads.fileRemoved(done.id, now)
          // Marked removed, but the URL could still store a file: not forgotten, only waiting.
          expect(yield* mine(now)).toEqual([])
          const after = DateTime.add(closes, { seconds: 1 })
          expect((yield* mine(after)).sort()).toEqual([done.id, late.id].sort())
          yield* uploads.fileRemoved(done.id, after)
          yield* uploads.fileRemoved(late.id, after)
          // Removed after the window closed: nothing can land any more.
          expect(yield* mine(DateTime.add(after, { days: 30 }))).toEqual([])
        }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
