/**
 * The infrastructure settings every Verbatim process reads from the environment (the server, the
 * worker, the admin command, the coming MCP server). A bad value stops the start with a message
 * naming the variable and what it expects.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_DATA_DIR, DATABASE_URL, DATABASE_POOL_MAX | see `@verbatim/db` | the database |
 * | VERBATIM_PLATFORM | youtube | the video platform: `youtube`, or `demo` (the shipped catalogue, offline) |
 * | VERBATIM_YOUTUBE_* | see `@verbatim/youtube` | proxies, cache, pacing, timeouts of the YouTube adapter |
 * | VERBATIM_DEMO_CATALOG | the shipped catalogue | catalogue file of the demo platform |
 * | VERBATIM_DEMO_LATENCY_MS | 0 | milliseconds the demo platform adds to every answer (benchmarks, fault tests) |
 * | VERBATIM_DEMO_PACE_MS | 0 | the demo platform's own pace: at least this long between the starts of two of its requests, for the whole fleet on Redis (its egress budget is `demo`); 0 paces nothing (benchmarks) |
 * | REDIS_URL | unset | Redis for the queue and the rate limits; unset: in memory, one process |
 * | VERBATIM_REDIS_PREFIX | verbatim: | put in front of every Redis key |
 * | VERBATIM_WORKER | embedded without REDIS_URL, else off | `embedded`: this process also runs the worker |
 * | VERBATIM_WORKER_CONCURRENCY | 4 | jobs of one kind run at once by one process |
 * | VERBATIM_ASR_CONCURRENCY | 2 | speech recognition jobs run at once by one process |
 * | VERBATIM_BATCH_CONCURRENCY | 8 | batch items run at once by one process |
 * | VERBATIM_WEBHOOK_CONCURRENCY | 8 | webhook deliveries sent at once by one process |
 * | VERBATIM_JOB_LEASE_MS | 30000 | how long a job is held by a worker that stopped answering |
 * | VERBATIM_RECONCILE_MS | 5000 | how often runnable jobs and due deliveries are offered again |
 * | VERBATIM_SHUTDOWN_GRACE_MS | 10000 | how long SIGTERM waits for jobs in hand before handing them back |
 * | VERBATIM_JOB_MAX_ATTEMPTS | 5 | claims of one job before it fails for good |
 * | VERBATIM_WEBHOOK_TIMEOUT_MS | 15000 | one delivery attempt's time limit |
 * | VERBATIM_WEBHOOK_ALLOWED_HOSTS | none | hosts that may resolve to private addresses: `host` (ports 80 and 443), `host:port` or `host:*`, comma-separated |
 * | VERBATIM_WEBHOOK_SCHEDULE | 0,5s,5m,30m,2h,5h,10h,10h | waits before each delivery attempt |
 * | VERBATIM_ASR, VERBATIM_S3_*, VERBATIM_BLOB_*, VERBATIM_PUBLIC_URL | see `media.ts` | speech recognition and upload storage |
 * | VERBATIM_TRANSLATION, VERBATIM_AI_*, VERBATIM_APERTIUM_* | see `translation.ts` | machine translation |
 * | VERBATIM_LOG_LEVEL | info | the least severe log level written: trace, debug, info, warning, error, fatal or none |
 * | VERBATIM_LOG_FORMAT | json when stdout is not a terminal, else pretty | `json`: one JSON object per line; `pretty`: one readable line |
 */
import { type UploadPaceSettings, uploadPaceConfig, webhookAllowedHostsConfig } from "@verbatim/core"
import { DatabaseConfig, type DatabaseSettings } from "@verbatim/db"
import { demoCataloguePath } from "@verbatim/demo-platform"
import { Webhook } from "@verbatim/domain"
import { RedisConfig, type RedisSettings } from "@verbatim/queue/memory"
import { YouTubeConfig, type YouTubeSettings } from "@verbatim/youtube"
import {
  Cause,
  Config,
  ConfigError,
  Console,
  Effect,
  Either,
  HashMap,
  Layer,
  List,
  Logger,
  LogLevel,
  Option,
  type Scope
} from "effect"
import {
  PublicUrlConfig,
  SpeechEngineConfig,
  type SpeechEngineName,
  StorageConfig,
  type StorageSettings
} from "./media.js"
import { TranslationEngineConfig, type TranslationEngineName } from "./translation.js"

