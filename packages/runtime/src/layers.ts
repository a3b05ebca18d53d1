/**
 * The infrastructure of a Verbatim process, chosen by its settings and built once here for every
 * app (server, worker, admin, MCP), the tests and the bench:
 *
 * - the database (PGlite in the data folder, or PostgreSQL), migrated before use, and the
 *   repositories;
 * - the video platform, its fetches shared and its last outcome kept for /health (`observedPlatform`);
 * - the work queue and the rate limiter: in memory, or on Redis when `REDIS_URL` is set;
 * - node's secrets, the address resolver and the webhook sender;
 * - speech recognition and upload storage (`media.ts`);
 * - the themes engine and settings (`themes.ts`).
 *
 * On top: the use cases (`servicesOn`) and the worker (`workerOn`, `runWorker`).
 */
import { hostname } from "node:os"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import type * as SqlClient from "@effect/sql/SqlClient"
import {
  AccountAdminLive,
  type AddressResolver,
  BackgroundWork,
  type BlobStore,
  batchBackground,
  defaultUploadPace,
  EgressBudget,
  type JobHandler,
  JobHandlers,
  type JobKind,
  makeAsrHandler,
  OAuthServerLive,
  observedPlatform,
  type PlatformHealth,
  type RateLimiter,
  runBackgroundWork,
  type Secrets,
  ServiceUrl,
  type SharedCache,
  type SignedPutReceiver,
  type SpeechToText,
  sweepsBackground,
  type ThemesEngine,
  ThemesLive,
  type ThemesSettings,
  type Translator,
  themesBackground,
  UploadPace,
  type Uploads,
  UseCasesLive,
  type VideoPlatform,
  WebhookAllowList,
  type WebhookSender,
  WebSessionsLive,
  Worker,
  WorkerLive,
  WorkerSettings,
  type WorkQueue
} from "@verbatim/core"
import { type DatabaseSettings, databaseLayer, persistenceLayer, type Repositories } from "@verbatim/db"
import { type CatalogueInvalid, DemoPlatform } from "@verbatim/demo-platform"
import { MemoryFleet, MemoryRateLimiter, MemoryWorkQueue, type RedisSettings } from "@verbatim/queue/memory"
import type { RedisConnectionError } from "@verbatim/queue/redis"
import { NodeAddressResolver, NodeWebhookSender } from "@verbatim/webhooks"
import { defaultSettings, YouTubePlatform, type YouTubeSettings } from "@verbatim/youtube"
import { Effect, Layer, Option, type Redacted } from "effect"
import { leftoversSwept, speechFor, storageFor } from "./media.js"
import * as NodeSecrets from "./node-secrets.js"
import { PkceHashLive } from "./oauth.js"
import type { InfrastructureSettings, WorkSettings } from "./settings.js"
import { ThemesFromConfig } from "./themes.js"
import { translationFor } from "./translation.js"

/** The persistence of the settings: PGlite in the data folder, or PostgreSQL; migrated when built. */
export const persistenceFor = (database: DatabaseSettings) => persistenceLayer(databaseLayer(database))

/** The demo platform on a catalogue file (paced by `pace`'s budget when given one). */
export const demoPlatform = (
  catalogue: string,
  latencyMs = 0,
  pace?: DemoPlatform.DemoOptions["pace"]
): Layer.Layer<VideoPlatform, CatalogueInvalid> =>
  DemoPlatform.layer(catalogue, { latencyMs, ...(pace === undefined ? {} : { pace }) }).pipe(
    Layer.provide(NodeFileSystem.layer)
  )

/**
 * The fleet's share of the video platform with `REDIS_URL`: one request budget per egress and one
 * cache of details and caption texts in Redis (at most twice VERBATIM_YOUTUBE_CACHE_SIZE entries).
 */
export const platformFleetOnRedis = (
  redis: RedisSettings,
  url: Redacted.Redacted<string>,
  youtube: YouTubeSettings
): Layer.Layer<EgressBudget | SharedCache, RedisConnectionError> =>
  // Loaded only with REDIS_URL (ioredis is a large module).
  Layer.unwrapEffect(
    Effect.promise(() => import("@verbatim/queue/redis")).pipe(
      Effect.map(({ RedisConnection, RedisFleet }) =>
        Layer.merge(
          RedisFleet.budgetLayer({ prefix: redis.prefix }),
          RedisFleet.cacheLayer({ prefix: redis.prefix, capacity: 2 * youtube.cacheCapacity })
        ).pipe(Layer.provide(RedisConnection.layer({ url, connectionName: "verbatim-platform" })))
      )
    )
  )

