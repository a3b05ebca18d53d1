/**
 * The Redis `RateLimiter`: the same token bucket as the in-memory limiter (the domain's `Plan.take`,
 * integer thousandths of a request), kept in Redis so that every API server shares one bucket per
 * key.
 *
 * - Atomic: one Lua script reads the bucket, refills it, takes a request and writes it back; Redis
 *   runs scripts one at a time, so concurrent takes from any number of servers never spend the
 *   same token. The script runs with `EVALSHA` (one round trip), falling back to `EVAL`.
 * - One clock: the script reads the Redis server's `TIME`, so servers whose clocks disagree still
 *   refill a bucket at exactly the plan's rate. (`clock: "effect"` passes the caller's Effect
 *   `Clock` instead; the shared test suite uses it to drive the same script with `TestClock`.)
 * - Bounded: each bucket key expires one second after the bucket would be full again; a missing
 *   bucket is a full one, so expiry never changes a verdict.
 * - Never hangs a request: the limiter has its own connection without an offline queue and with a
 *   command timeout (250 ms by default). When Redis cannot answer, the request is allowed (fail
 *   open) and a warning is logged at most once every 10 seconds: Redis carries no state that
 *   protects money (credits are checked in PostgreSQL), and refusing every request while Redis is
 *   down would turn a degraded limiter into an outage.
 */
import type { RateVerdict } from "@verbatim/core"
import { RateLimiter } from "@verbatim/core"
import type { Plan } from "@verbatim/domain"
import { Clock, type ConfigError, Duration, Effect, Layer, Ref, type Scope } from "effect"
import type { Redis } from "ioredis"
import { closeClient, RedisConnection } from "../redis/connection.js"
import { type LuaScript, luaScript, runScript } from "../redis/script.js"
import { RedisConfig } from "../redis/settings.js"

/**
 * `Plan.take` in Lua, with the same integer arithmetic (Lua numbers are doubles: every value here
 * is an integer far below 2^53, so the results are exact).
 *
 * KEYS[1] the bucket (a hash: `m` milliTokens, `t` updatedAtMs)
 * ARGV[1] requestsPerSecond, ARGV[2] burst, ARGV[3] now in ms ("" = the server's TIME),
 * ARGV[4] extra lifetime of the key after the bucket is full again, in ms,
 * ARGV[5] the requests taken at once (all or none)
 * Returns { allowed (0/1), remaining, resetSeconds, retryAfterSeconds }.
 */
export const takeSource = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now
if ARGV[3] == "" then
  local time = redis.call("TIME")
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = math.floor(tonumber(ARGV[3]))
end
local perRequest = 1000
local capacity = burst * perRequest
local function ceilDiv(n, d)
  local r = n % d
  local q = (n - r) / d
  if r > 0 then q = q + 1 end
  return q
end
local stored = redis.call("HMGET", KEYS[1], "m", "t")
local milli
local updated
if stored[1] and stored[2] then
  local storedMilli = tonumber(stored[1])
  local storedAt = tonumber(stored[2])
  local elapsed = math.max(0, now - storedAt)
  milli = math.min(capacity, storedMilli + elapsed * rate)
  updated = math.max(now, storedAt)
else
  milli = capacity
  updated = now
end
local cost = math.max(1, math.floor(tonumber(ARGV[5]))) * perRequest
local allowed = 0
if milli >= cost then
  allowed = 1
  milli = milli - cost
end
local msPerSecondOfRate = rate * 1000
local retryAfter = 0
if allowed == 0 then
  retryAfter = math.max(1, ceilDiv(math.min(cost, capacity) - milli, msPerSecondOfRate))
