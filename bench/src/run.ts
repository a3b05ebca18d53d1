/**
 * `pnpm bench`: requests per second and p50/p99 latency of
 *   1. POST /transcribe of a transcript the account already owns (served again for 0 credits), and
 *   2. GET /transcripts?search= over BENCH_TRANSCRIPTS (default 10,000) stored transcripts,
 * against a real server on 127.0.0.1 with the production wiring, on embedded PGlite (a temporary
 * data folder) or on PostgreSQL when DATABASE_URL is set (a throw-away schema). The load comes from
 * autocannon in a separate process, so client and server do not share an event loop.
 *
 * Measured as the server runs in production except: the rate limiter lets every request through
 * (the plans cap an account at 100 requests per second, which would measure the limiter), and the
 * per-request access log is off.
 *
 * Settings: BENCH_TRANSCRIPTS (10000), BENCH_WORDS (words per transcript, 1000), BENCH_SECONDS (10),
 * BENCH_CONNECTIONS (10), DATABASE_URL. Results are printed and written to bench/results/.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { HttpLive } from "@verbatim/api"
import {
  AccountAdmin,
  RateLimiter,
  Transactor,
  type TranscriptRecord,
  Transcripts,
  WebhookAllowList
} from "@verbatim/core"
import { persistenceLayer, pgliteLayer, postgresTestLayer } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import type { Ids, Language } from "@verbatim/domain"
import { Transcript } from "@verbatim/domain"
import { MemoryWorkQueue } from "@verbatim/queue"
import { demoPlatform, NodeServicesLive, offlineMedia, servicesOn } from "@verbatim/runtime"
import { Config, Console, DateTime, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { commonWord, generator, rareWord, words } from "./words.js"

const settings = Config.all({
  transcripts: Config.integer("BENCH_TRANSCRIPTS").pipe(Config.withDefault(10_000)),
  words: Config.integer("BENCH_WORDS").pipe(Config.withDefault(1_000)),
  seconds: Config.integer("BENCH_SECONDS").pipe(Config.withDefault(10)),
  connections: Config.integer("BENCH_CONNECTIONS").pipe(Config.withDefault(10)),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

/** Lets every request through: the bench measures the endpoints, not the plan's cap. */
const Unlimited = Layer.succeed(RateLimiter, {
  take: () =>
    Effect.succeed({ allowed: true, limit: 1e9, remaining: 1e9, resetSeconds: 0, retryAfterSeconds: 0 })
})

/** The video whose owned transcript POST /transcribe serves again. */
const ownedVideo = "q3Lx8VbT2kA"

interface Measured {
  readonly name: string
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly requests: number
  readonly non2xx: number
  readonly errors: number
}

const autocannonBin = join(
  dirname(createRequire(import.meta.url).resolve("autocannon/package.json")),
  "autocannon.js"
)

/** Runs autocannon in its own process and reads its JSON result. */
const load = (name: string, args: ReadonlyArray<string>) =>
  Effect.async<Measured, Error>((resume) => {
    const child = spawn(process.execPath, [autocannonBin, "--json", ...args], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += String(chunk)
    })
    child.on("close", (code) => {
      if (code !== 0) return resume(Effect.fail(new Error(`autocannon exited with ${code}`)))
      const result = JSON.parse(out) as {
        requests: { average: number; total: number }
        latency: { p50: number; p99: number }
        non2xx: number
        errors: number
      }
      resume(
        Effect.succeed({
          name,
          requestsPerSecond: result.requests.average,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          requests: result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors
        })
      )
    })
  })