/**
 * The video platform of the settings: the demo catalogue, or YouTube (with its settings) sharing
 * what the fleet shares: with `REDIS_URL`, the egress budgets and the cache in Redis; without it,
 * this process's own budget (and its own caches only).
 */
export const platformFor = (
  settings: Pick<
    InfrastructureSettings,
    "platform" | "demoCatalogue" | "demoLatencyMs" | "demoPaceMs" | "youtube"
  > & {
    readonly redis?: RedisSettings | undefined
  }
): Layer.Layer<VideoPlatform, CatalogueInvalid | RedisConnectionError> => {
  const youtube = Option.getOrElse(settings.youtube, () => defaultSettings)
  const redis = settings.redis
  const fleet =
    redis === undefined || Option.isNone(redis.url)
      ? MemoryFleet.budgetLayer
      : platformFleetOnRedis(redis, redis.url.value, youtube)
  if (settings.platform === "demo") {
    const paceMs = settings.demoPaceMs ?? 0
    if (paceMs <= 0) return demoPlatform(settings.demoCatalogue, settings.demoLatencyMs)
    return Layer.unwrapScoped(
      Effect.gen(function* () {
        const budget = yield* Effect.provide(EgressBudget, yield* Layer.build(fleet))
        return demoPlatform(settings.demoCatalogue, settings.demoLatencyMs, {
          budget,
          egress: "demo",
          rate: { ratePerSecond: 1000 / paceMs, burst: 1 }
        })
      })
    )
  }
  return YouTubePlatform.layer(youtube).pipe(Layer.provide(fleet))
}

/** The work queue and the rate limiter: in memory without `REDIS_URL`, else on Redis under the prefix. */
export const queuesFor = (redis: RedisSettings) =>
  Option.match(redis.url, {
    onNone: () => Layer.merge(MemoryWorkQueue.layer, MemoryRateLimiter.layer),
    onSome: (url) =>
      // Loaded only with REDIS_URL (BullMQ and ioredis are large modules).
      Layer.unwrapEffect(
        Effect.promise(() => import("@verbatim/queue/redis")).pipe(
          Effect.map(({ RedisConnection, RedisRateLimiter, RedisWorkQueue }) =>
            Layer.merge(
              RedisWorkQueue.layer({ prefix: redis.prefix }),
              RedisRateLimiter.layer({ prefix: redis.prefix })
            ).pipe(Layer.provide(RedisConnection.layer({ url, connectionName: "verbatim" })))
          )
        )
      )
  })

/** Node's secrets, the address resolver and the webhook sender. */
export const NodeServicesLive: Layer.Layer<Secrets | AddressResolver | WebhookSender> = Layer.mergeAll(
  NodeSecrets.layer,
  NodeAddressResolver.layer,
  NodeWebhookSender.layer
)

/** Every port a use case or the worker may need. */
export type Infrastructure =
  | Repositories
  | SqlClient.SqlClient
  | VideoPlatform
  | PlatformHealth
  | WorkQueue
  | RateLimiter
  | Secrets
  | AddressResolver
  | WebhookSender
  | WebhookAllowList
  | SpeechToText
  | Translator
  | BlobStore
  | SignedPutReceiver
  | ServiceUrl
  | ThemesEngine
  | ThemesSettings

/**
 * The infrastructure the settings choose. `serverUrl` is the address of the server this process
 * runs, if any: signed upload URLs start with it unless VERBATIM_PUBLIC_URL says otherwise.
 */
export const infrastructureFor = (settings: InfrastructureSettings, serverUrl = "http://127.0.0.1:3000") =>
  Layer.mergeAll(
    persistenceFor(settings.database),
    observedPlatform(platformFor(settings)),
    queuesFor(settings.redis),
    NodeServicesLive,
    Layer.succeed(WebhookAllowList, settings.work.allowedHosts),
    speechFor(settings.speech),
    translationFor(settings.translation ?? "auto"),
    leftoversSwept,
    storageFor(
      settings.storage,
      Option.getOrElse(settings.publicUrl, () => serverUrl)
    ),
    Layer.succeed(
      ServiceUrl,
      Option.getOrElse(settings.publicUrl, () => serverUrl)
    ),
    Layer.succeed(UploadPace, settings.uploadPace ?? defaultUploadPace),
    ThemesFromConfig
  )

