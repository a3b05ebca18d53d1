/**
 * The infrastructure for tests: the production wiring on a fresh isolated database (a throw-away
 * PostgreSQL schema when `DATABASE_URL` is set, else an in-memory PGlite), the shipped demo
 * catalogue, the in-memory queue and rate limiter (or Redis under a fresh prefix, when asked), and
 * node's secrets and webhook sender. Work settings are fast: short leases, quick reconciling, a
 * millisecond retry schedule, and local receivers allowed.
 */

import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  AddressResolver,
  defaultUploadPace,
  type JobRecord,
  jobDefaults,
  observedPlatform,
  ResolveFailed,
  Secrets,
  ServiceUrl,
  type SpeechToText,
  type ThemesEngine,
  type ThemesSettings,
  type Translator,
  UploadPace,
  type UploadPaceSettings,
  type VideoPlatform,
  WebhookAllowList
} from "@verbatim/core"
import { persistenceLayer, TestDatabaseLive } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Ids } from "@verbatim/domain"
import { NodeWebhookSender } from "@verbatim/webhooks"
import { DateTime, Duration, Effect, Layer, Option, Redacted, Schedule, TestClock } from "effect"
import { demoPlatform, type ExtraJobLane, queuesFor, workerOn } from "./layers.js"
import { noSpeechToText, speechHint, storageFor } from "./media.js"
import * as NodeSecrets from "./node-secrets.js"
import type { WorkSettings } from "./settings.js"
import { type TestWorkPayload, testWorkHandler } from "./test-work.js"
import { testThemes } from "./themes.js"
import { noTranslator, translationHint } from "./translation.js"

/** Fast work settings for tests. */
export const testWorkSettings = (overrides: Partial<WorkSettings> = {}): WorkSettings => ({
  embedded: true,
  concurrency: 4,
  asrConcurrency: 2,
  batchConcurrency: 8,
  webhookConcurrency: 4,
  leaseMs: 2_000,
  reconcileEveryMs: 200,
  shutdownGraceMs: 1_000,
  maxAttempts: 5,
  webhookTimeoutMs: 2_000,
  allowedHosts: testAllowedHosts,
  schedule: { delaysMs: [0, 50, 100, 200, 400, 800], jitter: 0 },
  ...overrides
})

/**
 * Host names the tests use, with their addresses: tests never reach a real DNS server (there is no
 * network), so names resolve from this table, like an `/etc/hosts` file; any other name does not
 * resolve. `NodeAddressResolver` itself is tested in `@verbatim/webhooks`.
 */
export const testHosts: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["hooks.example.com", ["93.184.215.14"]],
  ["example.com", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]],
  ["internal.example.com", ["10.1.2.3"]],
  ["metadata.example.com", ["169.254.169.254"]],
  ["localhost", ["127.0.0.1", "::1"]]
])

/** An `AddressResolver` over a fixed table of names (see `testHosts`). */
export const staticResolver = (table: ReadonlyMap<string, ReadonlyArray<string>>) =>
  Layer.succeed(AddressResolver, {
    resolve: (host) => {
      const addresses = table.get(host.toLowerCase())
      return addresses === undefined || addresses.length === 0
        ? Effect.fail(new ResolveFailed({ host, reason: "no such name in the test hosts table" }))
        : Effect.succeed(addresses)
    }
  })

/** The hosts tests may deliver webhooks to although they resolve to loopback, on any port (receivers listen on free ones). */
export const testAllowedHosts: ReadonlyArray<string> = ["127.0.0.1:*", "localhost:*", "[::1]:*"]

export interface TestInfrastructureOptions {
  /** The video platform (default: the demo platform on the shipped catalogue). */
  readonly platform?: Layer.Layer<VideoPlatform, unknown> | undefined
  /** Use Redis (`REDIS_URL`) under this key prefix instead of the in-memory queue and limiter. */
  readonly redisPrefix?: string | undefined
  /** With `redisPrefix`: Redis at this address instead of `REDIS_URL` (a proxy a fault test can break). */
  readonly redisUrl?: string | undefined
  /** The speech engine (default: none, so ASR requests answer 503 `asr_unavailable`). */
  readonly speech?: Layer.Layer<SpeechToText, unknown> | undefined
  /** The machine translation engine (default: none, so `provider: "ai"` answers 400 naming the reason). */
  readonly translator?: Layer.Layer<Translator, unknown> | undefined
  /** Where the local store's signed URLs point (the test server's address). */
  readonly publicUrl?: string | undefined
  /** The themes engine and settings (default: the local engine, `testThemes()`). */
  readonly themes?: Layer.Layer<ThemesEngine | ThemesSettings, unknown> | undefined
  /** The pace signed PUTs are held to (default: core's `defaultUploadPace`). */
  readonly uploadPace?: UploadPaceSettings | undefined
  /** The local store's folder (default: a fresh temporary folder), e.g. a small file system a test fills. */
  readonly blobRoot?: string | undefined
}

