/**
 * `pnpm --filter @verbatim/bench bench:fleet`: one platform budget for a fleet. An API server and
 * BENCH_FLEET_WORKERS (3) worker processes, started from the bundled apps on PostgreSQL and Redis
 * (DATABASE_URL and REDIS_URL are required), run one batch of BENCH_FLEET_VIDEOS (600) videos of a
 * synthetic demo catalogue. The demo platform answers BENCH_LATENCY_MS (100) late and takes every
 * request from the fleet's egress budget in Redis at one request every BENCH_FLEET_PACE_MS (25, so
 * 40 requests/s for the fleet); each worker alone could send far more (BENCH_CONCURRENCY (16) items
 * at once, 2 requests each). Reported: the fleet's mean request rate over the batch (2 requests per
 * video, from the batch's own times) and the busiest 5-second window of request starts (from the
 * workers' debug logs),
 * each against the setting: held means within 10%. Also the machine's load average before and after.
 */
import { spawn } from "node:child_process"
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { AccountAdmin } from "@verbatim/core"
import { persistenceLayer, postgresLayer } from "@verbatim/db"
import { syntheticCatalogue, syntheticVideoId } from "@verbatim/demo-platform"
import { adminOn } from "@verbatim/runtime"
import { Config, Console, Effect, Redacted } from "effect"
import pg from "pg"
import { describeMachine, watchMachine } from "./machine.js"
import { startProcess } from "./processes.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

const settings = Config.all({
  workers: Config.integer("BENCH_FLEET_WORKERS").pipe(Config.withDefault(3)),
  videos: Config.integer("BENCH_FLEET_VIDEOS").pipe(Config.withDefault(600)),
  paceMs: Config.integer("BENCH_FLEET_PACE_MS").pipe(Config.withDefault(25)),
  latencyMs: Config.integer("BENCH_LATENCY_MS").pipe(Config.withDefault(100)),
  concurrency: Config.integer("BENCH_CONCURRENCY").pipe(Config.withDefault(16)),
  databaseUrl: Config.redacted("DATABASE_URL"),
  redisUrl: Config.string("REDIS_URL")
})

const withDatabase = (url: string, name: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

const admin = (url: string, sql: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  })

const bundle = (app: string) =>
  Effect.async<void, Error>((resume) => {
    const child = spawn(process.execPath, [join(root, "scripts", "bundle.mjs"), "--if-changed", app], {
      cwd: root,
      stdio: "inherit"
    })
    child.on("close", (code) =>
      resume(code === 0 ? Effect.void : Effect.fail(new Error(`bundling ${app} exited with ${code}`)))
    )
  })

