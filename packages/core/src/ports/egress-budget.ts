/**
 * One request budget per egress (each proxy, or the machine's own address) for a video platform,
 * shared by every process that sends from it: the fleet, not each process, keeps to the platform's
 * pace. In memory for one process; in Redis when many servers and workers share an egress.
 *
 * The rule (`reserve` and `pushBack` below, pure; both implementations apply exactly these):
 *
 * - Pace: a request may start every `1000 / ratePerSecond` ms, with up to `burst` starting at once
 *   after a quiet spell (the generic cell rate algorithm: a "theoretical arrival time" `tat`). A
 *   request is never refused: it is given the time to wait before it starts, and that slot is its.
 * - Push-back: when the platform answers an egress with a rate limit, a bot check or a block, the
 *   egress takes a strike: each strike doubles its interval (halves its rate), up to `maxStrikes`,
 *   and the next request waits at least one (new) interval. Strikes last `cooldownMs` after the
 *   latest push-back, then the egress is back to its full rate at once.
 * - Collapse: an egress with `collapseAt` strikes or more is collapsed: callers with another egress
 *   (another proxy) skip it until its strikes expire.
 */
import { Context, type Duration, type Effect } from "effect"

export interface EgressRate {
  /** Requests that may start per second, over time. */
  readonly ratePerSecond: number
  /** Requests that may start at once after a quiet spell (at least 1). */
  readonly burst: number
}

/** How push-backs slow an egress down (see the module comment). */
export const egressBackoff = {
  /** How long strikes last after the latest push-back. */
  cooldownMs: 5 * 60_000,
  /** At most this many strikes: the rate never falls below 1/32 of the setting. */
  maxStrikes: 5,
  /** Strikes at which an egress is skipped by callers that have another. */
  collapseAt: 3
} as const

/** What is kept per egress. All times in ms since the epoch, integers. */
export interface EgressState {
  /** The theoretical arrival time: when the pace would let the next request start with no burst. */
  readonly tat: number
  readonly strikes: number
  /** When the strikes expire (0: none). */
  readonly strikesUntil: number
}

export const freshEgress: EgressState = { tat: 0, strikes: 0, strikesUntil: 0 }

/** The strikes in force at `now`. */
export const egressStrikesAt = (state: EgressState, now: number): number =>
  now < state.strikesUntil ? state.strikes : 0

/** The interval between two starts under `strikes`, in whole ms (at least 1). */
export const egressIntervalMs = (rate: EgressRate, strikes: number): number =>
  Math.max(1, Math.ceil(1000 / rate.ratePerSecond)) * 2 ** strikes

/**
 * Reserves the next start for a request arriving at `now`: how long it waits, and the state after.
 * A request starts at `max(now, tat - (burst - 1) * interval)`; the next `tat` is `max(tat, now) + interval`.
 */
export const reserveEgress = (
  state: EgressState,
  rate: EgressRate,
  now: number
): { readonly waitMs: number; readonly state: EgressState } => {
  const strikes = egressStrikesAt(state, now)
  const interval = egressIntervalMs(rate, strikes)
  const tolerance = (Math.max(1, Math.floor(rate.burst)) - 1) * interval
  const start = Math.max(now, state.tat - tolerance)
  return {
    waitMs: start - now,
    state: {
      tat: Math.max(state.tat, now) + interval,
      strikes,
      strikesUntil: strikes === 0 ? 0 : state.strikesUntil
    }
  }
}

/** A push-back at `now`: one more strike (at most `maxStrikes`), and no start before one new interval. */
export const pushBackEgress = (state: EgressState, rate: EgressRate, now: number): EgressState => {
  const strikes = Math.min(egressBackoff.maxStrikes, egressStrikesAt(state, now) + 1)
  return {
    tat: Math.max(state.tat, now + egressIntervalMs(rate, strikes)),
    strikes,
    strikesUntil: now + egressBackoff.cooldownMs
  }
}

export class EgressBudget extends Context.Tag("@verbatim/core/EgressBudget")<
  EgressBudget,
  {
    /** How long a request from `egress` waits before it starts; the slot is reserved for it. */
    readonly reserve: (egress: string, rate: EgressRate) => Effect.Effect<Duration.Duration>
    /** The platform pushed back on `egress` (rate limit, bot check, block): one strike. */
    readonly pushBack: (egress: string, rate: EgressRate) => Effect.Effect<void>
    /** The strikes `egress` has now (compare with `egressBackoff.collapseAt`). */
    readonly strikes: (egress: string) => Effect.Effect<number>
  }
>() {}
