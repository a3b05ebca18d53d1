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
 * | REDIS_URL | unset | Redis for the queue and the rate limits; unset: in memory, one process |
 * | VERBATIM_REDIS_PREFIX | verbatim: | put in front of every Redis key |
 * | VERBATIM_WORKER | embedded without REDIS_URL, else off | `embedded`: this process also runs the worker |
 * | VERBATIM_WORKER_CONCURRENCY | 4 | jobs of one kind run at once by one process |
 * | VERBATIM_WEBHOOK_CONCURRENCY | 8 | webhook deliveries sent at once by one process |
 * | VERBATIM_JOB_LEASE_MS | 30000 | how long a job is held by a worker that stopped answering |
 * | VERBATIM_RECONCILE_MS | 5000 | how often runnable jobs and due deliveries are offered again |
 * | VERBATIM_SHUTDOWN_GRACE_MS | 10000 | how long SIGTERM waits for jobs in hand before handing them back |
 * | VERBATIM_JOB_MAX_ATTEMPTS | 5 | claims of one job before it fails for good |
 * | VERBATIM_WEBHOOK_TIMEOUT_MS | 15000 | one delivery attempt's time limit |
 * | VERBATIM_WEBHOOK_ALLOWED_HOSTS | none | hosts that may resolve to private addresses (comma-separated) |
 * | VERBATIM_WEBHOOK_SCHEDULE | 0,5s,5m,30m,2h,5h,10h,10h | waits before each delivery attempt |
 */
import { webhookAllowedHostsConfig } from "@verbatim/core"
import { DatabaseConfig, type DatabaseSettings } from "@verbatim/db"
import { demoCataloguePath } from "@verbatim/demo-platform"
import { Webhook } from "@verbatim/domain"
import { RedisConfig, type RedisSettings } from "@verbatim/queue"
import { YouTubeConfig, type YouTubeSettings } from "@verbatim/youtube"
import { Config, ConfigError, Either, Option } from "effect"

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
  /** Present when the platform is YouTube. */
  readonly youtube: Option.Option<YouTubeSettings>
  readonly redis: RedisSettings
  readonly work: WorkSettings
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
  youtubeSettings: YouTubeConfig,
  redis: RedisConfig,
  workerMode: WorkerModeConfig,
  concurrency: positive("VERBATIM_WORKER_CONCURRENCY", 4),
  webhookConcurrency: positive("VERBATIM_WEBHOOK_CONCURRENCY", 8),
  leaseMs: positive("VERBATIM_JOB_LEASE_MS", 30_000),
  reconcileEveryMs: positive("VERBATIM_RECONCILE_MS", 5_000),
  shutdownGraceMs: positive("VERBATIM_SHUTDOWN_GRACE_MS", 10_000),
  maxAttempts: positive("VERBATIM_JOB_MAX_ATTEMPTS", 5),
  webhookTimeoutMs: positive("VERBATIM_WEBHOOK_TIMEOUT_MS", Webhook.defaultTimeoutMs),
  allowedHosts: webhookAllowedHostsConfig,
  schedule: ScheduleConfig
}).pipe(
  Config.map(({ database, platform, demoCatalogue, youtubeSettings, redis, workerMode, ...work }) => ({
    database,
    platform,
    demoCatalogue,
    youtube: platform === "youtube" ? Option.some(youtubeSettings) : Option.none(),
    redis,
    work: {
      ...work,
      embedded:
        Option.getOrElse(workerMode, () => (Option.isNone(redis.url) ? "embedded" : "off")) === "embedded"
    }
  }))
)
