/**
 * Runs one test suite against every implementation of a port: always in memory, and on Redis when
 * `REDIS_URL` is set. Each Redis suite works under a fresh random key prefix below
 * `VERBATIM_REDIS_PREFIX` (other runs share the server) and deletes its keys afterwards.
 */
import { randomUUID } from "node:crypto"
import { afterAll, describe, layer, type Vitest } from "@effect/vitest"
import type { EgressBudget, RateLimiter, SharedCache } from "@verbatim/core"
import { WorkQueue } from "@verbatim/core"
import {
  Context,
  Duration,
  Effect,
  Layer,
  ManagedRuntime,
  Option,
  Redacted,
  type Scope,
  TestClock,
  TestContext
} from "effect"
import type { Redis } from "ioredis"
import {
  connect,
  MemoryFleet,
  MemoryRateLimiter,
  MemoryWorkQueue,
  RedisConnection,
  RedisFleet,
  RedisRateLimiter,
  RedisWorkQueue
} from "../src/index.js"

export const redisUrl: Option.Option<Redacted.Redacted<string>> = Option.fromNullable(
  process.env.REDIS_URL?.trim() || undefined
).pipe(Option.map(Redacted.make))

/**
 * Under `CI=true` the suites that only Redis can run are never skipped: `.ci/run` starts Redis and
 * sets `REDIS_URL`, and a suite that runs without it fails with this error.
 */
export const inCi = process.env.CI === "true"

export const missingRedis = new Error(
  "REDIS_URL is not set: under CI=true the Redis suites run (.ci/run starts Redis)"
)

const basePrefix = process.env.VERBATIM_REDIS_PREFIX?.trim() || "verbatim-test:"

/** A fresh prefix under `VERBATIM_REDIS_PREFIX`, and the id that names its connections. */
export const freshPrefix = (): { readonly id: string; readonly prefix: string } => {
  const id = `t${randomUUID().replaceAll("-", "").slice(0, 12)}`
  return { id, prefix: `${basePrefix}${id}:` }
}

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`)

/** Deletes every key under the prefix (a flush of this suite's keys only; never FLUSHDB). */
export const deleteKeys = (client: Redis, prefix: string): Effect.Effect<void> =>
  Effect.promise(async () => {
    let cursor = "0"
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${globEscape(prefix)}*`, "COUNT", 1000)
      cursor = next
      if (keys.length > 0) await client.unlink(...keys)
    } while (cursor !== "0")
  })

/** Connection layer for tests: named after the suite so `CLIENT LIST` can find its connections. */
export const testConnection = (url: Redacted.Redacted<string>, id: string): Layer.Layer<RedisConnection> =>
  RedisConnection.layer({ url, connectionName: `verbatim-test-${id}` }).pipe(Layer.orDie)

/**
 * Deletes the prefix's keys when the layer is released (after what it provides to), over a
 * connection of its own, so a suite that broke its connections still cleans up.
 */
