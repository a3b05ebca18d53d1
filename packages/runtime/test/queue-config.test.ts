/**
 * The work queue and the rate limiter the environment chooses: in memory without REDIS_URL, on
 * Redis when it is set. The Redis implementations (BullMQ and ioredis) are loaded only then.
 */
import { describe, expect, it } from "@effect/vitest"
import { RateLimiter, WorkQueue } from "@verbatim/core"
import { RedisConfig } from "@verbatim/queue/memory"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { queuesFor } from "../src/index.js"

/** Which of the two services the layer the environment chooses provides. */
const build = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const settings = yield* RedisConfig
    const context = yield* Layer.build(queuesFor(settings))
    return [context.unsafeMap.has(WorkQueue.key), context.unsafeMap.has(RateLimiter.key)]
  }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))), Effect.scoped)

// Live clock: a real Redis connection, or its real failure to connect.
describe("queues by settings", () => {
  it.effect("in memory without REDIS_URL", () =>
    Effect.gen(function* () {
      expect(yield* build({})).toEqual([true, true])
    })
  )

  it.live(
    "on Redis when REDIS_URL is set: an unreachable Redis fails the start with the Redis connection error",
    () =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(build({ REDIS_URL: "redis://127.0.0.1:9/0" }))
        expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("RedisConnectionError")
      }),
    20_000
  )

  it.live.skipIf(!process.env.REDIS_URL)("on Redis when REDIS_URL is set: built on the running Redis", () =>
    Effect.gen(function* () {
      const env = {
        REDIS_URL: process.env.REDIS_URL ?? "",
        VERBATIM_REDIS_PREFIX: `queue-config-${process.pid}:`
      }
      expect(yield* build(env)).toEqual([true, true])
    })
  )
})
