/**
 * Accounts never reach each other's rows: every account-scoped method of every repository, called by
 * account B, neither sees nor changes what account A owns.
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, fundedAccount, job, newAccount, repositories, transcript } from "./fixtures.js"

describeEachDatabase(
  "Repositories keep accounts apart",
  (it) => {
    it.effect("account B never sees or deletes account A's keys, entries, jobs or transcripts", () =>
      Effect.gen(function* () {
        const { accounts, jobs, ledger, transcripts } = yield* repositories
        const a = yield* fundedAccount(10)
        const b = yield* newAccount("Bob")
        const hashA = `hash-${randomUUID()}`
        yield* accounts.addKey({
          id: randomUUID(),
          accountId: a.id,
          hash: hashA,
          prefix: "vb",
          createdAt: at("2026-10-02T11:00:00Z")
        })
        yield* ledger.charge(
          { accountId: a.id, key: "charge:1", reason: "test", at: at("2026-10-02T12:00:00Z") },
          4
        )
        const stored = yield* transcripts.store(transcript(a.id))
        const record = stored.record
        const aJob = yield* jobs.insert(job(a.id, { transcriptId: record.id }))

        expect(yield* accounts.listKeys(b.id)).toEqual([])
        expect(Option.map(yield* accounts.findByKeyHash(hashA), (found) => found.id)).toEqual(
          Option.some(a.id)
        )
        expect(yield* ledger.entries(b.id)).toEqual([])
        expect(yield* ledger.balance(b.id)).toBe(0)
        // The same key on B is B's own entry; A's is untouched.
        yield* ledger.grant(
          { accountId: b.id, key: "charge:1", reason: "test", at: at("2026-10-02T12:00:00Z") },
          2
        )
        expect(yield* ledger.balance(a.id)).toBe(6)

        expect(yield* jobs.get(b.id, aJob.id)).toEqual(Option.none())
        expect(yield* jobs.list(b.id, { offset: 0, limit: 50 })).toEqual({ items: [], total: 0 })

        expect(yield* transcripts.get(b.id, record.id)).toEqual(Option.none())
        expect(yield* transcripts.owned(b.id, record.videoId, {})).toEqual([])
        expect(yield* transcripts.owned(b.id, record.videoId, { id: record.id })).toEqual([])
        expect(yield* transcripts.languages(b.id, record.videoId)).toEqual([])
        for (const search of [undefined, "gardening", record.videoId]) {
          expect(
            yield* transcripts.search(b.id, {
              search,
              status: "succeeded",
              offset: 0,
              limit: 50,
              includeSegments: true
            })
          ).toEqual({ items: [], total: 0 })
        }
        expect(yield* transcripts.remove(b.id, record.videoId, {})).toBe(0)
        expect(yield* transcripts.removeByIds(b.id, [record.id])).toBe(0)

        // A still has everything.
        expect(yield* transcripts.get(a.id, record.id)).toEqual(Option.some(record))
        expect(yield* jobs.get(a.id, aJob.id)).toEqual(Option.some(aJob))
        expect((yield* ledger.entries(a.id)).length).toBe(2)
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