/** The use cases over an infrastructure, which stays provided too (for the worker and the tests). */
export const servicesOn = <E>(infrastructure: Layer.Layer<Infrastructure, E>) =>
  Layer.mergeAll(OAuthServerLive, ThemesLive, WebSessionsLive).pipe(
    Layer.provideMerge(UseCasesLive),
    // The OAuth server for hosted assistants (`@verbatim/core` oauth.ts), hashing PKCE on node.
    Layer.provideMerge(PkceHashLive),
    Layer.provideMerge(infrastructure)
  )

/** What the admin command needs: accounts, keys and grants over the given persistence. */
export const adminOn = <E>(persistence: Layer.Layer<Repositories | SqlClient.SqlClient, E>) =>
  AccountAdminLive.pipe(Layer.provide(Layer.merge(persistence, NodeSecrets.layer)))

/** This process's name in leases: host, pid and a random part (unique even across restarts). */
export const processOwner = (): string =>
  `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`

/**
 * A kind of job a worker runs beside the release's own (speech recognition): its handler and how
 * many at once. The test wiring adds `test.delay` this way (`@verbatim/runtime/testing`).
 */
export interface ExtraJobLane {
  readonly kind: JobKind
  readonly handler: JobHandler
  readonly concurrency: number
}

/** The handler of every kind of job this release runs, and of the extra lanes given. */
export const jobHandlersWith = (
  extra: ReadonlyArray<ExtraJobLane> = []
): Layer.Layer<JobHandlers, never, VideoPlatform | SpeechToText | BlobStore | Uploads | Secrets> =>
  Layer.effect(
    JobHandlers,
    Effect.map(
      makeAsrHandler,
      (asr) =>
        new Map<JobKind, JobHandler>([
          ["asr", asr],
          ...extra.map((lane): readonly [JobKind, JobHandler] => [lane.kind, lane.handler])
        ])
    )
  )

/** The handler of every kind of job this release runs. */
export const JobHandlersLive = jobHandlersWith()

/** The worker's settings from the infrastructure's (and the extra lanes'). */
export const workerSettingsOf = (
  work: WorkSettings,
  owner: string = processOwner(),
  extra: ReadonlyArray<ExtraJobLane> = []
) =>
  WorkerSettings.of({
    owner,
    lanes: [
      { lane: "asr", concurrency: work.asrConcurrency },
      ...extra.map((lane) => ({ lane: lane.kind, concurrency: lane.concurrency }))
    ],
    webhookConcurrency: work.webhookConcurrency,
    leaseMs: work.leaseMs,
    reconcileEveryMs: work.reconcileEveryMs,
    shutdownGraceMs: work.shutdownGraceMs,
    maxAttempts: work.maxAttempts,
    webhook: { timeoutMs: work.webhookTimeoutMs, allowedHosts: work.allowedHosts, schedule: work.schedule }
  })

/**
 * The registry of background work of a process that runs work: the worker's jobs and webhook
 * deliveries, batch items and theme detections (each feature's lanes and reconciler), and the
 * sweeps, each a feature of its own (stale credit holds, uploads, idempotency keys, OAuth rows).
 */
export const backgroundWorkOn = (work: WorkSettings) =>
  Layer.effect(
    BackgroundWork,
    Effect.gen(function* () {
      const worker = yield* Worker
      const settings = yield* WorkerSettings
      return [
        worker.background,
        yield* batchBackground({
          owner: settings.owner,
          concurrency: work.batchConcurrency,
          leaseMs: settings.leaseMs
        }),
        yield* themesBackground({ owner: settings.owner, leaseMs: settings.leaseMs }),
        ...(yield* sweepsBackground)
      ]
    })
  )

/**
 * The worker and the registry of background work, over the use cases and infrastructure of
 * `servicesOn`; `extra` lanes run beside the release's own (the test wiring's `test.delay`).
 */
export const workerOn = (work: WorkSettings, extra: ReadonlyArray<ExtraJobLane> = []) =>
  backgroundWorkOn(work).pipe(
    Layer.provideMerge(WorkerLive),
    Layer.provideMerge(
      Layer.merge(
        Layer.succeed(WorkerSettings, workerSettingsOf(work, processOwner(), extra)),
        jobHandlersWith(extra)
      )
    )
  )

/**
 * Runs every registered feature's background work for as long as the scope is open (the embedded
 * server's worker fibers, each `apps/worker` process): the jobs of every lane, webhook deliveries,
 * batch items and theme detections.
 */
export const runWorker = Effect.flatMap(WorkerSettings, (settings) =>
  runBackgroundWork({ reconcileEveryMs: settings.reconcileEveryMs })
)