end
local remaining = math.floor(milli / perRequest)
local reset = ceilDiv(capacity - milli, msPerSecondOfRate)
redis.call("HSET", KEYS[1], "m", string.format("%.0f", milli), "t", string.format("%.0f", updated))
local fullAt = updated + ceilDiv(capacity - milli, rate)
redis.call("PEXPIRE", KEYS[1], math.max(1, fullAt - now + tonumber(ARGV[4])))
return { allowed, remaining, reset, retryAfter }
`

const takeScript = luaScript(takeSource)

export interface RedisRateLimiterOptions {
  /** Put in front of every bucket key (`<prefix>rl:<key>`). */
  readonly prefix: string
  /** Whose clock refills the buckets: the Redis server's (default) or the caller's Effect `Clock`. */
  readonly clock?: "redis" | "effect" | undefined
  /** How long a take may wait for Redis before it is allowed without it (default 250 ms). */
  readonly timeout?: Duration.DurationInput | undefined
  /** How long a bucket key outlives the moment its bucket is full again (default 1 second). */
  readonly keyLingerMs?: number | undefined
  /** Adds a comment to the script, making a script Redis has never seen (tests the `EVAL` path). */
  readonly scriptSalt?: string | undefined
}

/** The verdict when Redis cannot answer: allowed, as if the bucket were full. */
export const failOpenVerdict = (limit: Plan.RateLimit): RateVerdict => ({
  allowed: true,
  limit: limit.burst,
  remaining: Math.max(0, limit.burst - 1),
  resetSeconds: 0,
  retryAfterSeconds: 0
})

const toVerdict = (limit: Plan.RateLimit, reply: unknown): RateVerdict | undefined => {
  if (!Array.isArray(reply) || reply.length !== 4) return undefined
  const [allowed, remaining, resetSeconds, retryAfterSeconds] = reply.map(Number)
  if (
    [allowed, remaining, resetSeconds, retryAfterSeconds].some((n) => n === undefined || !Number.isFinite(n))
  )
    return undefined
  return {
    allowed: allowed === 1,
    limit: limit.burst,
    remaining: remaining ?? 0,
    resetSeconds: resetSeconds ?? 0,
    retryAfterSeconds: retryAfterSeconds ?? 0
  }
}

const warnEveryMs = 10_000

/** The limiter's own connection: no offline queue, bounded commands; closed with the scope. */
export const limiterClient = (shared: Redis, timeoutMs: number): Effect.Effect<Redis, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() =>
      shared.duplicate({
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: timeoutMs
      })
    ),
    closeClient
  ).pipe(
    Effect.tap((client) =>
      Effect.sync(() => {
        // Reconnect errors are reported by the takes that fail; keep the emitter from throwing.
        client.on("error", () => {})
      })
    ),
    // Wait a little for the first connection, but start even when Redis is down (fail open).
    Effect.tap((client) =>
      Effect.promise(() => client.connect().catch(() => undefined)).pipe(
        Effect.timeout(Duration.seconds(2)),
        Effect.ignore
      )
    )
  )

export const make = (
  options: RedisRateLimiterOptions
): Effect.Effect<RateLimiter["Type"], never, RedisConnection | Scope.Scope> =>
  Effect.gen(function* () {
    const shared = yield* RedisConnection
    const timeoutMs = Duration.toMillis(Duration.decode(options.timeout ?? Duration.millis(250)))
    const client = yield* limiterClient(shared, Math.max(1, Math.round(timeoutMs)))
    const script: LuaScript =
      options.scriptSalt === undefined ? takeScript : luaScript(`-- ${options.scriptSalt}\n${takeSource}`)
    const linger = String(options.keyLingerMs ?? 1000)
    const useEffectClock = options.clock === "effect"
    const lastWarningAt = yield* Ref.make(Number.NEGATIVE_INFINITY)

    const failOpen = (key: string, limit: Plan.RateLimit, reason: string): Effect.Effect<RateVerdict> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(lastWarningAt, (last) =>
          now - last >= warnEveryMs ? ([true, now] as const) : ([false, last] as const)
        ).pipe(
          Effect.tap((warn) =>
            warn
              ? Effect.logWarning("rate limiter: Redis did not answer; allowing requests (fail open)").pipe(
                  Effect.annotateLogs({ key, reason })
                )
              : Effect.void
          ),
          Effect.as(failOpenVerdict(limit))
        )
      )

    /**
     * One `EVALSHA`, its reply turned into the verdict in the driver's callback: a take runs on
     * every request, so it is one `Effect.async` and no more.
     */
    const takeAt = (
      key: string,
      limit: Plan.RateLimit,
      now: string,
      requests: number
    ): Effect.Effect<RateVerdict> =>
      Effect.async<RateVerdict>((resume) => {
        try {
          runScript(
            client,
            script,
            [`${options.prefix}rl:${key}`],
            [limit.requestsPerSecond, limit.burst, now, linger, requests],
            (error, reply) => {
              const verdict = error ? undefined : toVerdict(limit, reply)
              resume(
                verdict !== undefined
                  ? Effect.succeed(verdict)
                  : failOpen(key, limit, error ? error.message : "unexpected reply")
              )
            }
          )
        } catch (error) {
          resume(failOpen(key, limit, String(error)))
        }
      })

    const take = (key: string, limit: Plan.RateLimit, requests = 1): Effect.Effect<RateVerdict> =>
      useEffectClock
        ? Effect.flatMap(Clock.currentTimeMillis, (now) => takeAt(key, limit, String(now), requests))
        : takeAt(key, limit, "", requests)

    return RateLimiter.of({ take })
  })

export const layer = (options: RedisRateLimiterOptions): Layer.Layer<RateLimiter, never, RedisConnection> =>
  Layer.scoped(RateLimiter, make(options))

/** The prefix from `VERBATIM_REDIS_PREFIX`. */
export const layerConfig: Layer.Layer<RateLimiter, ConfigError.ConfigError, RedisConnection> =
  Layer.unwrapEffect(Effect.map(RedisConfig, (settings) => layer({ prefix: settings.prefix })))
