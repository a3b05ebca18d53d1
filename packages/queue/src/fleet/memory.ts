/**
 * The in-memory `EgressBudget` and `SharedCache`, for one process (the embedded default, or any
 * process without `REDIS_URL`): the same rules as the Redis ones, shared by nothing but the process.
 *
 * - The budget keeps one `EgressState` per egress in a `Ref` and applies core's pure
 *   `reserveEgress` and `pushBackEgress` inside `Ref.modify`, so concurrent reservations never take
 *   the same slot. Egresses are few (one per proxy), so states are kept for the life of the process.
 * - The cache holds at most `capacity` entries, dropping the oldest first; an expired entry misses.
 */
import {
  EgressBudget,
  type EgressRate,
  type EgressState,
  egressStrikesAt,
  freshEgress,
  pushBackEgress,
  reserveEgress,
  SharedCache
} from "@verbatim/core"
import { Clock, Duration, Effect, HashMap, Layer, Option, Ref } from "effect"

export const makeBudget: Effect.Effect<EgressBudget["Type"]> = Effect.gen(function* () {
  const states = yield* Ref.make(HashMap.empty<string, EgressState>())
  const stateOf = (all: HashMap.HashMap<string, EgressState>, egress: string) =>
    Option.getOrElse(HashMap.get(all, egress), () => freshEgress)
  return EgressBudget.of({
    reserve: (egress: string, rate: EgressRate) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(states, (all) => {
          const { waitMs, state } = reserveEgress(stateOf(all, egress), rate, now)
          return [Duration.millis(waitMs), HashMap.set(all, egress, state)] as const
        })
      ),
    pushBack: (egress: string, rate: EgressRate) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(states, (all) => HashMap.set(all, egress, pushBackEgress(stateOf(all, egress), rate, now)))
      ),
    strikes: (egress: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(Ref.get(states), (all) => egressStrikesAt(stateOf(all, egress), now))
      )
  })
})

export const budgetLayer: Layer.Layer<EgressBudget> = Layer.effect(EgressBudget, makeBudget)

interface CacheEntry {
  readonly value: string
  readonly expiresAt: number
}

export const makeCache = (capacity: number): Effect.Effect<SharedCache["Type"]> =>
  Effect.sync(() => {
    // Insertion-ordered: the first key is the oldest. Only this closure touches it, synchronously.
    const entries = new Map<string, CacheEntry>()
    return SharedCache.of({
      get: (key) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const entry = entries.get(key)
          if (entry === undefined) return Option.none()
          if (entry.expiresAt <= now) {
            entries.delete(key)
            return Option.none()
          }
          return Option.some(entry.value)
        }),
      set: (key, value, ttl) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const ms = Duration.toMillis(ttl)
          if (ms <= 0) return
          entries.delete(key)
          entries.set(key, { value, expiresAt: now + ms })
          while (entries.size > capacity) {
            const oldest = entries.keys().next()
            if (oldest.done === true) break
            entries.delete(oldest.value)
          }
        })
    })
  })

export const cacheLayer = (capacity: number): Layer.Layer<SharedCache> =>
  Layer.effect(SharedCache, makeCache(capacity))
