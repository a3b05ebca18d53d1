/**
 * `pnpm --filter @verbatim/bench bench:jobs`: jobs per second through the whole job machine (a
 * backlog created first, then drained by one worker), and accept-to-start latency (jobs offered at
 * 100 per second to a running worker), on each queue: `test.delay` jobs (no delay, 1 credit) created through
 * `JobLifecycle.create` (insert + offer), claimed by one worker (the production `Worker`, in this
 * process) with a lease, and settled with their charge (the worker claims and settles the jobs that
 * are ready together, in batches). Accept-to-start is `started_at - created_at` of each job, as the
 * database recorded them. The process's CPU time per drained job is printed too: on a shared machine
 * it varies much less than jobs/s.
 *
 * Runs on PGlite (a temporary data folder) or on PostgreSQL when DATABASE_URL is set (a throw-away
 * schema); on the in-memory queue, and on Redis too when REDIS_URL is set (a throw-away prefix).
 * Settings: BENCH_JOBS (2000), BENCH_CONCURRENCY (16), BENCH_ACCOUNTS (16: the jobs' owners). Results are printed and written to
 * bench/results/. BENCH_CPU_PROFILE=<folder> writes a V8 CPU profile of each drain (`.cpuprofile`, for
 * Chrome's DevTools or speedscope).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import {
  AccountAdmin,
  JobLifecycle,
  type JobRecord,
  Jobs,
  platformHealthLayer,
  WebhookAllowList
} from "@verbatim/core"
import { persistenceLayer, pgliteLayer, postgresTestLayer } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import {
  demoPlatform,
  NodeServicesLive,
  queuesFor,
  runWorker,
  servicesOn,
  ThemesFromConfig,
  type WorkSettings
} from "@verbatim/runtime"
import { offlineMedia, testJob, testWorkerOn, testWorkSettings } from "@verbatim/runtime/testing"
import {
  Config,
  Console,
  DateTime,
  Duration,
  Effect,
  Layer,
  Logger,
  LogLevel,
  Option,
  Redacted
} from "effect"

const settings = Config.all({
  jobs: Config.integer("BENCH_JOBS").pipe(Config.withDefault(2_000)),
  concurrency: Config.integer("BENCH_CONCURRENCY").pipe(Config.withDefault(16)),
  accounts: Config.integer("BENCH_ACCOUNTS").pipe(Config.withDefault(16)),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  redisUrl: Config.option(Config.string("REDIS_URL")),
  cpuProfile: Config.option(Config.string("BENCH_CPU_PROFILE"))
})

/** Runs `effect` under V8's CPU profiler when a folder is given, writing `<name>.cpuprofile` there. */
const profiled = <A, E, R>(folder: Option.Option<string>, name: string, effect: Effect.Effect<A, E, R>) =>
  Option.match(folder, {
    onNone: () => effect,
    onSome: (dir) =>
      Effect.acquireUseRelease(
        Effect.promise(async () => {
          const session = new Session()
          session.connect()
          await session.post("Profiler.enable")
          await session.post("Profiler.start")
          return session
        }),
        () => effect,
        (session) =>
          Effect.promise(async () => {
            const { profile } = await session.post("Profiler.stop")
            mkdirSync(dir, { recursive: true })
            writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile))
            session.disconnect()
          })
      )
  })