export const cleanupLayer = (url: Redacted.Redacted<string>, prefix: string): Layer.Layer<never> =>
  Layer.scopedDiscard(
    Effect.addFinalizer(() =>
      Effect.scoped(
        Effect.flatMap(connect({ url, connectionName: "verbatim-test-cleanup" }), (client) =>
          deleteKeys(client, prefix)
        )
      ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not delete test keys", cause)))
    )
  )

export type QueueName = "memory" | "redis"

/** How a test lets time pass: `TestClock.adjust` on the test clock, a real sleep on the live one. */
export type LetPass = (duration: Duration.DurationInput) => Effect.Effect<void>

/** What a suite may need besides the port. */
export interface QueueKit {
  readonly name: QueueName
  /** Deletes every key the suite's queue wrote (Redis); nothing in memory. */
  readonly flush: Effect.Effect<void>
  /** Closes every connection of the suite from the server side (Redis); nothing in memory. */
  readonly dropConnections: Effect.Effect<number>
  /** The Redis key prefix of the suite ("" in memory). */
  readonly prefix: string
  /**
   * Lets time pass for the suite's queue: in memory, whose delays run on Effect's `Clock`, the suite
   * runs on the test clock and this adjusts it; on Redis it sleeps (BullMQ's delays and locks keep
   * real time).
   */
  readonly letPass: LetPass
}

export class TestQueue extends Context.Tag("test/TestQueue")<TestQueue, QueueKit>() {}

export interface TestQueueImplementation {
  readonly name: QueueName
  /** A fresh queue (and kit) each time it is built. */
  readonly layer: (
    redisOptions?: Partial<RedisWorkQueueOptionsForTests>
  ) => Layer.Layer<WorkQueue | TestQueue>
}

export interface RedisWorkQueueOptionsForTests {
  readonly lockDurationMs: number
  readonly stalledIntervalMs: number
  readonly drainDelaySeconds: number
  readonly closeGraceMs: number
}

/** Kills, from a separate connection, every client whose name carries the suite's id. */
const killConnections = (url: Redacted.Redacted<string>, id: string): Effect.Effect<number> =>
  Effect.scoped(
    Effect.gen(function* () {
      const killer = yield* connect({ url, connectionName: "verbatim-test-killer" }).pipe(Effect.orDie)
      const list = yield* Effect.promise(() => killer.client("LIST") as Promise<string>)
      const ids = list
        .split("\n")
        .filter((line) => line.includes(id))
        .flatMap((line) => {
          const match = /(?:^|\s)id=(\d+)/.exec(line)
          return match?.[1] === undefined ? [] : [match[1]]
        })
      for (const clientId of ids) yield* Effect.promise(() => killer.client("KILL", "ID", clientId))
      return ids.length
    })
  )

/** The memory queue on a test clock of its own, which its suite's tests run on too. */
const memoryImplementation: TestQueueImplementation = {
  name: "memory",
  layer: () =>
    Layer.merge(
      MemoryWorkQueue.layer,
      Layer.succeed(TestQueue, {
        name: "memory",
        flush: Effect.void,
        dropConnections: Effect.succeed(0),
        prefix: "",
        letPass: TestClock.adjust
      })
    ).pipe(Layer.provideMerge(TestContext.TestContext))
}

const redisImplementation = (url: Redacted.Redacted<string>): TestQueueImplementation => ({
  name: "redis",
  layer: (redisOptions = {}) =>
    Layer.unwrapEffect(
      Effect.sync(() => {
        const { id, prefix } = freshPrefix()
        const kit = Layer.effect(
          TestQueue,
          Effect.map(RedisConnection, (client) => ({
            name: "redis" as const,
            flush: deleteKeys(client, prefix),
            dropConnections: killConnections(url, id),
            prefix,
            letPass: Effect.sleep
          }))
        )
        const queue = RedisWorkQueue.layer({
          prefix,
          lockDurationMs: redisOptions.lockDurationMs ?? 5_000,
          stalledIntervalMs: redisOptions.stalledIntervalMs ?? 1_000,
          drainDelaySeconds: redisOptions.drainDelaySeconds ?? 1,
          closeGraceMs: redisOptions.closeGraceMs ?? 1_000
        })
        return Layer.merge(queue, kit).pipe(
          Layer.provideMerge(cleanupLayer(url, prefix)),
          Layer.provide(testConnection(url, id))
        )
      })
    )
})

/**
 * The Redis queue, for the suites only Redis can run: without `REDIS_URL` (a suite run under CI) its
 * layer fails when built, with `missingRedis`.
 */
export const redisOnly: TestQueueImplementation = Option.match(redisUrl, {
  onNone: () => ({ name: "redis", layer: () => Layer.die(missingRedis) }),
  onSome: redisImplementation
})

/** The queues a suite runs against. */
export const queues: ReadonlyArray<TestQueueImplementation> = [
  memoryImplementation,
  ...Option.match(redisUrl, { onNone: () => [], onSome: (url) => [redisImplementation(url)] })
]

/**
 * `describe`s the suite once per queue (`"<name> [memory]"`, `"<name> [redis]"`), each with its
 * own fresh queue shared by the suite's tests (use a fresh lane per test). The memory suite runs on
 * the test clock its layer brings (one per suite); the Redis suite on the live clock, as Redis and
 * BullMQ keep real time. Tests let time pass with the kit's `letPass`, never with `Effect.sleep`.
 */
export const describeEachQueue = (
  name: string,
  suite: (
    it: Vitest.MethodsNonLive<WorkQueue | TestQueue, true>,
    implementation: TestQueueImplementation
  ) => void,
  redisOptions?: Partial<RedisWorkQueueOptionsForTests>
): void => {
  for (const implementation of queues) {
    layer(implementation.layer(redisOptions), { timeout: "60 seconds", excludeTestServices: true })(
      `${name} [${implementation.name}]`,
      (it) => suite(it, implementation)
    )
  }
}

let laneCounter = 0

/** A lane name no other test uses. */
export const freshLane = (label = "lane"): string => {
  laneCounter += 1
  return `${label}-${laneCounter}-${randomUUID().slice(0, 8)}`
}

/**
 * Polls `check` until it holds, letting 20 ms pass between tries (`letPass`: a real sleep unless
 * told), failing the test once `within` has passed that way.
 */
export const eventually = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  within: Duration.DurationInput = Duration.seconds(10),
  letPass: LetPass = Effect.sleep
): Effect.Effect<void, E | Error, R> => {
  const step = Duration.millis(20)
  const attempt = (left: number): Effect.Effect<void, E | Error, R> =>
    Effect.flatMap(check, (ok) =>
      ok
        ? Effect.void
        : left <= 0
          ? Effect.fail(new Error("condition not reached in time"))
          : Effect.zipRight(letPass(step), attempt(left - 1))
    )
  return attempt(Math.ceil(Duration.toMillis(within) / Duration.toMillis(step)))
}

/** Waits until the lane has nothing waiting, delayed or active (`letPass` as in `eventually`). */
export const drained = (
  lane: string,
  letPass: LetPass = Effect.sleep
): Effect.Effect<void, unknown, WorkQueue> =>
  eventually(
    Effect.map(
      Effect.flatMap(WorkQueue, (queue) => queue.depth(lane)),
      (depth) => depth.waiting === 0 && depth.delayed === 0 && depth.active === 0
    ),
    Duration.seconds(10),
    letPass
  )

