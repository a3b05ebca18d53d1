/**
 * When a webhook delivery is tried again, and which answers end it. The schedule follows Standard
 * Webhooks / Svix: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (8 attempts
 * over about 27.6 hours), each wait spread by ±10% jitter so deliveries that failed together do
 * not come back together. The schedule is a value: settings (and tests, in milliseconds) replace it.
 *
 * Retried: no answer (timeout, refused or reset connection, DNS or TLS failure), 408, 429 and 5xx.
 * Delivered: 2xx. Final: every other answer, 3xx included (redirects are not followed, so a
 * redirect is the receiver's answer), and a delivery refused by the address rules.
 */
import { Either, Option, Schema } from "effect"

/** A retry schedule: the wait before each attempt (the first is usually 0) and the jitter fraction. */
export const RetrySchedule = Schema.Struct({
  /** `delaysMs[i]` is the wait before attempt `i + 1`; its length is the number of attempts. */
  delaysMs: Schema.NonEmptyArray(Schema.Int.pipe(Schema.nonNegative())),
  /** Each wait is spread uniformly over `delay × (1 ± jitter)`. */
  jitter: Schema.Number.pipe(Schema.between(0, 1))
})
export type RetrySchedule = typeof RetrySchedule.Type

const second = 1000
const minute = 60 * second
const hour = 60 * minute

/** The default: Standard Webhooks / Svix timing. */
export const standardSchedule: RetrySchedule = {
  delaysMs: [0, 5 * second, 5 * minute, 30 * minute, 2 * hour, 5 * hour, 10 * hour, 10 * hour],
  jitter: 0.1
}

/**
 * How long one attempt may take, from resolving the name to the answer's head (Svix's figure):
 * long enough for a receiver that does real work before answering, short enough that a stuck
 * receiver does not hold a worker.
 */
export const defaultTimeoutMs = 15_000

/** How many attempts the schedule makes. */
export const attempts = (schedule: RetrySchedule): number => schedule.delaysMs.length

/** The sum of the waits without jitter: from the first attempt's due time to the last's. */
export const span = (schedule: RetrySchedule): number => schedule.delaysMs.reduce((sum, d) => sum + d, 0)

/**
 * The wait in milliseconds before attempt `attempt` (1-based), with `random` in [0, 1) placing it
 * in the jitter band (0.5 is the nominal wait); `none` past the last attempt.
 */
export const delayBefore = (
  schedule: RetrySchedule,
  attempt: number,
  random: number
): Option.Option<number> => {
  const nominal = schedule.delaysMs[attempt - 1]
  if (nominal === undefined || !Number.isInteger(attempt) || attempt < 1) return Option.none()
  const r = Number.isFinite(random) ? Math.min(Math.max(random, 0), 1) : 0.5
  return Option.some(Math.max(0, Math.round(nominal * (1 + schedule.jitter * (2 * r - 1)))))
}

/** What an attempt came to, as far as retrying goes (the `WebhookOutcome` of core fits it). */
export type AttemptResult =
  | { readonly _tag: "Answered"; readonly status: number }
  | { readonly _tag: "Unreachable" }
  | { readonly _tag: "Refused" }

/** How an attempt's result counts. */
export type Verdict = "delivered" | "retryable" | "final"

/** Statuses that say "try later": request timeout, too many requests, and every server error. */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status <= 599)

export const verdict = (result: AttemptResult): Verdict => {
  switch (result._tag) {
    case "Answered":
      return result.status >= 200 && result.status <= 299
        ? "delivered"
        : isRetryableStatus(result.status)
          ? "retryable"
          : "final"
    case "Unreachable":
      return "retryable"
    case "Refused":
      return "final"
  }
}

/** What to do after attempt number `attempt` (1-based) came to `result`. */
export type Next =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "RetryIn"; readonly delayMs: number; readonly attempt: number }
  | { readonly _tag: "GiveUp"; readonly reason: "final_answer" | "refused" | "attempts_exhausted" }

/**
 * The decision after an attempt: delivered, try again after a jittered wait (`random` in [0, 1)),
 * or give up (a final answer, a refused address, or no attempt left).
 */
export const next = (
  schedule: RetrySchedule,
  attempt: number,
  result: AttemptResult,
  random: number
): Next => {
  switch (verdict(result)) {
    case "delivered":
      return { _tag: "Delivered" }
    case "final":
      return { _tag: "GiveUp", reason: result._tag === "Refused" ? "refused" : "final_answer" }
    case "retryable":
      return Option.match(delayBefore(schedule, attempt + 1, random), {
        onNone: () => ({ _tag: "GiveUp", reason: "attempts_exhausted" }),
        onSome: (delayMs) => ({ _tag: "RetryIn", delayMs, attempt: attempt + 1 })
      })
  }
}

/**
 * A schedule from a setting: waits separated by commas, each a whole number with a unit (`ms`,
 * `s`, `m`, `h`), e.g. `0,5s,5m,30m,2h,5h,10h,10h`; the jitter is kept from `base`.
 */
export const parseSchedule = (
  setting: string,
  base: RetrySchedule = standardSchedule
): Either.Either<RetrySchedule, string> => {
  const units: Record<string, number> = { ms: 1, s: second, m: minute, h: hour }
  const delays: Array<number> = []
  for (const raw of setting.split(",")) {
    const match = /^\s*(\d{1,9})\s*(ms|s|m|h)?\s*$/.exec(raw)
    const amount = match?.[1]
    if (amount === undefined)
      return Either.left(`"${raw.trim()}" is not a wait such as 0, 500ms, 5s, 5m or 2h`)
    delays.push(Number(amount) * (units[match?.[2] ?? "ms"] ?? 1))
  }
  const [first, ...rest] = delays
  if (first === undefined) return Either.left("the schedule needs at least one attempt")
  return Either.right({ delaysMs: [first, ...rest], jitter: base.jitter })
}
