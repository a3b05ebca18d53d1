/**
 * `pnpm --filter @verbatim/bench bench:batch`: batches over real HTTP with the production wiring, on
 * a synthetic demo catalogue (`syntheticCatalogue`):
 *
 * 1. `POST /batch` of BENCH_BATCH_SIZE (3,000) ids, one request at a time, BENCH_BATCH_POSTS (20)
 *    times: p50 and p99 of the answer (202), measured by the client. No worker runs meanwhile.
 * 2. Throughput: one batch of BENCH_VIDEOS (1,000) videos run by the worker in this process with
 *    VERBATIM_BATCH_CONCURRENCY = BENCH_CONCURRENCY (16) items at once, the demo platform answering
 *    each fetch BENCH_LATENCY_MS (100) late. Each item makes two fetches (details, then captions),
 *    so the ideal is concurrency / (2 x latency) videos per second; the report gives the measured
 *    rate from the batch's creation to its completion (its own times), and its share of the ideal.
 *
 * PGlite in a temporary folder, or PostgreSQL when DATABASE_URL is set; the in-memory queue, or
 * Redis when REDIS_URL is set. The rate limiter lets every request through. Results are printed and
 * written to bench/results/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { HttpLive } from "@verbatim/api"
import { AccountAdmin, platformHealthLayer, RateLimiter, WebhookAllowList } from "@verbatim/core"
import { persistenceLayer, pgliteLayer, postgresTestLayer } from "@verbatim/db"
import { syntheticCatalogue, syntheticVideoId } from "@verbatim/demo-platform"
import {
  demoPlatform,
  NodeServicesLive,
  queuesFor,
  runWorker,
  servicesOn,
  ThemesFromConfig,
  workerOn
} from "@verbatim/runtime"
import { offlineMedia, testWorkSettings } from "@verbatim/runtime/testing"
import { Config, Console, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { describeMachine, watchMachine } from "./machine.js"
import { makeStepTimes } from "./step-times.js"

const settings = Config.all({
  batchSize: Config.integer("BENCH_BATCH_SIZE").pipe(Config.withDefault(3_000)),
  posts: Config.integer("BENCH_BATCH_POSTS").pipe(Config.withDefault(20)),
  videos: Config.integer("BENCH_VIDEOS").pipe(Config.withDefault(1_000)),
  concurrency: Config.integer("BENCH_CONCURRENCY").pipe(Config.withDefault(16)),
  latencyMs: Config.integer("BENCH_LATENCY_MS").pipe(Config.withDefault(100)),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  redisUrl: Config.option(Config.string("REDIS_URL"))
})

/** Every request allowed: the bench measures the batch path, not the plan's rate limit. */
const Unlimited = Layer.succeed(RateLimiter, {
  take: () =>
    Effect.succeed({ allowed: true, limit: 1e9, remaining: 1e9, resetSeconds: 0, retryAfterSeconds: 0 })
})

/** The server's spans of a `POST /batch`, outermost first, shown post by post. */
const acceptPath = ["http.server POST", "verbatim.batch.create", "verbatim.db.Batches.insert"] as const

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0)

