/**
 * `Accounts` on every database: accounts start with a zero balance, plans change, and keys are found
 * by their hash only while active.
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { accountId, at, newAccount, repositories } from "./fixtures.js"

describeEachDatabase(
  "Accounts repository",
  (it) => {
    it.effect("creates an account with a zero balance and reads it back", () =>
      Effect.gen(function* () {
        const { accounts } = yield* repositories
        const id = accountId()
        const created = yield* accounts.create({
          id,
          name: "Grace",
          plan: "pro",
          defaultMode: "captions_only",
          createdAt: at("2025-01-02T03:04:05.678Z")
        })
        expect(created).toEqual({
          id,
          name: "Grace",
          plan: "pro",
          credits: 0,
          defaultMode: "captions_only",
          onboardingCompleted: false,
          createdAt: at("2025-01-02T03:04:05.678Z")
        })
        expect(yield* accounts.get(id)).toEqual(Option.some(created))
        expect(yield* accounts.get(accountId())).toEqual(Option.none())
        const listed = yield* accounts.list
        expect(listed).toContainEqual(created)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("fails with a PersistenceError naming the operation when the id is taken", () =>
      Effect.gen(function* () {
        const { accounts } = yield* repositories
        const account = yield* newAccount()
        const error = yield* accounts
          .create({
            id: account.id,
            name: "Twin",
            plan: "free",
            defaultMode: "auto",
            createdAt: account.createdAt
          })
          .pipe(Effect.flip)
        expect(error).toMatchObject({ _tag: "PersistenceError", operation: "Accounts.create" })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("changes the plan of an account, and of no other", () =>
      Effect.gen(function* () {
        const { accounts } = yield* repositories
        const account = yield* newAccount()
        const other = yield* newAccount()
        const updated = yield* accounts.setPlan(account.id, "business")
        expect(updated).toEqual(Option.some({ ...account, plan: "business" }))
        expect(yield* accounts.get(other.id)).toEqual(Option.some(other))
        expect(yield* accounts.setPlan(accountId(), "basic")).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("finds an account by an active key's hash, lists keys without hashes, and revokes keys", () =>
      Effect.gen(function* () {
        const { accounts } = yield* repositories
        const account = yield* newAccount()
        const hash = `hash-${randomUUID()}`
        const keyId = randomUUID()
        const key = yield* accounts.addKey({
          id: keyId,
          accountId: account.id,
          hash,
          prefix: "vb_live_ab",
          createdAt: at("2026-10-02T11:00:00Z")
        })
        expect(key).toEqual({
          id: keyId,
          accountId: account.id,
          prefix: "vb_live_ab",
          createdAt: at("2026-10-02T11:00:00Z"),
          revokedAt: null
        })
        const second = yield* accounts.addKey({
          id: randomUUID(),
          accountId: account.id,
          hash: `hash-${randomUUID()}`,
          prefix: "vb_live_cd",
          createdAt: at("2026-10-02T12:00:00Z")
        })
        // The account of a key comes without its balance (the ledger answers that).
        const { credits: _balance, ...withoutBalance } = account
        expect(yield* accounts.findByKeyHash(hash)).toEqual(Option.some(withoutBalance))
        expect(yield* accounts.findByKeyHash("unknown")).toEqual(Option.none())
        expect(yield* accounts.listKeys(account.id)).toEqual([key, second])

        expect(yield* accounts.revokeKey(keyId, at("2026-10-05T00:00:00Z"))).toBe(true)
        expect(yield* accounts.findByKeyHash(hash)).toEqual(Option.none())
        expect(yield* accounts.revokeKey(keyId, at("2026-10-06T00:00:00Z"))).toBe(false)
        expect(yield* accounts.revokeKey(randomUUID(), at("2026-10-06T00:00:00Z"))).toBe(false)
        expect(yield* accounts.revokeKey("not-a-uuid", at("2026-10-06T00:00:00Z"))).toBe(false)
        expect(yield* accounts.listKeys(account.id)).toEqual([
          { ...key, revokedAt: at("2026-10-05T00:00:00Z") },
          second
        ])
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("refuses a second key with the same hash", () =>
      Effect.gen(function* () {
        const { accounts } = yield* repositories
        const account = yield* newAccount()
        const hash = `hash-${randomUUID()}`
        const key = { accountId: account.id, hash, prefix: "vb", createdAt: at("2026-10-02T11:00:00Z") }
        yield* accounts.addKey({ id: randomUUID(), ...key })
        const error = yield* accounts.addKey({ id: randomUUID(), ...key }).pipe(Effect.flip)
        expect(error).toMatchObject({ _tag: "PersistenceError", operation: "Accounts.addKey" })
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
