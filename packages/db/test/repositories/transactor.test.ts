/**
 * `Transactor` on every database: repository calls inside a transaction commit or roll back together,
 * a transaction inside another is a savepoint, and database failures become `PersistenceError`s.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, fundedAccount, job, repositories, transcript } from "./fixtures.js"

describeEachDatabase(
  "Transactor",
  (it) => {
    it.effect("commits the work's writes together, or none of them", () =>
      Effect.gen(function* () {
        const { jobs, ledger, transactor, transcripts } = yield* repositories
        const account = yield* fundedAccount(5)
        const record = transcript(account.id)
        const served = job(account.id, { transcriptId: record.id })
        const charge = {
          accountId: account.id,
          key: `charge:job:${served.id}`,
          reason: "t",
          at: at("2026-10-02T00:00:00Z")
        }
        const work = Effect.gen(function* () {
          yield* transcripts.store(record)
          yield* jobs.insert(served)
          return yield* ledger.charge({ ...charge, jobId: served.id }, 1)
        })

        const failed = yield* transactor
          .transaction(Effect.zipRight(work, Effect.fail("boom" as const)))
          .pipe(Effect.flip)
        expect(failed).toBe("boom")
        expect(yield* transcripts.get(account.id, record.id)).toEqual(Option.none())
        expect(yield* jobs.get(account.id, served.id)).toEqual(Option.none())
        expect(yield* ledger.balance(account.id)).toBe(5)

        expect(yield* transactor.transaction(work)).toEqual({ balance: 4, applied: true })
        expect(Option.isSome(yield* transcripts.get(account.id, record.id))).toBe(true)
        expect(yield* jobs.get(account.id, served.id)).toEqual(Option.some(served))
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("rolls a nested transaction back alone", () =>
      Effect.gen(function* () {
        const { ledger, transactor } = yield* repositories
        const account = yield* fundedAccount(5)
        const grant = (key: string) =>
          ledger.grant({ accountId: account.id, key, reason: "t", at: at("2026-10-02T00:00:00Z") }, 1)
        yield* transactor.transaction(
          Effect.gen(function* () {
            yield* grant("outer-1")
            const inner = yield* transactor
              .transaction(Effect.zipRight(grant("inner"), Effect.fail("inner failed" as const)))
              .pipe(Effect.flip)
            expect(inner).toBe("inner failed")
            yield* grant("outer-2")
          })
        )
        expect((yield* ledger.entries(account.id)).map((entry) => entry.key).slice(1)).toEqual([
          "outer-1",
          "outer-2"
        ])
        expect(yield* ledger.balance(account.id)).toBe(7)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("turns a database failure inside the work into a PersistenceError", () =>
      Effect.gen(function* () {
        const { transactor } = yield* repositories
        const sql = yield* SqlClient.SqlClient
        const error = yield* transactor.transaction(sql`SELECT 1 / 0`).pipe(Effect.flip)
        expect(error).toMatchObject({ _tag: "PersistenceError", operation: "Transactor.transaction" })
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
