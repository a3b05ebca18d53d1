/**
 * Per-account rate limits (DESIGN decision 10): a token bucket per key, taken atomically.
 * In memory for one process, in Redis when many servers share the limits.
 */
import type { Plan } from "@verbatim/domain"
import { Context, type Effect } from "effect"

export interface RateVerdict {
  readonly allowed: boolean
  /** The bucket's capacity (RateLimit-Limit). */
  readonly limit: number
  /** Whole requests left (RateLimit-Remaining). */
  readonly remaining: number
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  readonly resetSeconds: number
  /** Seconds to wait when refused (Retry-After); 0 when allowed. */
  readonly retryAfterSeconds: number
}

export class RateLimiter extends Context.Tag("@verbatim/core/RateLimiter")<
  RateLimiter,
  {
    /** Takes `requests` (default 1) at once from the bucket of `key`: all or none (`Plan.take`). */
    readonly take: (key: string, limit: Plan.RateLimit, requests?: number) => Effect.Effect<RateVerdict>
  }
>() {}
