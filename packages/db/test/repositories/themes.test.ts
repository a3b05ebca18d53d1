/**
 * `ThemesStore` on every database: no record means locked; of concurrent unlocks exactly one wins;
 * a detection settles only under its lease; a refunded record may be unlocked again (counting the
 * unlock); a completed one never moves; expired leases are runnable again.
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import { type ThemesDetection, ThemesId, ThemesStore, type Unlock } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { DateTime, Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, newAccount, repositories, transcript } from "./fixtures.js"

const themesId = () => ThemesId.make(randomUUID())

const detection: ThemesDetection = {
  tldr: "Hello and welcome.",
  moments: [
    new Api.ThemeMoment({
      id: "m1",
      theme_id: "t1",
      label: "Welcome",
      quote: "Hello and welcome",
      color_hex: "#1f77b4",
      start: 0,
      end: 4_000,
      segment_start: 0,
      segment_end: 0
    })
  ],
  themes: [
    new Api.Theme({
      id: "t1",
      name: "Gardening",
      summary: "The show",
      color: "blue",
      color_hex: "#1f77b4",
      share: 1,
      mention_count: 1,
      moment_count: 1,
      keywords: [
        new Api.ThemeKeyword({
          id: "k1",
          term: "gardening",
          aliases: ["garden"],
          definition: "growing plants",
          mention_count: 1,
          mentions: [new Api.KeywordMention({ segment_index: 0, start: 0 })]
        })
      ]
    })
  ]
}

/** An account owning one stored transcript, and an unlock of its themes. */
const owned = Effect.gen(function* () {
  const { transcripts } = yield* repositories
  const account = yield* newAccount()
  const { record: stored } = yield* transcripts.store(transcript(account.id))
  const unlock = (overrides: Partial<Unlock> = {}): Unlock => ({
    id: themesId(),
    accountId: account.id,
    transcriptId: stored.id,
    videoId: stored.videoId,
    language: stored.language,
    status: "processing",
    result: null,
    creditsCharged: 1,
    at: at("2026-10-03T12:00:00.000Z"),
    ...overrides
  })
  return { account, stored, unlock }
})

const now = at("2026-10-03T12:00:01.000Z")

describeEachDatabase(
  "Themes repository",
  (it) => {
    it.effect("has no record while locked, and shows a record to its account only", () =>
      Effect.gen(function* () {
        const store = yield* ThemesStore
        const { account, stored, unlock } = yield* owned
        const other = yield* newAccount("Grace")
        expect(yield* store.find(account.id, stored.id)).toEqual(Option.none())
        const record = Option.getOrThrow(yield* store.unlock(unlock()))
        expect(record).toMatchObject({
          status: "processing",
          unlocks: 1,
          creditsCharged: 1,
          result: null,
          attempts: 0
        })
        expect(yield* store.find(account.id, stored.id)).toEqual(Option.some(record))
        expect(yield* store.find(other.id, stored.id)).toEqual(Option.none())
        expect(yield* store.get(record.id)).toEqual(Option.some(record))
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("lets exactly one of concurrent unlocks win", () =>
      Effect.gen(function* () {
        const store = yield* ThemesStore
        const { unlock } = yield* owned
        const results = yield* Effect.all(
          Array.from({ length: 8 }, () => store.unlock(unlock())),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Option.isSome)).toHaveLength(1)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("settles a detection only under its lease, and a completed record never moves", () =>
      Effect.gen(function* () {
        const store = yield* ThemesStore
        const { unlock } = yield* owned
        const record = Option.getOrThrow(yield* store.unlock(unlock()))
        const claimed = Option.getOrThrow(
          yield* store.claim({ id: record.id, owner: "w1", now, leaseMs: 30_000 })
        )
        expect(claimed).toMatchObject({ attempts: 1, leaseOwner: "w1" })
        // Held: another worker cannot claim, extend or settle it.
        expect(yield* store.claim({ id: record.id, owner: "w2", now, leaseMs: 30_000 })).toEqual(
          Option.none()
        )
        expect(yield* store.extendLease({ id: record.id, owner: "w2", now, leaseMs: 30_000 })).toBe(false)
        expect(yield* store.complete(record.id, "w2", detection, now)).toEqual(Option.none())
        expect(yield* store.extendLease({ id: record.id, owner: "w1", now, leaseMs: 30_000 })).toBe(true)
        const done = Option.getOrThrow(yield* store.complete(record.id, "w1", detection, now))
        expect(done).toMatchObject({ status: "completed", leaseOwner: null, completedAt: now })
        expect(done.result).toEqual(detection)
        expect(Option.getOrThrow(yield* store.get(record.id)).result).toEqual(detection)
        // Final: no unlock, refund or claim moves it.
        expect(yield* store.unlock(unlock())).toEqual(Option.none())
        expect(yield* store.refund(record.id, "w1", "late", now)).toEqual(Option.none())
        expect(yield* store.claim({ id: record.id, owner: "w1", now, leaseMs: 30_000 })).toEqual(
          Option.none()
        )
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("refunds under the lease, and unlocks a refunded record again as a new unlock", () =>
      Effect.gen(function* () {
        const store = yield* ThemesStore
        const { unlock } = yield* owned
        const record = Option.getOrThrow(yield* store.unlock(unlock()))
        yield* store.claim({ id: record.id, owner: "w1", now, leaseMs: 30_000 })
        const refunded = Option.getOrThrow(yield* store.refund(record.id, "w1", "engine failed", now))
        expect(refunded).toMatchObject({ status: "refunded", error: "engine failed", unlocks: 1 })
        const again = Option.getOrThrow(
          yield* store.unlock(unlock({ status: "completed", result: detection, creditsCharged: 0 }))
        )
        expect(again).toMatchObject({
          id: record.id,
          status: "completed",
          unlocks: 2,
          creditsCharged: 0,
          error: null
        })
        expect(again.result).toEqual(detection)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "offers processing records whose lease is free or expired, and takes a released one at once",
      () =>
        Effect.gen(function* () {
          const store = yield* ThemesStore
          const { unlock } = yield* owned
          const record = Option.getOrThrow(yield* store.unlock(unlock()))
          const runnableIds = (at: DateTime.Utc) =>
            Effect.map(store.runnable(at, 1000), (rows) => rows.map((r) => r.id))
          expect(yield* runnableIds(now)).toContain(record.id)
          yield* store.claim({ id: record.id, owner: "w1", now, leaseMs: 30_000 })
          expect(yield* runnableIds(now)).not.toContain(record.id)
          const later = DateTime.add(now, { seconds: 31 })
          expect(yield* runnableIds(later)).toContain(record.id)
          yield* store.release(record.id, "w1")
          expect(yield* runnableIds(now)).toContain(record.id)
          const second = Option.getOrThrow(
            yield* store.claim({ id: record.id, owner: "w2", now, leaseMs: 30_000 })
          )
          expect(second).toMatchObject({ attempts: 2, leaseOwner: "w2" })
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("goes with its transcript", () =>
      Effect.gen(function* () {
        const store = yield* ThemesStore
        const { transcripts } = yield* repositories
        const { account, stored, unlock } = yield* owned
        const record = Option.getOrThrow(yield* store.unlock(unlock()))
        yield* transcripts.removeByIds(account.id, [stored.id])
        expect(yield* store.get(record.id)).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