const program = Effect.gen(function* () {
  const config = yield* settings
  const machine = watchMachine()
  const dir = mkdtempSync(join(tmpdir(), "verbatim-bench-batch-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  const catalogue = join(dir, "catalogue.json")
  writeFileSync(catalogue, JSON.stringify(syntheticCatalogue(Math.max(config.batchSize, config.videos))))
  const databaseName = Option.isSome(config.databaseUrl) ? "PostgreSQL" : "PGlite (embedded)"
  const queueName = Option.isSome(config.redisUrl) ? "Redis" : "memory"
  // A key prefix per phase: the items the acceptance phase offers (500 per batch, 21 batches) must
  // not sit in the lane the throughput phase's worker takes from (it would claim each one in vain).
  const redisFor = (phase: string) =>
    Option.match(config.redisUrl, {
      onNone: () => ({ url: Option.none(), prefix: "unused:" }),
      onSome: (url) => ({
        url: Option.some(Redacted.make(url)),
        prefix: `verbatim-bench-batch-${Date.now()}-${phase}:`
      })
    })

  const serve = (name: string, latencyMs: number) =>
    Effect.gen(function* () {
      const database = Option.match(config.databaseUrl, {
        onNone: () => pgliteLayer(join(dir, name)),
        onSome: (url) => postgresTestLayer(url)
      })
      const useCases = servicesOn(
        Layer.mergeAll(
          persistenceLayer(database),
          // The platform's outcomes are not watched here (/health is not measured).
          Layer.merge(demoPlatform(catalogue, latencyMs), platformHealthLayer()),
          queuesFor(redisFor(name)),
          Unlimited,
          NodeServicesLive,
          offlineMedia(),
          Layer.succeed(WebhookAllowList, []),
          ThemesFromConfig
        )
      )
      const context = yield* Layer.build(
        HttpLive.pipe(
          Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
          Layer.provideMerge(useCases)
        )
      )
      const admin = AccountAdmin.pipe(Effect.provide(context))
      const account = yield* Effect.flatMap(admin, (a) =>
        a.createAccount({ name: "bench", plan: "business", credits: 1_000_000 })
      )
      const { key } = yield* Effect.flatMap(admin, (a) => a.issueKey(account.id))
      const address = (yield* HttpServer.HttpServer.pipe(Effect.provide(context))).address
      if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("not a TCP server")
      return { context, key, base: `http://127.0.0.1:${address.port}/api/v2` }
    })

  const post = (base: string, key: string, ids: ReadonlyArray<string>) =>
    Effect.promise(async () => {
      const started = performance.now()
      const response = await fetch(`${base}/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ video_ids: ids, mode: "captions_only" })
      })
      const body = (await response.json()) as { batch_id?: string }
      return { ms: performance.now() - started, status: response.status, id: body.batch_id ?? "" }
    })

  // 1. Acceptance latency of a batch of batchSize ids (no worker).
  const acceptSteps = yield* makeStepTimes
  const accept = yield* Effect.scoped(
    Effect.gen(function* () {
      const { key, base } = yield* serve("accept", 0)
      const ids = Array.from({ length: config.batchSize }, (_, i) => syntheticVideoId(i))
      yield* post(base, key, ids) // warm-up
      acceptSteps.reset()
      const times: Array<number> = []
      for (let i = 0; i < config.posts; i++) {
        const answer = yield* post(base, key, ids)
        if (answer.status !== 202) return yield* Effect.dieMessage(`POST /batch answered ${answer.status}`)
        times.push(answer.ms)
      }
      const sorted = [...times].sort((a, b) => a - b)
      return {
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted.at(-1) ?? 0,
        // In the order they were made: whether the slow ones are the first (a cold path) or scattered.
        inOrderMs: times.map((ms) => Math.round(ms * 10) / 10),
        // The server's side of each post, in order: where a slow (cold) post spent its time.
        serverInOrderMs: Object.fromEntries(
          acceptPath.map((name) => [name, acceptSteps.inOrder(name)] as const)
        ),
        steps: acceptSteps.table()
      }
    }).pipe(Effect.provide(acceptSteps.layer))
  )
  const steps = yield* makeStepTimes

  // 2. Throughput of one batch run by the worker against a platform latencyMs late.
  const throughput = yield* Effect.scoped(
    Effect.gen(function* () {
      const { context, key, base } = yield* serve("throughput", config.latencyMs)
      steps.reset()
      yield* Effect.forkScoped(
        runWorker.pipe(
          Effect.provide(
            workerOn(
              testWorkSettings({
                batchConcurrency: config.concurrency,
                leaseMs: 30_000,
                reconcileEveryMs: 5_000
              })
            )
          ),
          Effect.provide(context)
        )
      )
      const ids = Array.from({ length: config.videos }, (_, i) => syntheticVideoId(i))
      const answer = yield* post(base, key, ids)
      if (answer.status !== 202) return yield* Effect.dieMessage(`POST /batch answered ${answer.status}`)
      let seconds = 0
      for (;;) {
        // Polled as a client would; the batch's own times say how long it ran.
        yield* Effect.sleep("1 second")
        const status = yield* Effect.promise(async () => {
          const response = await fetch(`${base}/batch/${answer.id}`, {
            headers: { authorization: `Bearer ${key}` }
          })
          const body = (await response.json()) as {
            summary: { succeeded: number }
            created_at: string
            completed_at: string | null
          }
          return { status: response.status, body }
        })
        if (status.status === 200) {
          if (status.body.summary.succeeded !== config.videos) {
            return yield* Effect.dieMessage(`only ${status.body.summary.succeeded} succeeded`)
          }
          seconds = (Date.parse(status.body.completed_at ?? "") - Date.parse(status.body.created_at)) / 1000
          break
        }
      }
      const table = steps.table()
      const rate = config.videos / seconds
      const ideal = config.concurrency / ((2 * config.latencyMs) / 1000)
      return { seconds, rate, ideal, share: rate / ideal, steps: table }
    }).pipe(Effect.provide(steps.layer))
  )

  const state = machine.done()
  const report = {
    date: new Date().toISOString(),
    machine: state,
    database: databaseName,
    queue: queueName,
    node: process.version,
    accept: { batchSize: config.batchSize, posts: config.posts, ...accept },
    throughput: {
      videos: config.videos,
      concurrency: config.concurrency,
      latencyMs: config.latencyMs,
      ...throughput
    }
  }
  yield* Console.log(
    [
      "",
      `| ${databaseName}, ${queueName} queue | figure |`,
      "|---|---|",
      `| POST /batch of ${config.batchSize} ids, p50 / p99 / max (${config.posts} posts) | ${accept.p50Ms.toFixed(1)} / ${accept.p99Ms.toFixed(1)} / ${accept.maxMs.toFixed(1)} ms |`,
      `| the ${config.posts} posts in the order made | ${accept.inOrderMs.join(", ")} ms |`,
      ...acceptPath.map(
        (name) => `| ${name}, in that order | ${(accept.serverInOrderMs[name] ?? []).join(", ")} ms |`
      ),
      `| ${config.videos} videos, ${config.concurrency} at once, ${config.latencyMs} ms per fetch | ${throughput.seconds.toFixed(1)} s, ${throughput.rate.toFixed(1)} videos/s, ideal ${throughput.ideal.toFixed(1)}: ${(throughput.share * 100).toFixed(0)}% |`
    ].join("\n")
  )
  const perItem = (name: string) => throughput.steps.find((step) => step.name === name)
  const stepRows = throughput.steps
    .filter((step) => step.name.startsWith("verbatim.") || step.name === "sql.execute")
    .sort((a, b) => b.totalMs - a.totalMs)
    .map(
      (step) =>
        `| ${step.name} | ${step.count} | ${(step.count / config.videos).toFixed(1)} | ${step.meanMs.toFixed(1)} | ${step.p50Ms.toFixed(1)} | ${step.p99Ms.toFixed(1)} |`
    )
  const acceptRows = accept.steps
    .filter((step) => step.name.startsWith("verbatim.") || step.name.startsWith("http."))
    .sort((a, b) => b.totalMs - a.totalMs)
    .map(
      (step) =>
        `| ${step.name} | ${step.count} | ${step.meanMs.toFixed(1)} | ${step.p50Ms.toFixed(1)} | ${step.p99Ms.toFixed(1)} |`
    )
  yield* Console.log(
    [
      "",
      `Per step, during the ${config.posts} posts (wall time):`,
      "",
      "| span | count | mean ms | p50 ms | p99 ms |",
      "|---|---|---|---|---|",
      ...acceptRows
    ].join("\n")
  )
  yield* Console.log(
    [
      "",
      `Per step, during the throughput run (wall time; an item takes ${perItem("verbatim.batch.item")?.meanMs.toFixed(1) ?? "?"} ms on average):`,
      "",
      "| span | count | per item | mean ms | p50 ms | p99 ms |",
      "|---|---|---|---|---|---|",
      ...stepRows,
      "",
      ...describeMachine(state)
    ].join("\n")
  )
  const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results")
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(
    join(resultsDir, `batch-${report.date.replace(/[:.]/g, "-")}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
}).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning))

NodeRuntime.runMain(program)