const program = Effect.gen(function* () {
  const config = yield* settings
  const machine = watchMachine()
  const adminUrl = Redacted.value(config.databaseUrl)
  const database = `verbatim_bench_fleet_${process.pid}`
  yield* admin(adminUrl, `CREATE DATABASE ${database}`)
  yield* Effect.addFinalizer(() => admin(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
  const databaseUrl = withDatabase(adminUrl, database)
  const dir = mkdtempSync(join(tmpdir(), "verbatim-bench-fleet-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  const catalogue = join(dir, "catalogue.json")
  writeFileSync(catalogue, JSON.stringify(syntheticCatalogue(config.videos)))
  yield* bundle("server")
  yield* bundle("worker")

  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: config.redisUrl,
    VERBATIM_REDIS_PREFIX: `verbatim-bench-fleet-${process.pid}:`,
    VERBATIM_PLATFORM: "demo",
    VERBATIM_DEMO_CATALOG: catalogue,
    VERBATIM_DEMO_LATENCY_MS: String(config.latencyMs),
    VERBATIM_DEMO_PACE_MS: String(config.paceMs),
    VERBATIM_BATCH_CONCURRENCY: String(config.concurrency),
    VERBATIM_LOG_LEVEL: "warning",
    VERBATIM_LOG_FORMAT: "json"
  }
  const server = yield* startProcess(
    "server",
    [join(root, "apps", "server", "dist", "server.mjs")],
    { ...env, VERBATIM_WORKER: "off" },
    join(dir, "server.log")
  )
  // The server migrated the database: the account is made on it directly.
  const { key } = yield* Effect.gen(function* () {
    const accounts = yield* AccountAdmin
    const account = yield* accounts.createAccount({
      name: "fleet bench",
      plan: "business",
      credits: 1_000_000
    })
    return yield* accounts.issueKey(account.id)
  }).pipe(Effect.provide(adminOn(persistenceLayer(postgresLayer(Redacted.make(databaseUrl))))))

  // Each worker's debug log says when each of its platform requests started.
  const starts: Array<number> = []
  for (let i = 0; i < config.workers; i++) {
    const log = createWriteStream(join(dir, `worker-${i}.log`))
    const child = spawn(process.execPath, [join(root, "apps", "worker", "dist", "worker.mjs")], {
      cwd: root,
      env: { ...process.env, ...env, VERBATIM_LOG_LEVEL: "debug" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (!line.includes("demo platform: request")) return log.write(`${line}\n`)
      try {
        const parsed = JSON.parse(line) as { time?: string }
        if (parsed.time !== undefined) starts.push(Date.parse(parsed.time))
      } catch {
        log.write(`${line}\n`)
      }
    })
    child.stderr.pipe(log)
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
    )
  }

  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  const ids = Array.from({ length: config.videos }, (_, i) => syntheticVideoId(i))
  const accepted = yield* Effect.promise(() =>
    fetch(`${server.base}/batch`, {
      method: "POST",
      headers,
      body: JSON.stringify({ video_ids: ids, mode: "captions_only" })
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { batch_id?: string } }))
  )
  if (accepted.status !== 202) return yield* Effect.dieMessage(`POST /batch answered ${accepted.status}`)
  const id = accepted.body.batch_id ?? ""
  let finished: { created_at: string; completed_at: string; summary: { succeeded: number } } | undefined
  while (finished === undefined) {
    yield* Effect.sleep("1 second")
    const polled = yield* Effect.promise(() =>
      fetch(`${server.base}/batch/${id}`, { headers }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as {
          status: string
          created_at: string
          completed_at: string
          summary: { succeeded: number }
        }
      }))
    )
    if (polled.status === 200 && polled.body.status !== "processing") finished = polled.body
  }
  if (finished.summary.succeeded !== config.videos) {
    return yield* Effect.dieMessage(
      `only ${finished.summary.succeeded} of ${config.videos} succeeded; logs in ${dir}`
    )
  }
  const seconds = (Date.parse(finished.completed_at) - Date.parse(finished.created_at)) / 1000
  const setting = 1000 / config.paceMs
  const meanRate = (2 * config.videos) / seconds
  // The busiest 5 s of request starts, from the workers' logs (every request of the batch).
  const times = [...starts].sort((a, b) => a - b)
  const windowMs = 5_000
  let busiest = 0
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] ?? 0) - (times[i] ?? 0) >= windowMs) i++
    busiest = Math.max(busiest, j - i + 1)
  }
  if (times.length < 2 * config.videos) {
    return yield* Effect.dieMessage(
      `the workers logged ${times.length} platform requests, fewer than ${2 * config.videos}`
    )
  }
  const busiestRate = busiest / (windowMs / 1000)
  // The rate the fleet kept while it sent: from its first request to its last.
  const spanRate = (times.length - 1) / (((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000)
  const held = (rate: number) => Math.abs(rate - setting) / setting <= 0.1
  const state = machine.done()
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    workers: config.workers,
    videos: config.videos,
    concurrencyPerWorker: config.concurrency,
    latencyMs: config.latencyMs,
    settingRequestsPerSecond: setting,
    seconds,
    requests: times.length,
    meanRequestsPerSecond: meanRate,
    busiest5sRequestsPerSecond: busiestRate,
    meanHeld: held(meanRate),
    sendingRequestsPerSecond: spanRate,
    sendingHeld: held(spanRate),
    busiestWithin10Percent: busiestRate <= setting * 1.1,
    machine: state
  }
  yield* Console.log(
    [
      "",
      `| ${config.workers} workers, one egress budget of ${setting.toFixed(1)} requests/s | figure |`,
      "|---|---|",
      `| ${config.videos} videos (2 requests each), ${config.concurrency} at once per worker, ${config.latencyMs} ms per fetch | ${seconds.toFixed(1)} s |`,
      `| rate from the first request to the last | ${spanRate.toFixed(1)} requests/s (${held(spanRate) ? "held" : "NOT held"}: within 10% of ${setting.toFixed(1)}) |`,
      `| mean rate over the batch, creation to completion | ${meanRate.toFixed(1)} requests/s (${held(meanRate) ? "held" : "NOT held"}: within 10% of ${setting.toFixed(1)}) |`,
      `| busiest 5 s | ${busiestRate.toFixed(1)} requests/s (${busiestRate <= setting * 1.1 ? "within" : "ABOVE"} the setting + 10%) |`,
      "",
      ...describeMachine(state)
    ].join("\n")
  )
  const resultsDir = join(root, "bench", "results")
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(
    join(resultsDir, `fleet-${report.date.replace(/[:.]/g, "-")}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
}).pipe(Effect.scoped)

NodeRuntime.runMain(program)
