/**
 * `IdempotencyKeys` on every database: the sweep removes entries only after their expiry, a bounded
 * number a call, and a key claimed again after its sweep starts afresh.
 */
import { expect } from "@effect/vitest"
import { IdempotencyKeys } from "@verbatim/core"
import { DateTime, Effect, Option } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, newAccount } from "./fixtures.js"

describeEachDatabase(
  "IdempotencyKeys repository",
  (it) => {
    it.effect("sweeps entries only after their expiry, a bounded number a call", () =>
      Effect.gen(function* () {
        const keys = yield* IdempotencyKeys
        const account = yield* newAccount()
        // Dates of 2020: no other test's entries are due at these instants.
        const claim = (key: string, createdAt: string) => {
          const now = at(createdAt)
          return keys.begin({
            accountId: account.id,
            endpoint: "POST /transcribe",
            key,
            request: `{"video":"${key}"}`,
            now,
            expiresAt: DateTime.add(now, { hours: 24 })
          })
        }
        expect(yield* claim("a", "2020-01-01T00:00:00.000Z")).toEqual(Option.none())
        expect(yield* claim("b", "2020-01-01T01:00:00.000Z")).toEqual(Option.none())
        expect(yield* claim("c", "2020-01-01T02:00:00.000Z")).toEqual(Option.none())
        yield* keys.complete(account.id, "POST /transcribe", "a", { ok: true })
        const present = () =>
          Effect.forEach(["a", "b", "c"], (key) =>
            Effect.map(keys.get(account.id, "POST /transcribe", key), Option.isSome)
          )

        // Within the 24 hours, and at the very instant of the expiry, nothing goes.
        expect(yield* keys.sweepExpired(at("2020-01-01T23:59:59.999Z"), 100)).toBe(0)
        expect(yield* keys.sweepExpired(at("2020-01-02T00:00:00.000Z"), 100)).toBe(0)
        expect(yield* present()).toEqual([true, true, true])

        // After the expiries of a and b: at most the limit a call, the oldest first.
        const later = at("2020-01-02T01:30:00.000Z")
        expect(yield* keys.sweepExpired(later, 1)).toBe(1)
        expect(yield* present()).toEqual([false, true, true])
        expect(yield* keys.sweepExpired(later, 100)).toBe(1)
        expect(yield* present()).toEqual([false, false, true])
        expect(yield* keys.sweepExpired(later, 100)).toBe(0)
        expect(yield* keys.sweepExpired(later, 0)).toBe(0)

        // A swept key is claimed afresh.
        expect(yield* claim("a", "2020-01-02T02:00:00.000Z")).toEqual(Option.none())
        expect(Option.map(yield* keys.get(account.id, "POST /transcribe", "a"), (e) => e.response)).toEqual(
          Option.some(Option.none())
        )
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
