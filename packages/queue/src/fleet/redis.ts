/**
 * The Redis `EgressBudget` and `SharedCache`: one request budget per egress and one cache of
 * platform answers for every server and worker on the same Redis (issue: batches at fleet scale).
 *
 * - The budget is core's rule (`reserveEgress`, `pushBackEgress`) in one Lua script per call, so
 *   reservations from any number of processes never take the same slot, on the Redis server's clock
 *   (`clock: "effect"` passes the caller's `Clock`; the shared suite drives it with `TestClock`).
 *   Keys: `<prefix>egress:<egress>`, a hash (`tat`, `s` strikes, `u` strikes until), expiring once
 *   the egress is idle and without strikes.
 * - The cache keeps each value under `<prefix>cache:<key>` with its time to live, and an index
 *   (`<prefix>cache:index`, a sorted set by time of writing) trimmed to `capacity` entries in the
 *   script that writes: the oldest values go first. A value over `maxValueBytes` is not kept.
 * - Neither fails its caller: each has its own connection with no offline queue and a command
 *   timeout. When Redis does not answer, the budget falls back to the in-process one (the pace
 *   this process alone would keep) and the cache misses; a warning is logged at most every 10 s.
 */
import { EgressBudget, type EgressRate, egressBackoff, egressIntervalMs, SharedCache } from "@verbatim/core"
import { Clock, Duration, Effect, Layer, Option, Ref, type Scope } from "effect"
import { limiterClient } from "../rate-limiter/redis.js"
import { RedisConnection } from "../redis/connection.js"
import { luaScript, runScript } from "../redis/script.js"
import * as Memory from "./memory.js"

/**
 * KEYS[1] the egress hash; ARGV[1] "reserve" | "push" | "strikes", ARGV[2] the interval without
 * strikes in ms, ARGV[3] burst, ARGV[4] now in ms ("" = the server's TIME), ARGV[5] cooldown in ms,
 * ARGV[6] the most strikes. Returns the wait in ms (reserve) or the strikes (push, strikes).
 */
export const egressSource = `
local now
if ARGV[4] == "" then
  local time = redis.call("TIME")
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = math.floor(tonumber(ARGV[4]))
end
local base = tonumber(ARGV[2])
local burst = math.max(1, math.floor(tonumber(ARGV[3])))
local cooldown = tonumber(ARGV[5])
local maxStrikes = tonumber(ARGV[6])
local stored = redis.call("HMGET", KEYS[1], "tat", "s", "u")
local tat = tonumber(stored[1]) or 0
local s = tonumber(stored[2]) or 0
local u = tonumber(stored[3]) or 0
local strikes = 0
if now < u then strikes = s end
local op = ARGV[1]
if op == "strikes" then return strikes end
local result
if op == "push" then
  strikes = math.min(maxStrikes, strikes + 1)
  tat = math.max(tat, now + base * 2 ^ strikes)
  u = now + cooldown
  result = strikes
else
  local interval = base * 2 ^ strikes
  local start = math.max(now, tat - (burst - 1) * interval)
  tat = math.max(tat, now) + interval
  if strikes == 0 then u = 0 end
  result = start - now
end
redis.call("HSET", KEYS[1], "tat", string.format("%.0f", tat), "s", strikes, "u", string.format("%.0f", u))
redis.call("PEXPIRE", KEYS[1], math.max(1, math.max(tat, u) - now + 1000))
return result
`

/** KEYS[1] the value, KEYS[2] the index; ARGV[1] the value, ARGV[2] ttl ms, ARGV[3] capacity. */
export const cacheSetSource = `
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
local time = redis.call("TIME")
redis.call("ZADD", KEYS[2], tonumber(time[1]) * 1000000 + tonumber(time[2]), KEYS[1])
local over = redis.call("ZCARD", KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local oldest = redis.call("ZPOPMIN", KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call("DEL", oldest[i]) end
end
return 1
`

const egressScript = luaScript(egressSource)
const cacheSetScript = luaScript(cacheSetSource)
const warnEveryMs = 10_000

export interface RedisFleetOptions {
  /** Put in front of every key. */
  readonly prefix: string
  /** Whose clock paces the egresses: the Redis server's (default) or the caller's Effect `Clock`. */
  readonly clock?: "redis" | "effect" | undefined
  /** How long a call may wait for Redis before it goes on without it (default 250 ms). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Entries the cache keeps (default 20,000). */
  readonly capacity?: number | undefined
  /** The largest value the cache keeps, in UTF-16 code units of its text (default 1,048,576). */
  readonly maxValueBytes?: number | undefined
}