export type LimiterName = "memory" | "redis"

export interface TestLimiterImplementation {
  readonly name: LimiterName
  /** A fresh limiter: no bucket shared with any other limiter made here. */
  readonly make: Effect.Effect<RateLimiter["Type"], never, Scope.Scope>
  /** A fresh limiter as the port's layer. */
  readonly layer: Layer.Layer<RateLimiter>
}

const memoryLimiter: TestLimiterImplementation = {
  name: "memory",
  make: MemoryRateLimiter.make,
  layer: MemoryRateLimiter.layer
}

/**
 * The Redis limiter on one connection per suite (built on first use, closed with `afterAll`), each
 * limiter under its own prefix. Its clock is Effect's, so `TestClock` drives the Lua script exactly
 * as it drives the memory limiter; the Redis clock is tested on its own.
 */
const redisLimiter = (url: Redacted.Redacted<string>): TestLimiterImplementation => {
  const { id, prefix } = freshPrefix()
  const connection = ManagedRuntime.make(testConnection(url, id))
  afterAll(async () => {
    await connection.runPromise(Effect.flatMap(RedisConnection, (client) => deleteKeys(client, prefix)))
    await connection.dispose()
  })
  let limiters = 0
  const options = () => {
    limiters += 1
    return { prefix: `${prefix}${limiters}:`, clock: "effect" as const }
  }
  const context = Effect.map(
    Effect.promise(() => connection.runtime()),
    (runtime) => runtime.context
  )
  return {
    name: "redis",
    make: Effect.flatMap(context, (ctx) => Effect.provide(RedisRateLimiter.make(options()), ctx)),
    layer: Layer.unwrapEffect(
      Effect.map(context, (ctx) =>
        RedisRateLimiter.layer(options()).pipe(Layer.provide(Layer.succeedContext(ctx)))
      )
    )
  }
}

/** `describe`s the suite once per limiter (`"<name> [memory]"`, `"<name> [redis]"`). */
export const describeEachLimiter = (
  name: string,
  suite: (limiter: TestLimiterImplementation) => void
): void => {
  const implementations: ReadonlyArray<{ name: LimiterName; build: () => TestLimiterImplementation }> = [
    { name: "memory", build: () => memoryLimiter },
    ...Option.match(redisUrl, {
      onNone: () => [],
      onSome: (url) => [{ name: "redis" as const, build: () => redisLimiter(url) }]
    })
  ]
  for (const implementation of implementations) {
    // Built inside `describe`, so a Redis limiter's `afterAll` belongs to its suite.
    describe(`${name} [${implementation.name}]`, () => suite(implementation.build()))
  }
}

/** One implementation of the fleet ports (`EgressBudget`, `SharedCache`) for the shared suite. */
export interface TestFleetImplementation {
  readonly name: LimiterName
  /** A fresh budget (its own keys), paced by Effect's `Clock`. */
  readonly budget: Effect.Effect<EgressBudget["Type"], never, Scope.Scope>
  /** A fresh cache (its own keys) holding at most `capacity` entries. */
  readonly cache: (capacity: number) => Effect.Effect<SharedCache["Type"], never, Scope.Scope>
}

const memoryFleet: TestFleetImplementation = {
  name: "memory",
  budget: MemoryFleet.makeBudget,
  cache: MemoryFleet.makeCache
}

/** The Redis implementations on one connection per suite, each budget and cache under its own prefix. */
const redisFleet = (url: Redacted.Redacted<string>): TestFleetImplementation => {
  const { id, prefix } = freshPrefix()
  const connection = ManagedRuntime.make(testConnection(url, id))
  afterAll(async () => {
    await connection.runPromise(Effect.flatMap(RedisConnection, (client) => deleteKeys(client, prefix)))
    await connection.dispose()
  })
  let made = 0
  const options = () => {
    made += 1
    return { prefix: `${prefix}${made}:`, clock: "effect" as const }
  }
  const context = Effect.map(
    Effect.promise(() => connection.runtime()),
    (runtime) => runtime.context
  )
  return {
    name: "redis",
    budget: Effect.flatMap(context, (ctx) => Effect.provide(RedisFleet.makeBudget(options()), ctx)),
    cache: (capacity) =>
      Effect.flatMap(context, (ctx) => Effect.provide(RedisFleet.makeCache({ ...options(), capacity }), ctx))
  }
}

/** `describe`s the suite once per fleet implementation (`"<name> [memory]"`, `"<name> [redis]"`). */
export const describeEachFleet = (name: string, suite: (fleet: TestFleetImplementation) => void): void => {
  const implementations: ReadonlyArray<{ name: LimiterName; build: () => TestFleetImplementation }> = [
    { name: "memory", build: () => memoryFleet },
    ...Option.match(redisUrl, {
      onNone: () => [],
      onSome: (url) => [{ name: "redis" as const, build: () => redisFleet(url) }]
    })
  ]
  for (const implementation of implementations) {
    describe(`${name} [${implementation.name}]`, () => suite(implementation.build()))
  }
}
