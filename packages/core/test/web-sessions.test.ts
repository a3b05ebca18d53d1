/**
 * `WebSessions`, the web library's sessions, over a store kept in memory (the SQL store passes the
 * same rules in `packages/db/test/repositories/web-sessions.test.ts`) and the test clock: a key
 * signs in once and the session follows it; sessions end idle and at their absolute end, and are
 * extended at most once every `extendEvery`; changes need the CSRF token; sign-in attempts are
 * limited per address.
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, Ids } from "@verbatim/domain"
import { DateTime, Duration, Effect, Exit, Layer, Option, TestClock } from "effect"
import type { Account } from "../src/ports/accounts.js"
import { RateLimiter } from "../src/ports/rate-limiter.js"
import { Secrets } from "../src/ports/secrets.js"
import { type WebSessionRecord, WebSessionStore } from "../src/ports/web-sessions.js"
import {
  looksLikeSessionToken,
  needsCsrfToken,
  WebSessions,
  WebSessionsLive,
  webSessionLifetimes
} from "../src/usecases/web-sessions.js"

const key = `vbt_${"k".repeat(43)}`
const revokedKey = `vbt_${"r".repeat(43)}`

const account: Account = {
  id: Ids.AccountId.make("6f1c7a0e-2222-4a4a-8a8a-000000000001"),
  name: "reader",
  plan: "pro",
  defaultMode: "auto",
  onboardingCompleted: true,
  createdAt: DateTime.unsafeMake("2026-11-01T00:00:00Z")
}

interface World {
  readonly sessions: Map<string, { keyHash: string; createdAt: DateTime.Utc; expiresAt: DateTime.Utc }>
  readonly revoked: Set<string>
  extensions: number
  /** Sign-in attempts the limiter still allows. */
  allowed: number
}

let counter = 0

const layerOf = (world: World) =>
  WebSessionsLive.pipe(
    Layer.provide(
      Layer.mergeAll(
        Layer.succeed(
          Secrets,
          Secrets.of({
            uuid: Effect.dieMessage("unused"),
            newApiKey: Effect.sync(() => `vbt_${String(++counter).padStart(43, "s")}`),
            hashApiKey: (value) => Effect.succeed(`hash:${value}`),
            newWebhookSecret: Effect.dieMessage("unused")
          })
        ),
        Layer.succeed(
          RateLimiter,
          RateLimiter.of({
            take: () =>
              Effect.sync(() => {
                world.allowed -= 1
                return world.allowed >= 0
                  ? {
                      allowed: true,
                      limit: 10,
                      remaining: world.allowed,
                      resetSeconds: 1,
                      retryAfterSeconds: 0
                    }
                  : { allowed: false, limit: 10, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 }
              })
          })
        ),
        Layer.succeed(
          WebSessionStore,
          WebSessionStore.of({
            save: (session) =>
              Effect.sync(() => {
                if (session.keyHash !== `hash:${key}` || world.revoked.has(session.keyHash))
                  return Option.none()
                world.sessions.set(session.idHash, {
                  keyHash: session.keyHash,
                  createdAt: session.createdAt,
                  expiresAt: session.expiresAt
                })
                return Option.some({ accountId: account.id, apiKeyId: "key-1" })
              }),
            find: (idHash, now) =>
              Effect.sync(() => {
                const found = world.sessions.get(idHash)
                if (found === undefined || world.revoked.has(found.keyHash)) return Option.none()
                if (!DateTime.greaterThan(found.expiresAt, now)) return Option.none()
                const record: WebSessionRecord = {
                  account,
                  apiKeyId: "key-1",
                  createdAt: found.createdAt,
                  expiresAt: found.expiresAt
                }
                return Option.some(record)
              }),
            extend: (idHash, expiresAt) =>
              Effect.sync(() => {
                world.extensions += 1
                const found = world.sessions.get(idHash)
                if (found !== undefined) found.expiresAt = expiresAt
              }),
            remove: (idHash) => Effect.sync(() => world.sessions.delete(idHash)),
            sweep: () => Effect.succeed(0)
          })
        )
      )
    )
  )

const newWorld = (): World => ({ sessions: new Map(), revoked: new Set(), extensions: 0, allowed: 100 })

const run = <A, E>(world: World, effect: Effect.Effect<A, E, WebSessions>) =>
  Effect.provide(effect, layerOf(world))

const codeOf = <A>(exit: Exit.Exit<A, unknown>): string | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof Errors.ApiError
    ? exit.cause.error.code
    : undefined

