/**
 * `pnpm --filter @verbatim/bench bench:queue`: the work queues, in memory and on Redis (when
 * REDIS_URL is set), through the `WorkQueue` port as the worker uses it.
 *
 *   1. Throughput: BENCH_QUEUE_JOBS items (default 20,000, from 10 accounts) are offered first, then
 *      one consumer (this process) with a no-op handler drains them, at each concurrency of
 *      BENCH_QUEUE_CONCURRENCY (default "1,16"): items per second, and offers per second.
 *   2. Accept-to-start latency: one item every 1/BENCH_QUEUE_RATE seconds (default 200 per second)
 *      for BENCH_QUEUE_SECONDS (default 10), to a consumer with concurrency 16: the time from
 *      `offer` returning to the handler starting, p50/p99/max (a handler that starts before `offer`
 *      returns counts 0).
 *
 * Redis keys go under VERBATIM_REDIS_PREFIX plus a random part, deleted afterwards. Results are
 * printed as a table and written to bench/results/queue-<date>.json.
 */
import { randomUUID } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { type WorkOffer, WorkQueue } from "@verbatim/core"
import { MemoryWorkQueue, RedisConfig, RedisConnection, RedisWorkQueue } from "@verbatim/queue"
import {
  Config,
  Console,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  Logger,
  LogLevel,
  Option,
  Scope
} from "effect"

const settings = Config.all({
  jobs: Config.integer("BENCH_QUEUE_JOBS").pipe(Config.withDefault(20_000)),
  concurrencies: Config.string("BENCH_QUEUE_CONCURRENCY").pipe(
    Config.withDefault("1,16"),
    Config.map((list) =>
      list
        .split(",")
        .map((n) => Number.parseInt(n.trim(), 10))
        .filter((n) => n > 0)
    )
  ),
  rate: Config.integer("BENCH_QUEUE_RATE").pipe(Config.withDefault(200)),
  seconds: Config.integer("BENCH_QUEUE_SECONDS").pipe(Config.withDefault(10)),
  redis: RedisConfig
})

interface Target {
  readonly name: "memory" | "redis"
  readonly layer: Layer.Layer<WorkQueue, unknown>
}

