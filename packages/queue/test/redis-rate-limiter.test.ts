/**
 * What only the Redis limiter has: one bucket shared by several servers on the Redis clock, keys
 * that expire, the `EVAL` fallback, and its behaviour when Redis does not answer. Runs when
 * `REDIS_URL` is set, and always under `CI=true` (where a missing `REDIS_URL` fails it).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { RateLimiter, type RateVerdict } from "@verbatim/core"
import { Plan } from "@verbatim/domain"
import {
  Arbitrary,
  ConfigProvider,
  Duration,
  Effect,
  FastCheck as fc,
  Logger,
  ManagedRuntime,
  Option,
  Redacted,
  Ref,
  TestClock,
  TestContext
} from "effect"
import { Redis } from "ioredis"
import { MemoryRateLimiter, RedisConnection, RedisRateLimiter } from "../src/index.js"
import { deleteKeys, freshPrefix, inCi, missingRedis, redisUrl, testConnection } from "./harness.js"

const url = Option.getOrUndefined(redisUrl)

describe.skipIf(url === undefined && !inCi)("RedisRateLimiter", () => {
  const { id, prefix } = freshPrefix()
  beforeAll(() => {
    if (url === undefined) throw missingRedis
  })
  const target = url ?? Redacted.make("redis://127.0.0.1:6379")
  // Two connections, as two API servers would have.
  const serverA = ManagedRuntime.make(testConnection(target, `${id}-a`))
  const serverB = ManagedRuntime.make(testConnection(target, `${id}-b`))
  afterAll(async () => {
    await serverA.runPromise(Effect.flatMap(RedisConnection, (client) => deleteKeys(client, prefix)))
    await serverA.dispose()
    await serverB.dispose()
  })
  let sequence = 0
  const limiterPrefix = () => {
    sequence += 1
    return `${prefix}${sequence}:`
  }

  it("two limiters on two connections share one bucket exactly", async () => {
    const shared = limiterPrefix()
    const limit: Plan.RateLimit = { requestsPerSecond: 1, burst: 50 }
    const takes = (server: typeof serverA) =>
      server.runPromise(
        Effect.scoped(
          Effect.flatMap(RedisRateLimiter.make({ prefix: shared }), (limiter) =>
            Effect.all(
              Array.from({ length: 75 }, () => limiter.take("account:1", limit)),
              { concurrency: "unbounded" }
            )
          )
        )
      )
    const [a, b] = await Promise.all([takes(serverA), takes(serverB)])
    const all = [...a, ...b]
    // A refill of one request takes a second; the 150 takes take a few milliseconds.
    expect(all.filter((v) => v.allowed).length).toBe(50)
    // Every granted request saw a different number of requests left: no token was spent twice.
    const remaining = all.filter((v) => v.allowed).map((v) => v.remaining)
    expect(new Set(remaining).size).toBe(50)
    expect(Math.min(...remaining)).toBe(0)
  })

  it("refills on the Redis clock at the bucket's rate", async () => {
    const twoPerSecond: Plan.RateLimit = { requestsPerSecond: 2, burst: 2 }
    const verdicts = await serverA.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const limiter = yield* RedisRateLimiter.make({ prefix: limiterPrefix() })
          const burst = yield* Effect.all(Array.from({ length: 3 }, () => limiter.take("k", twoPerSecond)))
          // One whole request refills in 500 ms.
          yield* Effect.sleep(Duration.millis(550))
          const after = yield* limiter.take("k", twoPerSecond)
          const refused = yield* limiter.take("k", twoPerSecond)
          return { burst, after, refused }
        })
      )
    )
    expect(verdicts.burst.map((v) => v.allowed)).toEqual([true, true, false])
    expect(verdicts.after.allowed).toBe(true)
    expect(verdicts.refused.allowed).toBe(false)
  })

  it("bucket keys live under the prefix and expire once the bucket is full again", async () => {
    const limiterKeys = limiterPrefix()
    const result = await serverA.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* RedisConnection
          const limiter = yield* RedisRateLimiter.make({ prefix: limiterKeys, keyLingerMs: 100 })
          const twoPerSecond: Plan.RateLimit = { requestsPerSecond: 2, burst: 2 }
          yield* limiter.take("account:9", twoPerSecond)
          const ttl = yield* Effect.promise(() => client.pttl(`${limiterKeys}rl:account:9`))
          // Full again 500 ms after one request at 2 per second, plus the 100 ms linger.
          yield* Effect.sleep(Duration.millis(700))
          const exists = yield* Effect.promise(() => client.exists(`${limiterKeys}rl:account:9`))
          const again = yield* limiter.take("account:9", twoPerSecond)
          return { ttl, exists, again }
        })
      )
    )
    expect(result.ttl).toBeGreaterThan(0)
    expect(result.ttl).toBeLessThanOrEqual(600)
    expect(result.exists).toBe(0)
    // A vanished bucket is a full one.
    expect(result.again).toMatchObject({ allowed: true, remaining: 1 })
  })

  it("runs a script Redis has never seen (EVALSHA falls back to EVAL), then by its hash", async () => {
    const salt = `salt-${Math.random()}`
    const result = await serverA.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* RedisConnection
          const limiter = yield* RedisRateLimiter.make({ prefix: limiterPrefix(), scriptSalt: salt })
          const first = yield* limiter.take("k", Plan.limitsFor("basic"))
          const second = yield* limiter.take("k", Plan.limitsFor("basic"))
          const source = `-- ${salt}\n${RedisRateLimiter.takeSource}`
          const sha = (yield* Effect.promise(() => client.script("LOAD", source))) as string
          const known = yield* Effect.promise(() => client.script("EXISTS", sha) as Promise<Array<number>>)
          return { first, second, known }
        })
      )
    )
    expect(result.first).toMatchObject({ allowed: true, remaining: 24 })
    expect(result.second).toMatchObject({ allowed: true, remaining: 23 })
    expect(result.known).toEqual([1])
  })

  it(
    "gives the same verdicts as the in-memory limiter for any sequence of takes, of one request or several",
    () =>
      fc.assert(
        fc.asyncProperty(
          Arbitrary.make(Plan.Plan),
          fc.array(
            fc.record({
              gapMs: fc.integer({ min: 0, max: 1500 }),
              takes: fc.integer({ min: 1, max: 8 }),
              // Several requests at once (an MCP POST), more than a free bucket holds too.
              requests: fc.integer({ min: 1, max: 6 })
            }),
            {
              minLength: 1,
              maxLength: 30
            }
          ),
          (plan, script) =>
            serverA.runPromise(
              Effect.scoped(
                Effect.gen(function* () {
                  const limit = Plan.limitsFor(plan)
                  const memory = yield* MemoryRateLimiter.make
                  const redis = yield* RedisRateLimiter.make({ prefix: limiterPrefix(), clock: "effect" })
                  for (const step of script) {
                    yield* TestClock.adjust(Duration.millis(step.gapMs))
                    for (let i = 0; i < step.takes; i++) {
                      const expected = yield* memory.take("k", limit, step.requests)
                      const actual = yield* redis.take("k", limit, step.requests)
                      expect(actual).toEqual(expected)
                    }
                  }
                }).pipe(Effect.provide(TestContext.TestContext))
              )
            )
        ),
        { numRuns: 40 }
      ),
    120_000
  )

  it("allows requests without hanging when Redis cannot be reached, and warns", async () => {
    const warnings = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const logs = yield* Ref.make<Array<string>>([])
          const logger = Logger.make(({ message }) => {
            Effect.runSync(Ref.update(logs, (all) => [...all, String(message)]))
          })
          // Nothing listens on port 1.
          const nowhere = yield* Effect.acquireRelease(
            Effect.sync(
              () => new Redis("redis://127.0.0.1:1", { lazyConnect: true, maxRetriesPerRequest: null })
            ),
            (client) => Effect.sync(() => client.disconnect())
          )
          nowhere.on("error", () => {})
          const limiter = yield* RedisRateLimiter.make({ prefix: limiterPrefix() }).pipe(
            Effect.provideService(RedisConnection, nowhere)
          )
          const verdicts: Array<RateVerdict> = []
          for (let i = 0; i < 5; i++) {
            verdicts.push(
              yield* limiter.take("k", Plan.limitsFor("free")).pipe(
                Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
                Effect.timeoutFail({
                  duration: Duration.seconds(3),
                  onTimeout: () => new Error("take hung")
                })
              )
            )
          }
          expect(verdicts.every((v) => v.allowed)).toBe(true)
          expect(verdicts[0]).toEqual({
            allowed: true,
            limit: 2,
            remaining: 1,
            resetSeconds: 0,
            retryAfterSeconds: 0
          })
          return yield* Ref.get(logs)
        })
      )
    )
    // One warning, not one per request.
    expect(warnings.filter((m) => m.includes("fail open"))).toHaveLength(1)
  })

  it("keeps limiting after its connection is dropped, once Redis answers again", async () => {
    const limiterKeys = limiterPrefix()
    const limit: Plan.RateLimit = { requestsPerSecond: 1, burst: 3 }
    const result = await serverA.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* RedisConnection
          const limiter = yield* RedisRateLimiter.make({ prefix: limiterKeys })
          const before = yield* Effect.all(Array.from({ length: 3 }, () => limiter.take("k", limit)))
          // Kill every connection of this server, the limiter's own one included (this one last).
          const own = String(yield* Effect.promise(() => client.client("ID")))
          const list = (yield* Effect.promise(() => client.client("LIST"))) as string
          const ids = list
            .split("\n")
            .filter((line) => line.includes(`${id}-a`))
            .flatMap((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1] ?? [])
            .filter((clientId) => clientId !== own)
          for (const clientId of [...ids, own]) {
            yield* Effect.promise(() => client.client("KILL", "ID", clientId).catch(() => undefined))
          }
          expect(ids.length).toBeGreaterThanOrEqual(1)
          // While it reconnects a take may be allowed without Redis; a refusal is Redis answering.
          const after: Array<RateVerdict> = []
          for (let i = 0; i < 50 && !after.some((v) => !v.allowed); i++) {
            after.push(yield* limiter.take("k", limit))
            yield* Effect.sleep(Duration.millis(20))
          }
          return { before, after }
        })
      )
    )
    expect(result.before.map((v) => v.allowed)).toEqual([true, true, true])
    const refusal = result.after.find((v) => !v.allowed)
    expect(refusal).toMatchObject({ allowed: false, limit: 3, remaining: 0 })
    expect(refusal?.retryAfterSeconds).toBeGreaterThanOrEqual(1)
  })

  it("the config layer reads the prefix from VERBATIM_REDIS_PREFIX", async () => {
    const configured = limiterPrefix()
    const result = await serverA.runPromise(
      Effect.gen(function* () {
        const client = yield* RedisConnection
        const verdict = yield* Effect.flatMap(RateLimiter, (limiter) =>
          limiter.take("account:7", Plan.limitsFor("pro"))
        ).pipe(Effect.provide(RedisRateLimiter.layerConfig))
        const exists = yield* Effect.promise(() => client.exists(`${configured}rl:account:7`))
        return { verdict, exists }
      }).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VERBATIM_REDIS_PREFIX", configured]])))
      )
    )
    expect(result.verdict).toMatchObject({ allowed: true, limit: 50, remaining: 49 })
    expect(result.exists).toBe(1)
  })
})
