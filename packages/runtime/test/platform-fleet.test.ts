/**
 * The fleet's share of YouTube as the runtime wires it (`platformFor`) on the running Redis: two node
 * processes, each with its own Redis connections, in-process caches and replayed YouTube
 * (`fixtures/fleet-reader.ts`), read the same video for two accounts; YouTube answers the first
 * only. And their requests take from one budget: a push-back seen by one slows the other.
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { EgressBudget } from "@verbatim/core"
import { RedisConnection } from "@verbatim/queue/redis"
import { testSettings } from "@verbatim/youtube/testing"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { platformFleetOnRedis } from "../src/index.js"

const redisUrl = process.env.REDIS_URL?.trim() ?? ""
const prefix = `${process.env.VERBATIM_REDIS_PREFIX?.trim() || "verbatim-test:"}fleet-${randomUUID().slice(0, 8)}:`
const redis = { url: Option.some(Redacted.make(redisUrl)), prefix }
const youtube = { ...testSettings, minInterval: Duration.millis(1) }

const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url))
const reader = fileURLToPath(new URL("./fixtures/fleet-reader.ts", import.meta.url))

/**
 * Runs `fixtures/fleet-reader.ts` in a node process of its own (its own Redis connections,
 * in-process caches and replayed YouTube): the paths it asked YouTube for, and what it read.
 */
const readInProcess = (): {
  readonly paths: ReadonlyArray<string>
  readonly details: unknown
  readonly captions: unknown
} =>
  JSON.parse(
    execFileSync(process.execPath, ["--import", "tsx", "--conditions=@verbatim/source", reader, prefix], {
      cwd: repositoryRoot,
      env: { ...process.env, REDIS_URL: redisUrl, VERBATIM_LOG_LEVEL: "none" },
      encoding: "utf8",
      timeout: 50_000
    })
  )

// Live clock: the adapters share Redis, which keeps real time.
describe.skipIf(redisUrl === "" && process.env.CI !== "true")("YouTube across processes, on Redis", () => {
  // The cache's values live an hour: this run's keys go with it.
  afterAll(() =>
    Effect.runPromise(
      Effect.flatMap(RedisConnection, (client) =>
        Effect.promise(async () => {
          const keys = await client.keys(`${prefix}*`)
          if (keys.length > 0) await client.unlink(...keys)
        })
      ).pipe(
        Effect.provide(RedisConnection.layer({ url: Redacted.make(redisUrl), connectionName: "fleet-test" })),
        Effect.scoped
      )
    )
  )

  it("the same captions asked by two accounts on two processes: one fetch from YouTube", () => {
    // Account A's request on process 1, then account B's on process 2 (the platform knows no account).
    const first = readInProcess()
    const second = readInProcess()
    expect(first.paths).toContain("/api/timedtext")
    expect(second.paths).toEqual([])
    expect(second.details).toEqual(first.details)
    expect(second.captions).toEqual(first.captions)
  }, 60_000)

  it.live("a push-back seen by one process strikes the egress every process sends from", () =>
    Effect.gen(function* () {
      const strikesFrom = (n: number) =>
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(platformFleetOnRedis(redis, Redacted.make(redisUrl), youtube))
            const budget = Effect.provide(EgressBudget, context)
            if (n > 0)
              yield* Effect.flatMap(budget, (b) => b.pushBack("direct", { ratePerSecond: 4, burst: 1 }))
            return yield* Effect.flatMap(budget, (b) => b.strikes("direct"))
          })
        )
      expect(yield* strikesFrom(1)).toBe(1)
      expect(yield* strikesFrom(0)).toBe(1)
    })
  )
})