const clientFor = (options: RedisFleetOptions) =>
  Effect.flatMap(RedisConnection, (shared) =>
    limiterClient(
      shared,
      Math.max(1, Math.round(Duration.toMillis(Duration.decode(options.timeout ?? Duration.millis(250)))))
    )
  )

/** A logger of "Redis did not answer" at most every 10 s. */
const throttledWarning = (what: string) =>
  Effect.map(
    Ref.make(Number.NEGATIVE_INFINITY),
    (last) => (reason: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(last, (at) => (now - at >= warnEveryMs ? ([true, now] as const) : ([false, at] as const)))
      ).pipe(
        Effect.flatMap((warn) =>
          warn
            ? Effect.logWarning(`${what}: Redis did not answer; going on without it`).pipe(
                Effect.annotateLogs({ reason })
              )
            : Effect.void
        )
      )
  )

export const makeBudget = (
  options: RedisFleetOptions
): Effect.Effect<EgressBudget["Type"], never, RedisConnection | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* clientFor(options)
    const local = yield* Memory.makeBudget
    const warn = yield* throttledWarning("egress budget")
    const now = options.clock === "effect" ? Effect.map(Clock.currentTimeMillis, String) : Effect.succeed("")
    const call = (op: "reserve" | "push" | "strikes", egress: string, rate: EgressRate) =>
      Effect.flatMap(now, (at) =>
        Effect.async<Option.Option<number>>((resume) => {
          try {
            runScript(
              client,
              egressScript,
              [`${options.prefix}egress:${egress}`],
              [
                op,
                egressIntervalMs(rate, 0),
                rate.burst,
                at,
                egressBackoff.cooldownMs,
                egressBackoff.maxStrikes
              ],
              (error, reply) => {
                const n = Number(reply)
                resume(
                  !error && Number.isFinite(n)
                    ? Effect.succeed(Option.some(n))
                    : Effect.as(warn(error ? error.message : "unexpected reply"), Option.none())
                )
              }
            )
          } catch (error) {
            resume(Effect.as(warn(String(error)), Option.none()))
          }
        })
      )
    const none: EgressRate = { ratePerSecond: 1, burst: 1 }
    return EgressBudget.of({
      reserve: (egress, rate) =>
        Effect.flatMap(call("reserve", egress, rate), (waited) =>
          Option.match(waited, {
            onSome: (ms) => Effect.succeed(Duration.millis(Math.max(0, ms))),
            onNone: () => local.reserve(egress, rate)
          })
        ),
      pushBack: (egress, rate) =>
        Effect.zipRight(local.pushBack(egress, rate), Effect.asVoid(call("push", egress, rate))),
      strikes: (egress) =>
        Effect.flatMap(call("strikes", egress, none), (strikes) =>
          Option.match(strikes, { onSome: Effect.succeed, onNone: () => local.strikes(egress) })
        )
    })
  })

export const makeCache = (
  options: RedisFleetOptions
): Effect.Effect<SharedCache["Type"], never, RedisConnection | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* clientFor(options)
    const warn = yield* throttledWarning("shared cache")
    const capacity = options.capacity ?? 20_000
    const maxValue = options.maxValueBytes ?? 1_048_576
    const index = `${options.prefix}cache:index`
    return SharedCache.of({
      get: (key) =>
        Effect.async<Option.Option<string>>((resume) => {
          client.get(`${options.prefix}cache:${key}`, (error, reply) => {
            resume(
              error
                ? Effect.as(warn(error.message), Option.none())
                : Effect.succeed(typeof reply === "string" ? Option.some(reply) : Option.none())
            )
          })
        }),
      set: (key, value, ttl) => {
        const ms = Math.round(Duration.toMillis(ttl))
        if (ms <= 0 || value.length > maxValue) return Effect.void
        return Effect.async<void>((resume) => {
          runScript(
            client,
            cacheSetScript,
            [`${options.prefix}cache:${key}`, index],
            [value, ms, capacity],
            (error) => resume(error ? warn(error.message) : Effect.void)
          )
        })
      }
    })
  })

export const budgetLayer = (options: RedisFleetOptions): Layer.Layer<EgressBudget, never, RedisConnection> =>
  Layer.scoped(EgressBudget, makeBudget(options))

export const cacheLayer = (options: RedisFleetOptions): Layer.Layer<SharedCache, never, RedisConnection> =>
  Layer.scoped(SharedCache, makeCache(options))
