import { describe, expect, layer } from "@effect/vitest"
import { Access, AccountAdmin } from "@verbatim/core"
import { Effect } from "effect"
import { describeSeed, seed, seedAccountName, seedCredits, seedPlan } from "../src/seed.js"
import { TestUseCasesLive } from "./server.js"

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
            expect(account).toMatchObject({
              id: first.accountId,
              name: seedAccountName,
              plan: seedPlan,
              credits: seedCredits
            })
            const again = yield* seed
            expect(again).toEqual({ _tag: "Exists", accountId: first.accountId })
            expect((yield* (yield* AccountAdmin).listAccounts).length).toBe(1)
            expect(describeSeed(first, "http://localhost:3000")).toContain(
              `curl -H "Authorization: Bearer ${first.key}" http://localhost:3000/api/v2/credits`
            )
            expect(describeSeed(again, "http://localhost:3000")).not.toContain("vbt_")
          })
      )
    })
  }
)

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
