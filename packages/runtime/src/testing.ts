/**
 * The infrastructure for tests: the production wiring on a fresh isolated database (a throw-away
 * PostgreSQL schema when `DATABASE_URL` is set, else an in-memory PGlite), the shipped demo
 * catalogue, the in-memory queue and rate limiter (or Redis under a fresh prefix, when asked), and
 * node's secrets and webhook sender. Work settings are fast: short leases, quick reconciling, a
 * millisecond retry schedule, and local receivers allowed.
 */
import { persistenceLayer, TestDatabaseLive } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Layer, Option, Redacted } from "effect"
import { NodeServicesLive, platformFor, queuesFor } from "./layers.js"
import type { WorkSettings } from "./settings.js"

/** Fast work settings for tests. */
export const testWorkSettings = (overrides: Partial<WorkSettings> = {}): WorkSettings => ({
  embedded: true,
  concurrency: 4,
  webhookConcurrency: 4,
  leaseMs: 2_000,
  reconcileEveryMs: 200,
  shutdownGraceMs: 1_000,
  maxAttempts: 5,
  webhookTimeoutMs: 2_000,
  allowedHosts: ["127.0.0.1", "localhost", "::1"],
  schedule: { delaysMs: [0, 50, 100, 200, 400, 800], jitter: 0 },
  ...overrides
})

export interface TestInfrastructureOptions {
  /** Use Redis (`REDIS_URL`) under this key prefix instead of the in-memory queue and limiter. */
  readonly redisPrefix?: string | undefined
}

/** The test infrastructure (see the module comment). */
export const testInfrastructure = (options: TestInfrastructureOptions = {}) => {
  const url = process.env.REDIS_URL?.trim()
  const redis =
    options.redisPrefix !== undefined && url
      ? { url: Option.some(Redacted.make(url)), prefix: options.redisPrefix }
      : { url: Option.none(), prefix: "unused:" }
  return Layer.mergeAll(
    persistenceLayer(TestDatabaseLive),
    platformFor({ demoCatalogue: shippedCataloguePath }),
    queuesFor(redis),
    NodeServicesLive
  )
}