interface Result {
  readonly queue: string
  readonly database: string
  readonly accounts: number
  readonly jobs: number
  readonly seconds: number
  readonly jobsPerSecond: number
  /** This process's CPU time (user and system) while draining, per job: less noisy than jobs/s. */
  readonly cpuMsPerJob: number
  readonly acceptToStartP50Ms: number
  readonly acceptToStartP99Ms: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

/** Waits until no job of this bench's database is processing. */
const waitSettled = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  while (true) {
    const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE status = 'processing'`
    if ((rows[0]?.n ?? 1) === 0) return
    yield* Effect.sleep(Duration.millis(20))
  }
})

/**
 * Phase 1: `count` jobs of `accounts` accounts (round robin) created while no worker runs, then
 * drained by one worker: jobs per second. One account's charges take its row lock in turn, so a
 * single account is bounded by its commits; many accounts run side by side.
 */
const throughput = (
  count: number,
  accounts: number,
  work: WorkSettings,
  profile: Option.Option<string>,
  name: string
) =>
  Effect.gen(function* () {
    const admin = yield* AccountAdmin
    const lifecycle = yield* JobLifecycle
    const owners = yield* Effect.forEach(Array.from({ length: accounts }), (_, i) =>
      admin.createAccount({ name: `bench throughput ${i}`, plan: "business", credits: count })
    )
    yield* Effect.forEach(
      owners.flatMap((owner, i) =>
        Array.from({ length: Math.floor(count / accounts) + (i < count % accounts ? 1 : 0) }, () => owner)
      ),
      (owner) => Effect.flatMap(testJob({ accountId: owner.id, payload: { credits: 1 } }), lifecycle.create),
      { concurrency: 16, discard: true }
    )
    const started = Date.now()
    const cpuBefore = process.cpuUsage()
    yield* profiled(
      profile,
      name,
      Effect.scoped(Effect.zipRight(runWorker, waitSettled)).pipe(Effect.provide(testWorkerOn(work)))
    )
    const cpu = process.cpuUsage(cpuBefore)
    return { seconds: (Date.now() - started) / 1000, cpuMs: (cpu.user + cpu.system) / 1000 }
  })

/** Phase 2: jobs offered at a steady `rate` per second to a running worker: accept-to-start latencies. */
const latency = (count: number, rate: number, work: WorkSettings) =>
  Effect.gen(function* () {
    const admin = yield* AccountAdmin
    const lifecycle = yield* JobLifecycle
    const jobs = yield* Jobs
    const account = yield* admin.createAccount({ name: "bench latency", plan: "business", credits: count })
    const created: Array<JobRecord> = []
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* runWorker
        for (let i = 0; i < count; i++) {
          created.push(
            yield* lifecycle.create(yield* testJob({ accountId: account.id, payload: { credits: 1 } }))
          )
          yield* Effect.sleep(Duration.millis(1000 / rate))
        }
        yield* waitSettled
      })
    ).pipe(Effect.provide(testWorkerOn(work)))
    const latencies: Array<number> = []
    for (const job of created) {
      const done = yield* jobs.find(job.id)
      if (Option.isSome(done) && done.value.startedAt !== null) {
        latencies.push(
          DateTime.toEpochMillis(done.value.startedAt) - DateTime.toEpochMillis(done.value.createdAt)
        )
      }
    }
    return latencies.sort((a, b) => a - b)
  })

const measure = (
  queue: string,
  database: string,
  count: number,
  accounts: number,
  work: WorkSettings,
  profile: Option.Option<string>
) =>
  Effect.gen(function* () {
    const { seconds, cpuMs } = yield* throughput(
      count,
      accounts,
      work,
      profile,
      `jobs-${queue}-${accounts}-accounts`
    )
    const latencies = yield* latency(Math.min(count, 500), 100, work)
    const result: Result = {
      queue,
      database,
      accounts,
      jobs: count,
      seconds: Number(seconds.toFixed(2)),
      jobsPerSecond: Math.round(count / seconds),
      cpuMsPerJob: Number((cpuMs / count).toFixed(3)),
      acceptToStartP50Ms: percentile(latencies, 50),
      acceptToStartP99Ms: percentile(latencies, 99)
    }
    return result
  })

const program = Effect.gen(function* () {
  const config = yield* settings
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-jobs-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const databaseName = Option.isSome(config.databaseUrl) ? "PostgreSQL" : "PGlite (embedded)"
  const queues: Array<{ name: string; redis: Parameters<typeof queuesFor>[0] }> = [
    { name: "memory", redis: { url: Option.none(), prefix: "unused:" } }
  ]
  if (Option.isSome(config.redisUrl)) {
    queues.push({
      name: "redis",
      redis: {
        url: Option.some(Redacted.make(config.redisUrl.value)),
        prefix: `verbatim-bench-${Date.now()}:`
      }
    })
  }
  const results: Array<Result> = []
  for (const [index, queue] of queues.entries()) {
    const database = Option.match(config.databaseUrl, {
      onNone: () => pgliteLayer(join(dataDir, `pg-${index}`)),
      onSome: (url) => postgresTestLayer(url)
    })
    const services = servicesOn(
      Layer.mergeAll(
        persistenceLayer(database),
        // The platform's outcomes are not watched here (/health is not measured).
        Layer.merge(demoPlatform(shippedCataloguePath), platformHealthLayer()),
        queuesFor(queue.redis),
        NodeServicesLive,
        offlineMedia(),
        Layer.succeed(WebhookAllowList, []),
        ThemesFromConfig
      )
    )
    const work = testWorkSettings({
      concurrency: config.concurrency,
      reconcileEveryMs: 5_000,
      leaseMs: 30_000
    })
    const measured = yield* measure(
      queue.name,
      databaseName,
      config.jobs,
      config.accounts,
      work,
      config.cpuProfile
    ).pipe(Effect.scoped, Effect.provide(services))
    results.push(measured)
  }
  yield* Console.log(
    `\nJobs through the job machine (test.delay, 0 ms of work), one worker, concurrency ${config.concurrency}: jobs/s draining a backlog; accept-to-start at 100 jobs/s offered`
  )
  yield* Console.log(
    "| queue | database | accounts | jobs | seconds | jobs/s | CPU ms/job | accept-to-start p50 ms | p99 ms |"
  )
  yield* Console.log("|---|---|---|---|---|---|---|---|---|")
  for (const r of results) {
    yield* Console.log(
      `| ${r.queue} | ${r.database} | ${r.accounts} | ${r.jobs} | ${r.seconds} | ${r.jobsPerSecond} | ${r.cpuMsPerJob} | ${r.acceptToStartP50Ms} | ${r.acceptToStartP99Ms} |`
    )
  }
  const folder = join(dirname(fileURLToPath(import.meta.url)), "../results")
  mkdirSync(folder, { recursive: true })
  const file = join(folder, `jobs-${new Date().toISOString().replaceAll(":", "-")}.json`)
  writeFileSync(file, JSON.stringify({ concurrency: config.concurrency, results }, null, 2))
  yield* Console.log(`\nwritten to ${file}`)
}).pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))

NodeRuntime.runMain(program)
