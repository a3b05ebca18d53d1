/**
 * The in-memory `RateLimiter`: one token bucket per key (the domain's pure `Plan.take`), for a
 * single server process.
 *
 * - Atomic: every bucket lives in one `Ref` holding a persistent `HashMap`; a take reads the clock,
 *   then applies `Plan.take` inside `Ref.modify`, so concurrent takes on a key never both spend the
 *   same token.
 * - Bounded: a bucket that has refilled to full is the same as no bucket (`Plan.take` treats a
 *   missing bucket as full), so such buckets are dropped. At most once per `sweepIntervalMs` a take
 *   sweeps every bucket that is full by then; memory holds only keys seen within about one refill
 *   time plus one sweep interval.
 */
import type { RateVerdict } from "@verbatim/core"
import { RateLimiter } from "@verbatim/core"
import { Plan } from "@verbatim/domain"
import { Clock, Effect, HashMap, Layer, Ref } from "effect"

/** How often idle full buckets are swept, at most. */
export const sweepIntervalMs = 60_000

interface Entry {
  readonly bucket: Plan.RateBucket
  /** When the bucket will be full again, at the limit it was last taken with. */
  readonly fullAtMs: number
}

interface State {
  readonly buckets: HashMap.HashMap<string, Entry>
  readonly nextSweepAtMs: number
}

/** The bucket's time to refill to full, in whole milliseconds. */
const fullAt = (bucket: Plan.RateBucket, limit: Plan.RateLimit): number => {
  const missing = limit.burst * 1000 - bucket.milliTokens
  return bucket.updatedAtMs + Math.ceil(Math.max(0, missing) / limit.requestsPerSecond)
}

const sweep = (buckets: HashMap.HashMap<string, Entry>, nowMs: number): HashMap.HashMap<string, Entry> =>
  HashMap.filter(buckets, (entry) => entry.fullAtMs > nowMs)

const verdictOf = (limit: Plan.RateLimit, decision: Plan.RateDecision): RateVerdict => ({
  allowed: decision.allowed,
  limit: limit.burst,
  remaining: decision.remaining,
  resetSeconds: decision.resetSeconds,
  retryAfterSeconds: decision.retryAfterSeconds
})

/** The limiter and, for tests and metrics, how many buckets it holds. */
export interface MemoryRateLimiter {
  readonly take: RateLimiter["Type"]["take"]
  /** The number of buckets held now (idle full ones may linger until the next sweep). */
  readonly size: Effect.Effect<number>
}

export const make: Effect.Effect<MemoryRateLimiter> = Effect.gen(function* () {
  const start = yield* Clock.currentTimeMillis
  const state = yield* Ref.make<State>({ buckets: HashMap.empty(), nextSweepAtMs: start + sweepIntervalMs })

  const take = (key: string, limit: Plan.RateLimit, requests = 1): Effect.Effect<RateVerdict> =>
    Effect.flatMap(Clock.currentTimeMillis, (nowMs) =>
      Ref.modify(state, ({ buckets, nextSweepAtMs }) => {
        const due = nowMs >= nextSweepAtMs
        const current = due ? sweep(buckets, nowMs) : buckets
        const previous = HashMap.get(current, key)
        const decision = Plan.take(
          previous._tag === "Some" ? previous.value.bucket : undefined,
          limit,
          nowMs,
          requests
        )
        const next: State = {
          buckets: HashMap.set(current, key, {
            bucket: decision.bucket,
            fullAtMs: fullAt(decision.bucket, limit)
          }),
          nextSweepAtMs: due ? nowMs + sweepIntervalMs : nextSweepAtMs
        }
        return [verdictOf(limit, decision), next] as const
      })
    )

  return {
    take,
    size: Effect.map(Ref.get(state), (s) => HashMap.size(s.buckets))
  }
})

export const layer: Layer.Layer<RateLimiter> = Layer.effect(
  RateLimiter,
  Effect.map(make, (limiter) => RateLimiter.of({ take: limiter.take }))
)
