import { describe, expect, layer } from "@effect/vitest"
import { Access, AccountAdmin } from "@verbatim/core"
import { Effect } from "effect"
import { describeSeed, seed, seedAccountName, seedCredits, seedPlan, unseeded } from "../src/seed.js"
import { TestUseCasesLive } from "./server.js"

// Live clock: the embedded worker runs in the background, between queries that wait on the database (test/server.ts).
layer(TestUseCasesLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the development seed",
  (it) => {
    describe("seed", () => {
      it.effect(
        "seeds an empty database once: an account with credits and a working key; later only reports it",
        () =>
          Effect.gen(function* () {
            const first = yield* seed
            expect(first._tag).toBe("Seeded")
            if (first._tag !== "Seeded") return
            const account = yield* (yield* Access).authenticate(first.key)
            expect(account).toMatchObject({ id: first.accountId, name: seedAccountName, plan: seedPlan })
            const again = yield* seed
            expect(again).toEqual({ _tag: "Exists", accountId: first.accountId })
            // The balance is the ledger's (an authenticated account carries none).
            const accounts = yield* (yield* AccountAdmin).listAccounts
            expect(accounts).toHaveLength(1)
            expect(accounts[0]).toMatchObject({ id: first.accountId, credits: seedCredits })
            expect(describeSeed(first, "http://localhost:3000")).toContain(
              `curl -H "Authorization: Bearer ${first.key}" http://localhost:3000/api/v2/credits`
            )
            expect(describeSeed(again, "http://localhost:3000")).not.toContain("vbt_")
          })
      )
    })
  }
)

// Live clock: the embedded worker runs in the background, between queries that wait on the database (test/server.ts).
layer(TestUseCasesLive, { timeout: "60 seconds", excludeTestServices: true })(
  "concurrent first starts",
  (it) => {
    it.effect("seed once when several starts seed at the same time (advisory lock)", () =>
      Effect.gen(function* () {
        const outcomes = yield* Effect.all([seed, seed, seed, seed], { concurrency: "unbounded" })
        expect(outcomes.filter((outcome) => outcome._tag === "Seeded")).toHaveLength(1)
        expect(outcomes.filter((outcome) => outcome._tag === "Exists")).toHaveLength(3)
        expect((yield* (yield* AccountAdmin).listAccounts).length).toBe(1)
      })
    )
  }
)

// Live clock: the embedded worker runs in the background, between queries that wait on the database (test/server.ts).
layer(TestUseCasesLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the seed switched off",
  (it) => {
    it.effect("an empty database is told the admin commands that make an account and a key", () =>
      Effect.gen(function* () {
        const outcome = yield* unseeded
        expect(outcome).toEqual({ _tag: "Off", accounts: 0 })
        const text = describeSeed(outcome, "http://localhost:3000")
        expect(text).toContain('pnpm admin accounts create --name "Me" --plan pro --credits 1000')
        expect(text).toContain("pnpm admin keys issue --account <the account id it printed>")
        expect(describeSeed({ _tag: "Off", accounts: 2 }, "http://localhost:3000")).toContain(
          "pnpm admin keys issue --account <id>"
        )
      })
    )
  }
)

// Live clock: the embedded worker runs in the background, between queries that wait on the database (test/server.ts).
layer(TestUseCasesLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the seed on a used database",
  (it) => {
    it.effect("never seeds a database that already holds accounts", () =>
      Effect.gen(function* () {
        const admin = yield* AccountAdmin
        yield* admin.createAccount({ name: "Acme", plan: "free", credits: 0 })
        expect(yield* seed).toEqual({ _tag: "Skipped", accounts: 1 })
        expect((yield* admin.listAccounts).length).toBe(1)
      })
    )
  }
)
