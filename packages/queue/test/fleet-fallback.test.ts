/**
 * Without Redis, the fleet ports keep working on their own: a Redis `EgressBudget` whose
 * server cannot be reached paces by the in-process budget (the pace this process alone would keep,
 * never faster, never hung), the shared cache misses instead of failing, and each warns once, not
 * once per call. Needs no Redis server: the connection points where nothing listens.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Logger, Option, Ref } from "effect"
import { Redis } from "ioredis"
import { RedisConnection, RedisFleet } from "../src/index.js"

describe("the Redis fleet ports without Redis", () => {
  it("the budget falls back to the process's own pace, the cache misses, one warning each", async () => {
    const outcome = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const logs = yield* Ref.make<Array<string>>([])
          const logger = Logger.make(({ message }) => {
            Effect.runSync(
              Ref.update(logs, (all) => [...all, String(Array.isArray(message) ? message[0] : message)])
            )
          })
          // Nothing listens on port 1.
          const nowhere = yield* Effect.acquireRelease(
            Effect.sync(
              () => new Redis("redis://127.0.0.1:1", { lazyConnect: true, maxRetriesPerRequest: null })
            ),
            (client) => Effect.sync(() => client.disconnect())
          )
          nowhere.on("error", () => {})
          const options = { prefix: "verbatim-test-nowhere:", timeout: Duration.millis(200) }
          const budget = yield* RedisFleet.makeBudget(options).pipe(
            Effect.provideService(RedisConnection, nowhere)
          )
          const cache = yield* RedisFleet.makeCache(options).pipe(
            Effect.provideService(RedisConnection, nowhere)
          )
          const rate = { ratePerSecond: 2, burst: 1 }
          const logged = <A, E>(effect: Effect.Effect<A, E>) =>
            effect.pipe(
              Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
              Effect.timeoutFail({ duration: Duration.seconds(3), onTimeout: () => new Error("hung") })
            )
          // Burst 1 at 2 a second: the first slot at once, then 500 ms apart, as in one process.
          const waits: Array<number> = []
          for (let i = 0; i < 3; i++)
            waits.push(Duration.toMillis(yield* logged(budget.reserve("egress", rate))))
          yield* logged(cache.set("key", "value", Duration.minutes(1)))
          const read = yield* logged(cache.get("key"))
          return { waits, read, warnings: yield* Ref.get(logs) }
        })
      )
    )
    expect(outcome.waits[0]).toBe(0)
    expect(outcome.waits[1]).toBeGreaterThan(300)
    expect(outcome.waits[2]).toBeGreaterThan(outcome.waits[1] ?? 0)
    expect(outcome.read).toEqual(Option.none())
    expect(outcome.warnings.filter((m) => m.startsWith("egress budget: Redis did not answer"))).toHaveLength(
      1
    )
    expect(outcome.warnings.filter((m) => m.startsWith("shared cache: Redis did not answer"))).toHaveLength(1)
  })
})
