/**
 * `WebSessionStore` on every database: a session is saved only from an active key's hash, read with
 * its account while unexpired and its key active, extended, removed; revoking or deleting the key
 * ends it; the sweep removes ended sessions (expired or key revoked), a bounded number a call, and
 * never a live one.
 */
import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { Accounts, WebSessionStore } from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, newAccount } from "./fixtures.js"

const newKey = (accountId: Ids.AccountId) =>
  Effect.flatMap(Accounts, (accounts) => {
    const hash = `key-hash-${randomUUID()}`
    return Effect.map(
      accounts.addKey({
        id: randomUUID(),
        accountId,
        hash,
        prefix: "vbt_test",
        createdAt: at("2026-10-02T10:00:00.000Z")
      }),
      (key) => ({ ...key, hash })
    )
  })

const created = at("2026-11-01T10:00:00.000Z")
const later = at("2026-11-02T10:00:00.000Z")

describeEachDatabase(
  "WebSessionStore repository",
  (it) => {
    it.effect("saves a session from an active key, reads it with its account, extends and removes it", () =>
      Effect.gen(function* () {
        const store = yield* WebSessionStore
        const accounts = yield* Accounts
        const account = yield* newAccount("Grace")
        const key = yield* newKey(account.id)
        const idHash = `session-${randomUUID()}`
        const saved = yield* store.save({ idHash, keyHash: key.hash, createdAt: created, expiresAt: later })
        expect(saved).toEqual(Option.some({ accountId: account.id, apiKeyId: key.id }))
        expect(
          yield* store.save({
            idHash: `x-${randomUUID()}`,
            keyHash: "no-such-key",
            createdAt: created,
            expiresAt: later
          })
        ).toEqual(Option.none())
        const found = yield* store.find(idHash, at("2026-11-01T12:00:00.000Z"))
        expect(
          Option.map(found, (s) => ({ id: s.account.id, name: s.account.name, key: s.apiKeyId }))
        ).toEqual(Option.some({ id: account.id, name: "Grace", key: key.id }))
        expect(Option.map(found, (s) => [s.createdAt, s.expiresAt])).toEqual(Option.some([created, later]))
        // Expired at its end (the end itself included).
        expect(yield* store.find(idHash, later)).toEqual(Option.none())
        const further = at("2026-11-03T10:00:00.000Z")
        yield* store.extend(idHash, further)
        expect(Option.isSome(yield* store.find(idHash, later))).toBe(true)
        expect(yield* store.remove(idHash)).toBe(true)
        expect(yield* store.remove(idHash)).toBe(false)
        expect(yield* store.find(idHash, created)).toEqual(Option.none())
        // A revoked key ends its sessions and saves none.
        const second = `session-${randomUUID()}`
        yield* store.save({ idHash: second, keyHash: key.hash, createdAt: created, expiresAt: later })
        yield* accounts.revokeKey(key.id, created)
        expect(yield* store.find(second, created)).toEqual(Option.none())
        expect(
          yield* store.save({
            idHash: `y-${randomUUID()}`,
            keyHash: key.hash,
            createdAt: created,
            expiresAt: later
          })
        ).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("sweeps ended sessions, a bounded number a call, never a live one", () =>
      Effect.gen(function* () {
        const store = yield* WebSessionStore
        const accounts = yield* Accounts
        const sql = yield* SqlClient.SqlClient
        const account = yield* newAccount()
        const live = yield* newKey(account.id)
        const revoked = yield* newKey(account.id)
        const save = (keyHash: string, expiresAt: typeof later) =>
          Effect.map(
            store.save({ idHash: `s-${randomUUID()}`, keyHash, createdAt: created, expiresAt }),
            () => undefined
          )
        yield* save(live.hash, later)
        yield* save(live.hash, at("2026-11-01T11:00:00.000Z"))
        yield* save(live.hash, at("2026-11-01T11:30:00.000Z"))
        yield* save(revoked.hash, later)
        yield* accounts.revokeKey(revoked.id, created)
        const now = at("2026-11-01T12:00:00.000Z")
        const count = sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM web_sessions WHERE account_id = ${account.id}`
        expect(yield* store.sweep(now, 0)).toBe(0)
        const first = yield* store.sweep(now, 2)
        const rest = yield* store.sweep(now, 100)
        expect(first).toBe(2)
        expect(rest).toBeGreaterThanOrEqual(1)
        expect((yield* count)[0]?.n).toBe(1)
        // The live one is still there.
        expect(yield* store.sweep(now, 100)).toBe(0)
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