/** Upload storage in a fresh temporary folder (or `root`), with a random signing key. */
export const testStorage = (publicUrl: string, root?: string) =>
  Layer.unwrapEffect(
    Effect.sync(() =>
      storageFor(
        {
          _tag: "local",
          root: root ?? mkdtempSync(join(tmpdir(), "verbatim-blobs-")),
          signingKey: Option.some(Redacted.make(randomBytes(32).toString("base64url")))
        },
        publicUrl
      )
    )
  )

/**
 * No speech or translation engine, and upload storage in a temporary folder: the media ports for
 * tools and benchmarks.
 */
export const offlineMedia = (publicUrl = "http://127.0.0.1:9") =>
  Layer.mergeAll(
    noSpeechToText(`no speech engine here; ${speechHint}`),
    noTranslator(`no translation engine here; ${translationHint}`),
    testStorage(publicUrl),
    Layer.succeed(ServiceUrl, publicUrl)
  )

/** The test infrastructure (see the module comment). */
export const testInfrastructure = (options: TestInfrastructureOptions = {}) => {
  const url = options.redisUrl ?? process.env.REDIS_URL?.trim()
  const redis =
    options.redisPrefix !== undefined && url
      ? { url: Option.some(Redacted.make(url)), prefix: options.redisPrefix }
      : { url: Option.none(), prefix: "unused:" }
  return Layer.mergeAll(
    persistenceLayer(TestDatabaseLive),
    observedPlatform(options.platform ?? demoPlatform(shippedCataloguePath)),
    queuesFor(redis),
    NodeSecrets.layer,
    NodeWebhookSender.layer,
    staticResolver(testHosts),
    Layer.succeed(WebhookAllowList, testAllowedHosts),
    options.speech ?? noSpeechToText(`no speech engine in this test; ${speechHint}`),
    options.translator ?? noTranslator(`no translation engine in this test; ${translationHint}`),
    testStorage(options.publicUrl ?? "http://127.0.0.1:9", options.blobRoot),
    Layer.succeed(ServiceUrl, options.publicUrl ?? "http://127.0.0.1:9"),
    Layer.succeed(UploadPace, options.uploadPace ?? defaultUploadPace),
    options.themes ?? testThemes()
  )
}

export { type TestWorkPayload, testWorkHandler } from "./test-work.js"

/** The `test.delay` lane, `concurrency` jobs at once (the settings' `concurrency`). */
export const testLane = (work: WorkSettings): ExtraJobLane => ({
  kind: "test.delay",
  handler: testWorkHandler,
  concurrency: work.concurrency
})

/** The production worker (`workerOn`) with the `test.delay` lane beside the release's own. */
export const testWorkerOn = (work: WorkSettings) => workerOn(work, [testLane(work)])

export interface TestJobInput {
  readonly accountId: Ids.AccountId
  /** The `test.delay` payload: how long to work, what to charge, whether to fail. */
  readonly payload?: Partial<TestWorkPayload> | undefined
  readonly webhookUrl?: string | null | undefined
}

/** A `test.delay` job, processing, ready for `JobLifecycle.create`. */
export const testJob = (input: TestJobInput) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const now = yield* DateTime.now
    const job: JobRecord = {
      ...jobDefaults,
      id: Ids.JobId.make(yield* secrets.uuid),
      accountId: input.accountId,
      requestId: Ids.RequestId.make(yield* secrets.uuid),
      kind: "test.delay",
      videoId: "test-work",
      videoTitle: null,
      language: null,
      source: null,
      mode: "speech_to_text_only",
      status: "processing",
      error: null,
      creditsUsed: 0,
      transcriptId: null,
      payload: { delay_ms: 0, credits: 0, ...input.payload },
      webhookUrl: input.webhookUrl ?? null,
      createdAt: now,
      startedAt: null,
      completedAt: null
    }
    return job
  })

/** Polls `check` every `everyMs` (50 by default) until it gives `Some`, failing after `timeoutMs`. */
export const eventually = <A, E, R>(
  what: string,
  check: Effect.Effect<Option.Option<A>, E, R>,
  timeoutMs = 30_000,
  everyMs = 50
): Effect.Effect<A, E | string, R> =>
  check.pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail("not yet" as const), onSome: Effect.succeed })),
    Effect.retry({ schedule: Schedule.spaced(Duration.millis(everyMs)) }),
    Effect.timeoutFail({
      duration: Duration.millis(timeoutMs),
      onTimeout: () => `timed out waiting for ${what}`
    })
  ) as Effect.Effect<A, E | string, R>

/**
 * Runs `effect` on the test clock while the clock moves on in `step`s (10 ms by default), for what
 * waits on Effect's clock while it also waits on real I/O (a request polling the database until its
 * wait is over): a single `TestClock.adjust` could come before the wait has begun. Each step is
 * uninterruptible: an adjust cut short may have taken a sleep off the clock without waking it.
 */
export const asTimePasses = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  step: Duration.DurationInput = Duration.millis(10)
): Effect.Effect<A, E, R> =>
  Effect.raceFirst(effect, Effect.forever(Effect.uninterruptible(TestClock.adjust(step))))