describe("WebSessions", () => {
  it("changes need a CSRF token; reads do not", () => {
    expect(["GET", "HEAD", "OPTIONS", "get"].map(needsCsrfToken)).toEqual([false, false, false, false])
    expect(["POST", "PUT", "PATCH", "DELETE", "post"].map(needsCsrfToken)).toEqual([
      true,
      true,
      true,
      true,
      true
    ])
  })

  it.effect(
    "signs in with an active key: a session token that is not the key, its account and a CSRF token",
    () => {
      const world = newWorld()
      return run(
        world,
        Effect.gen(function* () {
          const sessions = yield* WebSessions
          const signedIn = yield* sessions.signIn(key, "192.0.2.1")
          expect(looksLikeSessionToken(signedIn.token)).toBe(true)
          expect(signedIn.token).not.toContain(key.slice(4))
          expect(signedIn.account).toEqual(account)
          expect(signedIn.csrfToken).not.toBe(signedIn.token)
          // Only the token's hash is kept.
          expect([...world.sessions.keys()]).toEqual([`hash:${signedIn.token}`])
          const read = yield* sessions.authenticate(signedIn.token, { method: "GET", csrfToken: undefined })
          expect(read.account).toEqual(account)
          expect(codeOf(yield* Effect.exit(sessions.signIn(revokedKey, "192.0.2.1")))).toBe("invalid_api_key")
          expect(codeOf(yield* Effect.exit(sessions.signIn("not a key", "192.0.2.1")))).toBe(
            "invalid_api_key"
          )
        })
      )
    }
  )

  it.effect("a change without the session's CSRF token is 403 forbidden; with it, it passes", () =>
    run(
      newWorld(),
      Effect.gen(function* () {
        const sessions = yield* WebSessions
        const { token, csrfToken } = yield* sessions.signIn(key, "192.0.2.1")
        for (const method of ["POST", "DELETE", "PUT"]) {
          expect(
            codeOf(yield* Effect.exit(sessions.authenticate(token, { method, csrfToken: undefined })))
          ).toBe("forbidden")
          expect(
            codeOf(
              yield* Effect.exit(
                sessions.authenticate(token, { method, csrfToken: `${csrfToken.slice(1)}0` })
              )
            )
          ).toBe("forbidden")
          const passed = yield* sessions.authenticate(token, { method, csrfToken })
          expect(passed.account.id).toBe(account.id)
        }
        // Signing out needs it too.
        expect(codeOf(yield* Effect.exit(sessions.signOut(token, undefined)))).toBe("forbidden")
        yield* sessions.signOut(token, csrfToken)
        expect(
          codeOf(yield* Effect.exit(sessions.authenticate(token, { method: "GET", csrfToken: undefined })))
        ).toBe("invalid_api_key")
      })
    )
  )

  it.effect("a session follows its key: revoked, the session answers 401 and pages see none", () => {
    const world = newWorld()
    return run(
      world,
      Effect.gen(function* () {
        const sessions = yield* WebSessions
        const { token } = yield* sessions.signIn(key, "192.0.2.1")
        world.revoked.add(`hash:${key}`)
        expect(
          codeOf(yield* Effect.exit(sessions.authenticate(token, { method: "GET", csrfToken: undefined })))
        ).toBe("invalid_api_key")
        expect(yield* sessions.current(token)).toEqual(Option.none())
        expect(yield* sessions.current("vbw_malformed!")).toEqual(Option.none())
        expect(yield* sessions.current(undefined)).toEqual(Option.none())
      })
    )
  })

  it.effect(
    "ends after the idle time unused, is extended once per extendEvery while used, and ends at its absolute end",
    () => {
      const world = newWorld()
      return run(
        world,
        Effect.gen(function* () {
          const sessions = yield* WebSessions
          const { token } = yield* sessions.signIn(key, "192.0.2.1")
          // Used often: one extension per extendEvery, not one per request.
          for (let i = 0; i < 10; i++) {
            yield* TestClock.adjust(Duration.minutes(1))
            yield* sessions.authenticate(token, { method: "GET", csrfToken: undefined })
          }
          expect(world.extensions).toBe(1)
          // Used every 12 hours: it lives on, up to its absolute end.
          const steps = Math.floor(Duration.toHours(webSessionLifetimes.absolute) / 12)
          let alive = 0
          for (let i = 0; i < steps + 2; i++) {
            yield* TestClock.adjust(Duration.hours(12))
            if (Option.isSome(yield* sessions.current(token))) alive += 1
          }
          expect(alive).toBe(steps - 1)
          // Another, left alone for the idle time: gone.
          const other = yield* sessions.signIn(key, "192.0.2.1")
          yield* TestClock.adjust(Duration.sum(webSessionLifetimes.idle, Duration.millis(1)))
          expect(yield* sessions.current(other.token)).toEqual(Option.none())
        })
      )
    }
  )

  it.effect("sign-in attempts past the address's limit are 429 rate_limit_exceeded", () => {
    const world = { ...newWorld(), allowed: 2 }
    return run(
      world,
      Effect.gen(function* () {
        const sessions = yield* WebSessions
        yield* sessions.signIn(key, "192.0.2.9")
        yield* Effect.exit(sessions.signIn(revokedKey, "192.0.2.9"))
        expect(codeOf(yield* Effect.exit(sessions.signIn(key, "192.0.2.9")))).toBe("rate_limit_exceeded")
      })
    )
  })
})