/** Deletes every key under the prefix (never the whole Redis: others may share it). */
const deleteKeys = (prefix: string) =>
  Effect.flatMap(RedisConnection, (client) =>
    Effect.promise(async () => {
      let cursor = "0"
      do {
        const [next, keys] = await client.scan(
          cursor,
          "MATCH",
          `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
          "COUNT",
          1000
        )
        cursor = next
        if (keys.length > 0) await client.unlink(...keys)
      } while (cursor !== "0")
    })
  )

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))] ?? 0)

const round = (n: number, digits = 2): number => Number(n.toFixed(digits))

const offersOf = (lane: string, count: number): Array<WorkOffer> =>
  Array.from({ length: count }, (_, i) => ({ lane, id: `job-${i}`, accountId: `account-${i % 10}` }))

/** Offers every item (batches of 500), then drains them with one consumer of the given concurrency. */
const throughput = (jobs: number, concurrency: number) =>
  Effect.gen(function* () {
    const queue = yield* WorkQueue
    const lane = `throughput-${concurrency}-${randomUUID().slice(0, 8)}`
    const items = offersOf(lane, jobs)
    const offerStart = performance.now()
    for (let i = 0; i < items.length; i += 500) yield* queue.offer(items.slice(i, i + 500))
    const offerMs = performance.now() - offerStart
    const done = yield* Deferred.make<void>()
    let handled = 0
    const start = performance.now()
    yield* Effect.scoped(
      Effect.zipRight(
        queue.consume(lane, { concurrency }, () =>
          Effect.suspend(() => {
            handled += 1
            return handled === jobs ? Deferred.succeed(done, undefined) : Effect.void
          })
        ),
        Deferred.await(done)
      )
    )
    const drainMs = performance.now() - start
    return {
      concurrency,
      jobs,
      offersPerSecond: round((jobs / offerMs) * 1000, 0),
      jobsPerSecond: round((jobs / drainMs) * 1000, 0)
    }
  })

/** One item every 1/rate seconds; the time from `offer` returning to its handler starting. */
const latency = (rate: number, seconds: number) =>
  Effect.gen(function* () {
    const queue = yield* WorkQueue
    const lane = `latency-${randomUUID().slice(0, 8)}`
    const count = rate * seconds
    const offered = new Array<number>(count).fill(Number.NaN)
    const started = new Array<number>(count).fill(Number.NaN)
    const offerMs: Array<number> = []
    let seen = 0
    const done = yield* Deferred.make<void>()
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* queue.consume(lane, { concurrency: 16 }, (item) =>
          Effect.suspend(() => {
            started[Number(item.id.slice(4))] = performance.now()
            seen += 1
            return seen === count ? Deferred.succeed(done, undefined) : Effect.void
          })
        )
        const interval = 1000 / rate
        const t0 = performance.now()
        for (let i = 0; i < count; i++) {
          const wait = t0 + i * interval - performance.now()
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          const before = performance.now()
          yield* queue.offer([{ lane, id: `job-${i}`, accountId: `account-${i % 10}` }])
          const after = performance.now()
          offered[i] = after
          offerMs.push(after - before)
        }
        yield* Deferred.await(done).pipe(Effect.timeout(Duration.seconds(60)), Effect.ignore)
      })
    )
    const latencies = offered
      .map((at, i) => Math.max(0, (started[i] ?? Number.NaN) - at))
      .filter(Number.isFinite)
      .sort((a, b) => a - b)
    offerMs.sort((a, b) => a - b)
    return {
      rate,
      seconds,
      items: count,
      started: latencies.length,
      p50Ms: round(percentile(latencies, 0.5)),
      p99Ms: round(percentile(latencies, 0.99)),
      maxMs: round(latencies[latencies.length - 1] ?? Number.NaN),
      offerP50Ms: round(percentile(offerMs, 0.5)),
      offerP99Ms: round(percentile(offerMs, 0.99))
    }
  })

const program = Effect.gen(function* () {
  const config = yield* settings
  const targets: Array<Target> = [{ name: "memory", layer: MemoryWorkQueue.layer }]
  if (Option.isSome(config.redis.url)) {
    const prefix = `${config.redis.prefix}bench-${randomUUID().slice(0, 8)}:`
    const connection = RedisConnection.layer({
      url: config.redis.url.value,
      connectionName: "verbatim-bench"
    })
    const cleanup = Layer.scopedDiscard(Effect.addFinalizer(() => deleteKeys(prefix)))
    targets.push({
      name: "redis",
      layer: RedisWorkQueue.layer({ prefix }).pipe(Layer.provideMerge(cleanup), Layer.provide(connection))
    })
  }
  const results = []
  for (const target of targets) {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(target.layer, scope)
    const measured = yield* Effect.gen(function* () {
      const rows = []
      for (const concurrency of config.concurrencies) rows.push(yield* throughput(config.jobs, concurrency))
      return { queue: target.name, throughput: rows, latency: yield* latency(config.rate, config.seconds) }
    }).pipe(Effect.provide(context), Effect.ensuring(Scope.close(scope, Exit.void)))
    results.push(measured)
  }
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    jobs: config.jobs,
    rate: config.rate,
    seconds: config.seconds,
    results
  }
  yield* Console.log(
    [
      "",
      `| queue | concurrency | items/s through one consumer (${config.jobs} items, no-op handler) | offers/s |`,
      "|---|---|---|---|",
      ...results.flatMap((r) =>
        r.throughput.map(
          (t) => `| ${r.queue} | ${t.concurrency} | ${t.jobsPerSecond} | ${t.offersPerSecond} |`
        )
      ),
      "",
      `| queue | accept-to-start p50 ms | p99 ms | max ms | offer p50 ms | offer p99 ms | (${config.rate}/s for ${config.seconds} s) |`,
      "|---|---|---|---|---|---|---|",
      ...results.map(
        (r) =>
          `| ${r.queue} | ${r.latency.p50Ms} | ${r.latency.p99Ms} | ${r.latency.maxMs} | ${r.latency.offerP50Ms} | ${r.latency.offerP99Ms} | ${r.latency.started}/${r.latency.items} started |`
      )
    ].join("\n")
  )
  const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results")
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(
    join(resultsDir, `queue-${report.date.replace(/[:.]/g, "-")}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
}).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))

NodeRuntime.runMain(program)
