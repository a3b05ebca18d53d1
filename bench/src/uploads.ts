/**
 * `pnpm --filter @verbatim/bench bench:uploads`: the upload flow of speech recognition through the
 * production use cases and worker, in this process: `POST /uploads` (sign), the signed PUT (the
 * local store's receiver), `complete`, then `POST /transcribe` with `upload_id`, one upload at a
 * time. It reports the time from `complete` answered to the job's start (`started_at`, as the
 * database recorded it when a worker claimed the job) and the whole time to the finished
 * transcript, with the local engine (pocketsphinx; `scripts/install-speech.sh`).
 *
 * Runs on PGlite (a temporary data folder) or PostgreSQL when DATABASE_URL is set; on the in-memory
 * queue, and on Redis too when REDIS_URL is set. BENCH_UPLOADS (default 20) uploads per queue.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import {
  AccountAdmin,
  JobQueries,
  MediaUploads,
  platformHealthLayer,
  ServiceUrl,
  SignedPutReceiver,
  Transcribe,
  WebhookAllowList
} from "@verbatim/core"
import { persistenceLayer, pgliteLayer, postgresTestLayer } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Api, type Ids } from "@verbatim/domain"
import { defaultSettings, PocketsphinxSpeech } from "@verbatim/pocketsphinx"
import {
  demoPlatform,
  NodeServicesLive,
  noTranslator,
  queuesFor,
  runWorker,
  servicesOn,
  ThemesFromConfig,
  workerOn
} from "@verbatim/runtime"
import { testStorage, testWorkSettings } from "@verbatim/runtime/testing"
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
  Redacted,
  Schedule,
  Stream
} from "effect"

const clip = new Uint8Array(
  readFileSync(fileURLToPath(new URL("../../packages/demo-platform/media/welcome.wav", import.meta.url)))
)

const settings = Config.all({
  uploads: Config.integer("BENCH_UPLOADS").pipe(Config.withDefault(20)),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  redisUrl: Config.option(Config.string("REDIS_URL"))
})

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0)

const fail = (what: string) => (error: unknown) => Effect.dieMessage(`${what}: ${JSON.stringify(error)}`)

const measure = (uploadsCount: number) =>
  Effect.gen(function* () {
    // The worker's layer is built in this scope: provided to `runWorker` alone it would be released
    // as soon as the worker started (its claim batchers gone), and no job would ever start.
    const worker = yield* Layer.build(workerOn(testWorkSettings({ reconcileEveryMs: 5_000 })))
    yield* runWorker.pipe(Effect.provide(worker))
    const admin = yield* AccountAdmin
    const uploads = yield* MediaUploads
    const receiver = yield* SignedPutReceiver
    const transcribe = yield* Transcribe
    const jobs = yield* JobQueries
    const account = yield* admin
      .createAccount({ name: "bench", plan: "business", credits: 100_000 })
      .pipe(Effect.catchAll(fail("account")))
    const toStart: Array<number> = []
    const toDone: Array<number> = []
    for (let i = 0; i < uploadsCount; i++) {
      const created = yield* uploads
        .create(
          account,
          new Api.UploadCreateRequest({
            filename: "welcome.wav",
            mime_type: "audio/wav",
            size_bytes: clip.length,
            duration_sec: 5
          })
        )
        .pipe(Effect.catchAll(fail("create")))
      yield* receiver
        .receive({
          token: created.token,
          contentType: "audio/wav",
          contentLength: clip.length,
          body: Stream.make(clip)
        })
        .pipe(Effect.catchAll(fail("put")))
      yield* uploads.complete(account, created.upload_id).pipe(Effect.catchAll(fail("complete")))
      const completedAt = yield* DateTime.now
      const answer = yield* transcribe
        .transcribe(
          account,
          new Api.TranscribeRequest({
            upload_id: created.upload_id,
            webhook_url: "http://127.0.0.1:9/hook",
            format: Api.defaultFormat
          })
        )
        .pipe(Effect.catchAll(fail("transcribe")))
      if (answer.status !== "processing") return yield* Effect.dieMessage(`not started: ${answer.status}`)
      const jobId = answer.job_id as Ids.JobId
      const done = yield* jobs
        .get(account, jobId, { include_segments: false, include_paragraphs: false, include_words: false })
        .pipe(
          Effect.catchAll(fail("job")),
          Effect.flatMap((job) =>
            job.status === "processing" ? Effect.fail("running" as const) : Effect.succeed(job)
          ),
          Effect.retry(Schedule.spaced(Duration.millis(5))),
          Effect.timeout(Duration.seconds(60)),
          Effect.catchAll(fail("wait"))
        )
      if (done.status !== "completed") return yield* Effect.dieMessage(`job ${jobId} ${done.status}`)
      const started = done.started_at
      if (started === null || done.completed_at === null) return yield* Effect.dieMessage("no times")
      toStart.push(DateTime.toEpochMillis(started) - DateTime.toEpochMillis(completedAt))
      toDone.push(DateTime.toEpochMillis(done.completed_at) - DateTime.toEpochMillis(completedAt))
    }
    const sortedStart = [...toStart].sort((a, b) => a - b)
    const sortedDone = [...toDone].sort((a, b) => a - b)
    return {
      uploads: uploadsCount,
      completeToStartP50Ms: percentile(sortedStart, 50),
      completeToStartP95Ms: percentile(sortedStart, 95),
      completeToStartMaxMs: sortedStart[sortedStart.length - 1] ?? 0,
      completeToTranscriptP50Ms: percentile(sortedDone, 50),
      completeToTranscriptP95Ms: percentile(sortedDone, 95)
    }
  })

const program = Effect.gen(function* () {
  const config = yield* settings
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-uploads-"))
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
        prefix: `verbatim-bench-up-${Date.now()}:`
      }
    })
  }
  const rows: Array<Record<string, string | number>> = []
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
        PocketsphinxSpeech.layer(defaultSettings),
        noTranslator("no translation in this benchmark"),
        testStorage("http://127.0.0.1:9"),
        Layer.succeed(ServiceUrl, "http://127.0.0.1:9"),
        Layer.succeed(WebhookAllowList, ["127.0.0.1"]),
        ThemesFromConfig
      )
    )
    const result = yield* measure(config.uploads).pipe(Effect.scoped, Effect.provide(services))
    rows.push({ queue: queue.name, database: databaseName, ...result })
  }
  yield* Console.log(
    "\nUpload flow, one at a time (5 s WAV, pocketsphinx): from `complete` answered to the job's start, and to the finished transcript"
  )
  yield* Console.log(
    "| queue | database | uploads | to start p50 ms | p95 | max | to transcript p50 ms | p95 |"
  )
  yield* Console.log("|---|---|---|---|---|---|---|---|")
  for (const r of rows) {
    yield* Console.log(
      `| ${r.queue} | ${r.database} | ${r.uploads} | ${r.completeToStartP50Ms} | ${r.completeToStartP95Ms} | ${r.completeToStartMaxMs} | ${r.completeToTranscriptP50Ms} | ${r.completeToTranscriptP95Ms} |`
    )
  }
  const folder = join(dirname(fileURLToPath(import.meta.url)), "../results")
  mkdirSync(folder, { recursive: true })
  const file = join(folder, `uploads-${new Date().toISOString().replaceAll(":", "-")}.json`)
  writeFileSync(file, JSON.stringify(rows, null, 2))
  yield* Console.log(`\nwritten to ${file}`)
}).pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))

NodeRuntime.runMain(program)
