/**
 * The per-account rate limiter as a pure token bucket (DESIGN decision 10): the bucket refills at
 * the plan's rate and holds `burst` requests (one second of the rate, at least 2). A store (memory
 * or Redis) keeps one `RateBucket` per account and applies `take` atomically.
 *
 * Exactness: the bucket counts thousandths of a request (`milliTokens`), so a refill of `rate`
 * requests per second adds exactly `rate` milliTokens per millisecond — integer arithmetic, no
 * drift. Times are whole milliseconds (fractions are floored); a clock that goes backwards refills
 * nothing and never moves `updatedAtMs` back. A missing bucket is a full one.
 */
import type { PlanLimits } from "./plan-limits.js"

/** The rate and capacity a bucket needs; a plan's `PlanLimits` fits. */
export type RateLimit = Pick<PlanLimits, "requestsPerSecond" | "burst">

export interface RateBucket {
  /** Thousandths of a request available, 0 to `burst * 1000`. */
  readonly milliTokens: number
  readonly updatedAtMs: number
}

export interface RateDecision {
  readonly allowed: boolean
  readonly bucket: RateBucket
  /** Seconds to wait before the next request can pass: 0 when allowed, at least 1 when refused. */
  readonly retryAfterSeconds: number
  /** Whole requests left in the bucket after this one. */
  readonly remaining: number
  /** Seconds until the bucket is full again (0 when full). */
  readonly resetSeconds: number
}

const perRequest = 1000

const ceilDiv = (n: number, d: number): number => {
  const r = n % d
  return (n - r) / d + (r > 0 ? 1 : 0)
}

const capacity = (limit: RateLimit): number => limit.burst * perRequest

export const fullBucket = (limit: RateLimit, nowMs: number): RateBucket => ({
  milliTokens: capacity(limit),
  updatedAtMs: Math.floor(nowMs)
})

/** The bucket brought forward to `nowMs`: what has refilled since, capped at its capacity. */
export const refill = (bucket: RateBucket | undefined, limit: RateLimit, nowMs: number): RateBucket => {
  const now = Math.floor(nowMs)
  if (bucket === undefined) return fullBucket(limit, now)
  const elapsed = Math.max(0, now - bucket.updatedAtMs)
  const milliTokens = Math.min(capacity(limit), bucket.milliTokens + elapsed * limit.requestsPerSecond)
  return { milliTokens, updatedAtMs: Math.max(now, bucket.updatedAtMs) }
}

/** Whole requests the bucket would let through at `nowMs`. */
export const available = (bucket: RateBucket | undefined, limit: RateLimit, nowMs: number): number =>
  Math.floor(refill(bucket, limit, nowMs).milliTokens / perRequest)

/**
 * `requests` requests at once at `nowMs` (default 1; an MCP POST takes one per JSON-RPC request it
 * carries): allowed when that many whole requests have refilled, all or none; a refused take costs
 * nothing. More than `burst` at once is never allowed (its wait is the time to a full bucket).
 */
export const take = (
  bucket: RateBucket | undefined,
  limit: RateLimit,
  nowMs: number,
  requests = 1
): RateDecision => {
  const current = refill(bucket, limit, nowMs)
  const cost = Math.max(1, Math.floor(requests)) * perRequest
  const allowed = current.milliTokens >= cost
  const next = allowed ? { ...current, milliTokens: current.milliTokens - cost } : current
  const msPerSecondOfRate = limit.requestsPerSecond * 1000
  const retryAfterSeconds = allowed
    ? 0
    : Math.max(1, ceilDiv(Math.min(cost, capacity(limit)) - next.milliTokens, msPerSecondOfRate))
  return {
    allowed,
    bucket: next,
    retryAfterSeconds,
    remaining: Math.floor(next.milliTokens / perRequest),
    resetSeconds: ceilDiv(capacity(limit) - next.milliTokens, msPerSecondOfRate)
  }
}
