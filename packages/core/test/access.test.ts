/**
 * The key cache of `Access` against stub ports: how many times the key store is asked tells what
 * was served from memory. A key's account is kept only while `AccountChanges` reports the version
 * it was read at, for `keyCacheTtl` at most; never while changes could go unheard, never for an
 * unknown key, never across a change made while it was being read.
 */
import { describe, expect, it } from "@effect/vitest"
import { Ids } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option, TestClock } from "effect"
import { AccountChanges } from "../src/ports/account-changes.js"
import { type Account, Accounts } from "../src/ports/accounts.js"
import { RateLimiter } from "../src/ports/rate-limiter.js"
import { Secrets } from "../src/ports/secrets.js"
import { AccessLive, keyCacheTtl } from "../src/usecases/access.js"
import { Access } from "../src/usecases/tags.js"

const key = `vbt_${"k".repeat(43)}`
const unknownKey = `vbt_${"u".repeat(43)}`

const account: Account = {
  id: Ids.AccountId.make("6f1c7a0e-1111-4a4a-8a8a-000000000001"),
  name: "cached",
  plan: "pro",
  defaultMode: "captions_only",
  onboardingCompleted: true,
  createdAt: DateTime.unsafeMake("2026-11-01T00:00:00Z")
}

/** What the stubs share with a test: the store's answers and count, and the changes version. */
interface World {
  lookups: number
  /** The account of `key` in the store; none once "revoked". */
  stored: Option.Option<Account>
  version: Option.Option<number>
  /** Runs inside the store's lookup, after it counted (a change landing mid-lookup). */
  during: () => void
}

const unused = Effect.dieMessage("not used by Access")

const stubs = (world: World) =>
  Layer.mergeAll(
    Layer.succeed(
      Accounts,
      Accounts.of({
        create: () => unused,
        get: () => unused,
        list: unused,
        setPlan: () => unused,
        findByKeyHash: (hash) =>
          Effect.sync(() => {
            world.lookups += 1
            world.during()
            return hash === `hash:${key}` ? world.stored : Option.none()
          }),
        addKey: () => unused,
        listKeys: () => unused,
        revokeKey: () => unused,
        ensureWebhookSecret: () => unused,
        setWebhookSecret: () => unused
      })
    ),
    Layer.succeed(
      Secrets,
      Secrets.of({
        uuid: unused,
        newApiKey: unused,
        hashApiKey: (value) => Effect.succeed(`hash:${value}`),
        newWebhookSecret: unused
      })
    ),
    Layer.succeed(
      RateLimiter,
      RateLimiter.of({
        take: () =>
          Effect.succeed({ allowed: true, limit: 1, remaining: 0, resetSeconds: 1, retryAfterSeconds: 0 })
      })
    ),
    Layer.succeed(
      AccountChanges,
      AccountChanges.of({ version: Effect.sync(() => world.version), changed: Effect.void })
    )
  )

/** Runs `body` with `Access` over fresh stubs (the test clock at 0). */
const withAccess = (body: (access: Access["Type"], world: World) => Effect.Effect<void, unknown>) => {
  const world: World = { lookups: 0, stored: Option.some(account), version: Option.some(1), during: () => {} }
  return Effect.flatMap(Access, (access) => body(access, world)).pipe(
    Effect.provide(AccessLive.pipe(Layer.provide(stubs(world))))
  )
}

const authenticateTimes = (access: Access["Type"], times: number, bearer = key) =>
  Effect.forEach(Array.from({ length: times }), () => Effect.either(access.authenticate(bearer)))

describe("Access key cache", () => {
  it.effect("a key's account is read once while nothing changes, and served the same", () =>
    withAccess((access, world) =>
      Effect.gen(function* () {
        const answers = yield* authenticateTimes(access, 3)
        expect(answers.map((a) => a._tag)).toEqual(["Right", "Right", "Right"])
        expect(world.lookups).toBe(1)
      })
    )
  )

  it.effect(
    "a change (the version moves) makes the next request read the key again: revoked is refused",
    () =>
      withAccess((access, world) =>
        Effect.gen(function* () {
          yield* access.authenticate(key)
          world.stored = Option.none()
          world.version = Option.some(2)
          const error = yield* Effect.flip(access.authenticate(key))
          expect(error).toMatchObject({ code: "invalid_api_key" })
          expect(world.lookups).toBe(2)
        })
      )
  )

  it.effect("while changes could go unheard (no version) every request reads the key", () =>
    withAccess((access, world) =>
      Effect.gen(function* () {
        world.version = Option.none()
        yield* authenticateTimes(access, 3)
        expect(world.lookups).toBe(3)
        // Listening again: what was read before is not served (the version moved meanwhile).
        world.version = Option.some(5)
        yield* authenticateTimes(access, 2)
        expect(world.lookups).toBe(4)
      })
    )
  )

  it.effect("a kept account expires after keyCacheTtl even when nothing is reported", () =>
    withAccess((access, world) =>
      Effect.gen(function* () {
        yield* access.authenticate(key)
        yield* TestClock.adjust("9999 millis")
        yield* access.authenticate(key)
        expect(world.lookups).toBe(1)
        yield* TestClock.adjust(keyCacheTtl)
        yield* access.authenticate(key)
        expect(world.lookups).toBe(2)
      })
    )
  )

  it.effect("a change landing while the key is read leaves that read unkept", () =>
    withAccess((access, world) =>
      Effect.gen(function* () {
        world.during = () => {
          world.version = Option.some(2)
          world.during = () => {}
        }
        yield* access.authenticate(key)
        yield* access.authenticate(key)
        expect(world.lookups).toBe(2)
        yield* access.authenticate(key)
        expect(world.lookups).toBe(2)
      })
    )
  )

  it.effect("unknown keys are never kept: each is read again (a key issued later works at once)", () =>
    withAccess((access, world) =>
      Effect.gen(function* () {
        const answers = yield* authenticateTimes(access, 2, unknownKey)
        expect(answers.map((a) => a._tag)).toEqual(["Left", "Left"])
        expect(world.lookups).toBe(2)
      })
    )
  )
})