/** The video platforms a process can use: YouTube (the default), or the demo catalogue (offline). */
export type PlatformName = "youtube" | "demo"

export const PlatformConfig: Config.Config<PlatformName> = Config.literal(
  "youtube",
  "demo"
)("VERBATIM_PLATFORM").pipe(Config.withDefault("youtube" as const))

export interface PlatformSettings {
  readonly name: PlatformName
  readonly demoCatalogue: string
  /** YouTube's settings (proxies, cache, pacing); read only when YouTube is the platform. */
  readonly youtube: Option.Option<YouTubeSettings>
}

export interface WorkSettings {
  /** Whether this process runs the worker too (the embedded default). */
  readonly embedded: boolean
  readonly concurrency: number
  /** Speech recognition jobs run at once by one process (each may hold a CPU core). */
  readonly asrConcurrency: number
  /** Batch items run at once by one process (each fetches from the video platform). */
  readonly batchConcurrency: number
  readonly webhookConcurrency: number
  readonly leaseMs: number
  readonly reconcileEveryMs: number
  readonly shutdownGraceMs: number
  readonly maxAttempts: number
  readonly webhookTimeoutMs: number
  readonly allowedHosts: ReadonlyArray<string>
  readonly schedule: Webhook.RetrySchedule
}

export interface InfrastructureSettings {
  readonly database: DatabaseSettings
  readonly platform: PlatformName
  readonly demoCatalogue: string
  /** Milliseconds the demo platform adds to every answer (absent: 0). */
  readonly demoLatencyMs?: number
  /** Milliseconds between the starts of two demo platform requests, fleet-wide (absent or 0: no pace). */
  readonly demoPaceMs?: number
  /** Present when the platform is YouTube. */
  readonly youtube: Option.Option<YouTubeSettings>
  readonly redis: RedisSettings
  readonly work: WorkSettings
  readonly speech: SpeechEngineName
  /** VERBATIM_TRANSLATION (absent: auto), see `translation.ts`. */
  readonly translation?: TranslationEngineName
  readonly storage: StorageSettings
  /** VERBATIM_PUBLIC_URL: where clients reach this service; unset: the server's own address. */
  readonly publicUrl: Option.Option<string>
  /** How long a signed PUT may take by its size (absent: core's `defaultUploadPace`). */
  readonly uploadPace?: UploadPaceSettings
}

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a whole number of at least 1`, validation: (n) => n >= 1 }),
    Config.withDefault(fallback)
  )

const ScheduleConfig: Config.Config<Webhook.RetrySchedule> = Config.string("VERBATIM_WEBHOOK_SCHEDULE").pipe(
  Config.mapOrFail((text) =>
    Either.mapLeft(Webhook.parseSchedule(text), (reason) =>
      ConfigError.InvalidData(["VERBATIM_WEBHOOK_SCHEDULE"], `VERBATIM_WEBHOOK_SCHEDULE: ${reason}`)
    )
  ),
  Config.withDefault(Webhook.standardSchedule)
)

const WorkerModeConfig = Config.option(Config.literal("embedded", "off")("VERBATIM_WORKER"))

export const InfrastructureConfig: Config.Config<InfrastructureSettings> = Config.all({
  database: DatabaseConfig,
  platform: PlatformConfig,
  demoCatalogue: demoCataloguePath,
  demoLatencyMs: Config.integer("VERBATIM_DEMO_LATENCY_MS").pipe(
    Config.validate({
      message: "VERBATIM_DEMO_LATENCY_MS must be a whole number of milliseconds, 0 or more",
      validation: (n) => n >= 0
    }),
    Config.withDefault(0)
  ),
  demoPaceMs: Config.integer("VERBATIM_DEMO_PACE_MS").pipe(
    Config.validate({
      message: "VERBATIM_DEMO_PACE_MS must be a whole number of milliseconds, 0 or more",
      validation: (n) => n >= 0
    }),
    Config.withDefault(0)
  ),
  youtubeSettings: YouTubeConfig,
  redis: RedisConfig,
  workerMode: WorkerModeConfig,
  concurrency: positive("VERBATIM_WORKER_CONCURRENCY", 4),
  asrConcurrency: positive("VERBATIM_ASR_CONCURRENCY", 2),
  batchConcurrency: positive("VERBATIM_BATCH_CONCURRENCY", 8),
  webhookConcurrency: positive("VERBATIM_WEBHOOK_CONCURRENCY", 8),
  leaseMs: positive("VERBATIM_JOB_LEASE_MS", 30_000),
  reconcileEveryMs: positive("VERBATIM_RECONCILE_MS", 5_000),
  shutdownGraceMs: positive("VERBATIM_SHUTDOWN_GRACE_MS", 10_000),
  maxAttempts: positive("VERBATIM_JOB_MAX_ATTEMPTS", 5),
  webhookTimeoutMs: positive("VERBATIM_WEBHOOK_TIMEOUT_MS", Webhook.defaultTimeoutMs),
  allowedHosts: webhookAllowedHostsConfig,
  schedule: ScheduleConfig,
  speech: SpeechEngineConfig,
  translation: TranslationEngineConfig,
  publicUrl: PublicUrlConfig,
  storage: StorageConfig,
  uploadPace: uploadPaceConfig
}).pipe(
  Config.map(
    ({
      database,
      platform,
      demoCatalogue,
      demoLatencyMs,
      demoPaceMs,
      youtubeSettings,
      redis,
      workerMode,
      speech,
      translation,
      publicUrl,
      storage,
      uploadPace,
      ...work
    }) => ({
      speech,
      translation,
      publicUrl,
      storage,
      uploadPace,
      database,
      platform,
      demoCatalogue,
      demoLatencyMs,
      demoPaceMs,
      youtube: platform === "youtube" ? Option.some(youtubeSettings) : Option.none(),
      redis,
      work: {
        ...work,
        embedded:
          Option.getOrElse(workerMode, () => (Option.isNone(redis.url) ? "embedded" : "off")) === "embedded"
      }
    })
  )
)

/** How log lines are written: one JSON object per line (for collectors), or one readable line. */
export type LogFormat = "json" | "pretty"

export interface LogSettings {
  readonly level: LogLevel.LogLevel
  readonly format: LogFormat
}

const logLevels: Record<string, LogLevel.LogLevel> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/**
 * `VERBATIM_LOG_LEVEL` (default `info`) and `VERBATIM_LOG_FORMAT` (`json` or `pretty`; default JSON
 * when stdout is not a terminal, so log collectors get one object per line).
 */
export const LogConfig: Config.Config<LogSettings> = Config.all({
  level: Config.string("VERBATIM_LOG_LEVEL").pipe(
    Config.mapOrFail((text) => {
      const level = logLevels[text.trim().toLowerCase()]
      return level === undefined
        ? Either.left(
            ConfigError.InvalidData(
              ["VERBATIM_LOG_LEVEL"],
              `VERBATIM_LOG_LEVEL: expected one of trace, debug, info, warning, error, fatal, none, got ${JSON.stringify(text)}`
            )
          )
        : Either.right(level)
    }),
    Config.withDefault(LogLevel.Info)
  ),
  format: Config.literal(
    "json",
    "pretty"
  )("VERBATIM_LOG_FORMAT").pipe(
    Config.withDefault<LogFormat>(process.stdout.isTTY === true ? "pretty" : "json")
  )
})

/**
 * A level as JSON lines write it: the name `VERBATIM_LOG_LEVEL` takes for it (`warning`, where
 * Effect's label is `WARN`), so a filter on the setting's names matches the lines.
 */
export const levelName = (level: LogLevel.LogLevel): string =>
  level._tag === "Warning" ? "warning" : level.label.toLowerCase()

const textOf = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts
    .map((part) =>
      typeof part === "string"
        ? part
        : part instanceof Error
          ? part.message
          : (() => {
              try {
                return JSON.stringify(part) ?? String(part)
              } catch {
                return String(part)
              }
            })()
    )
    .join(" ")
}

const safeJson = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  try {
    JSON.stringify(value)
    return value
  } catch {
    return String(value)
  }
}

/** One JSON object per line: time, level, msg, the annotations as fields, the error's cause. */
export const jsonLineLogger: Logger.Logger<unknown, string> = Logger.make(
  ({ logLevel, message, annotations, cause, date, spans }) => {
    const line: Record<string, unknown> = {
      time: date.toISOString(),
      level: levelName(logLevel),
      msg: textOf(message)
    }
    for (const [key, value] of HashMap.toEntries(annotations)) line[key] = safeJson(value)
    const now = date.getTime()
    for (const span of List.toArray(spans)) line[`span.${span.label}_ms`] = now - span.startTime
    if (!Cause.isEmpty(cause)) line.cause = Cause.pretty(cause, { renderErrorCause: true })
    return JSON.stringify(line)
  }
)

/** One readable line: time, level, message and annotations (`http.*` ones are for machines). */
export const prettyLineLogger: Logger.Logger<unknown, string> = Logger.make(
  ({ logLevel, message, annotations, cause, date }) => {
    let line = `${date.toISOString()} ${logLevel.label.padEnd(5)} ${textOf(message)}`
    for (const [key, value] of HashMap.toEntries(annotations)) {
      if (!key.startsWith("http."))
        line += ` ${key}=${typeof value === "string" ? value : JSON.stringify(safeJson(value))}`
    }
    return Cause.isEmpty(cause) ? line : `${line}\n${Cause.pretty(cause, { renderErrorCause: true })}`
  }
)

/**
 * A sink of lines that writes the lines of one turn of the event loop in one `write`. Writes to a
 * pipe or a file are synchronous in Node, so a line per write (one per request, for the access
 * log) was a system call per request; under load one write now carries many lines. `flush` writes
 * what is pending at once (the process logger calls it when the process exits).
 */
export const batchedLines = (
  write: (text: string) => void
): { readonly line: (line: string) => void; readonly flush: () => void } => {
  let pending: Array<string> = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    write(text)
  }
  return {
    line: (line) => {
      pending.push(`${line}\n`)
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    flush
  }
}

/**
 * Lines to stdout, batched per turn of the event loop, for as long as the logger's layer lives (the
 * sink is the layer's, not the module's): what is pending is written when the layer is released, or
 * at exit when the process ends first.
 */
const stdoutSink: Effect.Effect<(line: string) => void, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => {
      const sink = batchedLines((text) => process.stdout.write(text))
      process.once("exit", sink.flush)
      return sink
    }),
    (sink) =>
      Effect.sync(() => {
        process.off("exit", sink.flush)
        sink.flush()
      })
  ),
  (sink) => sink.line
)

/**
 * A notice for the operator (the server's address, the development seed's report): whatever the
 * least severe level, as `text` on a terminal (`pretty`: the lines as they are) or, in `json`, as
 * one log line at `info` with `message` and `fields`, so every line on stdout is one JSON object.
 */
export const notice = (
  settings: LogSettings,
  text: string,
  message: string,
  fields: Record<string, unknown> = {}
): Effect.Effect<void> =>
  settings.format === "json"
    ? Effect.logInfo(message).pipe(Effect.annotateLogs(fields), Logger.withMinimumLogLevel(LogLevel.All))
    : Console.log(text)

/** The process's logger: the format and the least severe level of the settings, written to stdout. */
export const loggerFor = (settings: LogSettings): Layer.Layer<never> =>
  Layer.unwrapScoped(
    Effect.map(stdoutSink, (sink) =>
      Layer.merge(
        Logger.replace(
          Logger.defaultLogger,
          (settings.format === "json" ? jsonLineLogger : prettyLineLogger).pipe(Logger.map(sink))
        ),
        Logger.minimumLogLevel(settings.level)
      )
    )
  )