const seed = (count: number, wordsPer: number, accountId: Ids.AccountId) =>
  Effect.gen(function* () {
    const transcripts = yield* Transcripts
    const tx = yield* Transactor
    const random = generator(42)
    const now = yield* DateTime.now
    const batch = 250
    for (let from = 0; from < count; from += batch) {
      yield* tx.transaction(
        Effect.forEach(
          Array.from({ length: Math.min(batch, count - from) }, (_, k) => from + k),
          (i) => {
            const text = `${words(random, wordsPer)}${i % 1000 === 7 ? ` ${rareWord}` : ""}`
            const segments = [new Transcript.Segment({ text, start: 0, end: wordsPer * 400 })]
            const record: TranscriptRecord = {
              id: crypto.randomUUID() as Ids.TranscriptId,
              accountId,
              videoId: `bench${String(i).padStart(6, "0")}`,
              videoTitle: `Benchmark video ${i}: ${words(random, 5)}`,
              channelId: null,
              language: "en" as Language.LanguageCode,
              sourceKind: i % 3 === 0 ? "manual" : "auto",
              status: "succeeded",
              text,
              segments,
              hasTimestamps: true,
              wordCount: wordsPer,
              segmentCount: 1,
              durationSeconds: Math.ceil((wordsPer * 400) / 1000),
              creditsUsed: 1,
              summary: null,
              mindMap: null,
              asrIntelligence: null,
              createdAt: DateTime.subtract(now, { seconds: count - i })
            }
            return transcripts.store(record)
          },
          { discard: true }
        )
      )
    }
    const sql = yield* SqlClient.SqlClient
    // Planner statistics for the full-text index (autovacuum does this in production).
    yield* sql`VACUUM ANALYZE transcripts`
  })

const program = Effect.gen(function* () {
  const config = yield* settings
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const database = Option.match(config.databaseUrl, {
    onNone: () => pgliteLayer(join(dataDir, "pg")),
    onSome: (url) => postgresTestLayer(url)
  })
  const databaseName = Option.isSome(config.databaseUrl) ? "PostgreSQL" : "PGlite (embedded)"
  const useCases = servicesOn(
    Layer.mergeAll(
      persistenceLayer(database),
      demoPlatform(shippedCataloguePath),
      MemoryWorkQueue.layer,
      Unlimited,
      NodeServicesLive,
      offlineMedia(),
      Layer.succeed(WebhookAllowList, [])
    )
  )
  const server = HttpLive.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(useCases)
  )
  const context = yield* Layer.build(server)
  return yield* Effect.gen(function* () {
    const admin = yield* AccountAdmin
    const account = yield* admin.createAccount({ name: "bench", plan: "business", credits: 1_000_000 })
    const { key } = yield* admin.issueKey(account.id)
    yield* Console.log(
      `seeding ${config.transcripts} transcripts of ${config.words} words on ${databaseName} ...`
    )
    const started = Date.now()
    yield* seed(config.transcripts, config.words, account.id)
    yield* Console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`)

    const address = (yield* HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.die("not a TCP server")
    const base = `http://127.0.0.1:${address.port}/api/v2`
    const auth = ["-H", `Authorization=Bearer ${key}`]
    const body = JSON.stringify({ video: ownedVideo, mode: "captions_only" })
    const first = yield* Effect.promise(() =>
      fetch(`${base}/transcribe`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body })
    )
    if (first.status !== 200) return yield* Effect.die(`the first transcribe answered ${first.status}`)
    const common = ["-c", String(config.connections), "-d", String(config.seconds)]
    const results = [
      yield* load("POST /transcribe (owned transcript, 0 credits)", [
        ...common,
        ...auth,
        "-m",
        "POST",
        "-H",
        "Content-Type=application/json",
        "-b",
        body,
        `${base}/transcribe`
      ]),
      yield* load(`GET /transcripts?search=${commonWord} (in ~every transcript)`, [
        ...common,
        ...auth,
        `${base}/transcripts?search=${commonWord}&limit=50`
      ]),
      yield* load(`GET /transcripts?search=${rareWord} (in 1 of 1000)`, [
        ...common,
        ...auth,
        `${base}/transcripts?search=${rareWord}&limit=50`
      ])
    ]
    const report = {
      date: new Date().toISOString(),
      database: databaseName,
      transcripts: config.transcripts,
      wordsPerTranscript: config.words,
      seconds: config.seconds,
      connections: config.connections,
      node: process.version,
      results
    }
    yield* Console.log(
      [
        "",
        `| endpoint (${databaseName}, ${config.transcripts} transcripts, ${config.connections} connections, ${config.seconds} s) | req/s | p50 ms | p99 ms | non-2xx |`,
        "|---|---|---|---|---|",
        ...results.map(
          (r) =>
            `| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx + r.errors} |`
        )
      ].join("\n")
    )
    const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results")
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(
      join(resultsDir, `${report.date.replace(/[:.]/g, "-")}.json`),
      `${JSON.stringify(report, null, 2)}\n`
    )
  }).pipe(Effect.provide(context))
}).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning))

NodeRuntime.runMain(program)
