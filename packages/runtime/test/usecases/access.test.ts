/**
 * Access on the production wiring: a bearer key reaches its account only while it is issued and
 * not revoked; anything else (missing, malformed, unknown, revoked, altered) is `invalid_api_key`
 * (401). `takeRequest` takes from the account's bucket, sized by its plan (DESIGN decision 10):
 * one second of the plan's rate and at least 2 requests, shared by all the account's keys.
 */

import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import { Access, AccountAdmin, AccountChanges } from "@verbatim/core"
import { Plan } from "@verbatim/domain"
import { Effect, Equal, FastCheck as fc, Option, TestServices } from "effect"
import { accountWithKey, createAccount, expectApiError, suiteOptions, useCasesLayer } from "./support.js"

/** A wait for PostgreSQL's notification: real time (the suite is on the test clock). */
const notificationWait = TestServices.provideLive(Effect.sleep("10 millis"))

/** Another character in place of the key's last one. */
const altered = (key: string) => `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`

layer(useCasesLayer(), suiteOptions)("Access on the production wiring", (it) => {
  describe("authenticate", () => {
    it.effect("an issued key reaches its account; each key of the account reaches the same one", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const { account, key } = yield* accountWithKey({ plan: "pro" })
        const second = yield* (yield* AccountAdmin).issueKey(account.id)
        expect(second.key).not.toBe(key)
        for (const bearer of [key, second.key, `  ${key}  `]) {
          const found = yield* access.authenticate(bearer)
          expect(found).toMatchObject({ id: account.id, plan: "pro", name: account.name })
        }
      })
    )

    it.effect("missing, malformed and unknown keys are invalid_api_key (401)", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const { key } = yield* accountWithKey()
        const refused = [
          undefined,
          "",
          "   ",
          "abc",
          "vbt_",
          "vbt_short",
          `Bearer ${key}`,
          key.slice(4),
          `${key} ${key}`,
          `vbt_${"A".repeat(43)}`,
          altered(key),
          key.toUpperCase()
        ]
        for (const bearer of refused) {
          const error = yield* expectApiError(access.authenticate(bearer), "invalid_api_key")
          expect(error.status).toBe(401)
        }
      })
    )

    it.effect.prop(
      "no string but an issued key authenticates",
      [fc.oneof(fc.string({ maxLength: 80 }), fc.stringMatching(/^vbt_[A-Za-z0-9_-]{20,90}$/))],
      ([bearer]) =>
        Effect.gen(function* () {
          const error = yield* expectApiError((yield* Access).authenticate(bearer), "invalid_api_key")
          expect(error.status).toBe(401)
        }),
      { fastCheck: { numRuns: 60 } }
    )

    it.effect("a revoked key is refused at once; the account's other keys still work", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const admin = yield* AccountAdmin
        const { account, key, record } = yield* accountWithKey()
        const other = yield* admin.issueKey(account.id)
        yield* access.authenticate(key)
        yield* admin.revokeKey(record.id)
        yield* expectApiError(access.authenticate(key), "invalid_api_key")
        expect((yield* access.authenticate(other.key)).id).toBe(account.id)
      })
    )

    // The accounts of recent keys are kept (`keyCacheTtl`); the database's triggers report every
    // change, whoever makes it (here plain SQL, as another process or tool would). Such a change
    // applies as soon as its notification arrives: the test waits for it (on PGlite it is there when
    // the statement returns), never for the cache to expire.
    it.effect(
      "a key revoked, an account deleted or a plan changed by another writer applies once reported",
      () =>
        Effect.gen(function* () {
          const access = yield* Access
          const sql = yield* SqlClient.SqlClient
          const changes = yield* AccountChanges
          const reported = <A, E, R>(change: Effect.Effect<A, E, R>) =>
            Effect.gen(function* () {
              const before = yield* changes.version
              expect(Option.isSome(before)).toBe(true)
              yield* change
              for (
                let i = 0;
                i < 500 && Option.getEquivalence(Equal.equals)(yield* changes.version, before);
                i++
              )
                yield* notificationWait
              expect(yield* changes.version).not.toEqual(before)
            })
          // The listening connection opens in the background as the wiring starts.
          for (let i = 0; i < 500 && Option.isNone(yield* changes.version); i++) yield* notificationWait
          const revoked = yield* accountWithKey({ plan: "free" })
          const deleted = yield* accountWithKey()
          const upgraded = yield* accountWithKey({ plan: "free" })
          for (const { key } of [revoked, deleted, upgraded]) {
            yield* access.authenticate(key)
            yield* access.authenticate(key)
          }
          yield* reported(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${revoked.record.id}`)
          yield* expectApiError(access.authenticate(revoked.key), "invalid_api_key")
          yield* reported(sql`DELETE FROM accounts WHERE id = ${deleted.account.id}`)
          yield* expectApiError(access.authenticate(deleted.key), "invalid_api_key")
          yield* reported(sql`UPDATE accounts SET plan = 'pro' WHERE id = ${upgraded.account.id}`)
          expect((yield* access.authenticate(upgraded.key)).plan).toBe("pro")
        })
    )

    it.effect("the account's plan changed through AccountAdmin applies to its next request", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const { account, key } = yield* accountWithKey({ plan: "free" })
        expect((yield* access.authenticate(key)).plan).toBe("free")
        yield* (yield* AccountAdmin).setPlan(account.id, "business")
        const verdict = yield* access.takeRequest(yield* access.authenticate(key))
        expect(verdict.limit).toBe(Plan.limitsFor("business").burst)
      })
    )
  })

  describe("takeRequest", () => {
    it.effect("a fresh bucket holds the plan's burst: one second of its rate, at least 2", () =>
      Effect.gen(function* () {
        const access = yield* Access
        for (const plan of Plan.Plan.literals) {
          const account = yield* createAccount({ plan })
          const verdict = yield* access.takeRequest(account)
          const burst = Plan.limitsFor(plan).burst
          expect(burst).toBe(Math.max(2, Plan.limitsFor(plan).requestsPerSecond))
          expect(verdict).toMatchObject({
            allowed: true,
            limit: burst,
            remaining: burst - 1,
            retryAfterSeconds: 0
          })
        }
      })
    )

    it.effect("a free account gets 2 requests at once, then is refused with a time to wait", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const account = yield* createAccount({ plan: "free" })
        const verdicts = [
          yield* access.takeRequest(account),
          yield* access.takeRequest(account),
          yield* access.takeRequest(account)
        ]
        expect(verdicts.map((v) => [v.allowed, v.limit, v.remaining])).toEqual([
          [true, 2, 1],
          [true, 2, 0],
          [false, 2, 0]
        ])
        expect(verdicts[2]?.retryAfterSeconds).toBeGreaterThanOrEqual(1)
        expect(verdicts[2]?.resetSeconds).toBeGreaterThanOrEqual(1)
      })
    )

    it.effect("accounts do not share buckets; an account's keys do", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const { account, key } = yield* accountWithKey({ plan: "free" })
        const second = yield* (yield* AccountAdmin).issueKey(account.id)
        const other = yield* createAccount({ plan: "free" })
        yield* access.takeRequest(yield* access.authenticate(key))
        yield* access.takeRequest(yield* access.authenticate(second.key))
        expect((yield* access.takeRequest(yield* access.authenticate(key))).allowed).toBe(false)
        expect((yield* access.takeRequest(other)).allowed).toBe(true)
      })
    )

    it.effect("the bucket follows the account's plan when it changes", () =>
      Effect.gen(function* () {
        const access = yield* Access
        const account = yield* createAccount({ plan: "free" })
        yield* access.takeRequest(account)
        yield* access.takeRequest(account)
        expect((yield* access.takeRequest(account)).allowed).toBe(false)
        const upgraded = yield* (yield* AccountAdmin).setPlan(account.id, "business")
        const verdict = yield* access.takeRequest(upgraded)
        expect(verdict.limit).toBe(Plan.limitsFor("business").burst)
      })
    )
  })
})
