/**
 * What each plan may do (spec, "Limits"): sustained request rate and its burst, batch size,
 * channel resolve cap per request and channel jobs per month.
 *
 * - `burst` is the token bucket's capacity: one second of the rate and at least 2 requests
 *   (DESIGN decision 10), so free = 2, basic = 25, pro = 50, business = 100.
 * - `channelResolveCap` is 0 on the free plan, which cannot resolve channels at all.
 * - `channelJobsPerMonth` is `null` for unlimited (business); free is 0. The month is the
 *   calendar month in UTC (`channelJobMonth`).
 */
import { Option, Schema } from "effect"
import type { Plan } from "./plan.js"

export const PlanLimits = Schema.Struct({
  requestsPerSecond: Schema.Int.pipe(Schema.positive()),
  burst: Schema.Int.pipe(Schema.greaterThanOrEqualTo(2)),
  batchSize: Schema.Int.pipe(Schema.positive()),
  channelResolveCap: Schema.NonNegativeInt,
  channelJobsPerMonth: Schema.NullOr(Schema.NonNegativeInt)
}).annotations({ identifier: "PlanLimits" })
export type PlanLimits = typeof PlanLimits.Type

/** The smallest bucket capacity, whatever the rate. */
export const minBurst = 2

/** The bucket capacity for a rate: one second of it, and at least `minBurst` requests. */
export const burstFor = (requestsPerSecond: number): number => Math.max(requestsPerSecond, minBurst)

const limits = (
  requestsPerSecond: number,
  batchSize: number,
  channelResolveCap: number,
  channelJobsPerMonth: number | null
): PlanLimits => ({
  requestsPerSecond,
  burst: burstFor(requestsPerSecond),
  batchSize,
  channelResolveCap,
  channelJobsPerMonth
})

export const planLimits: { readonly [P in Plan]: PlanLimits } = {
  free: limits(1, 10, 0, 0),
  basic: limits(25, 500, 500, 3),
  pro: limits(50, 1500, 1500, 8),
  business: limits(100, 3000, 3000, null)
}

export const limitsFor = (plan: Plan): PlanLimits => planLimits[plan]

/** A batch of `n` videos is allowed when it holds at least one video and at most the plan's batch size. */
export const batchSizeAllowed = (plan: Plan, n: number): boolean =>
  Number.isInteger(n) && n >= 1 && n <= planLimits[plan].batchSize

/**
 * How many videos a channel resolve lists: the requested limit (default: the plan's maximum),
 * capped by the plan's maximum and raised to at least 1. `None` when the plan cannot resolve channels.
 */
export const channelResolveLimit = (plan: Plan, requested?: number): Option.Option<number> => {
  const cap = planLimits[plan].channelResolveCap
  if (cap < 1) return Option.none()
  if (requested === undefined || Number.isNaN(requested)) return Option.some(cap)
  return Option.some(Math.min(cap, Math.max(1, Math.floor(requested))))
}

/** Whether one more channel job may start this month, given how many were already counted. */
export const withinMonthlyChannelJobs = (plan: Plan, used: number): boolean => {
  const cap = planLimits[plan].channelJobsPerMonth
  return cap === null || used < cap
}

/** Channel jobs left this month: `None` means unlimited. */
export const remainingChannelJobs = (plan: Plan, used: number): Option.Option<number> => {
  const cap = planLimits[plan].channelJobsPerMonth
  return cap === null ? Option.none() : Option.some(Math.max(0, cap - Math.max(0, used)))
}

/** The period the monthly channel-job cap counts in: the calendar month in UTC, as `YYYY-MM`. */
export const channelJobMonth = (nowMs: number): string => {
  const date = new Date(nowMs)
  const month = String(date.getUTCMonth() + 1).padStart(2, "0")
  return `${String(date.getUTCFullYear()).padStart(4, "0")}-${month}`
}

/**
 * What one account may hold of uploads at a time (no spec figure; ours): `inFlight` uploads not yet
 * transcribed (registered or uploaded, still usable), and `bytesStored`, the declared sizes of every
 * upload whose file the store still keeps or may still receive. Each plan can hold at least one upload
 * of the largest size (`maxUploadSizeBytes`, 2 GiB).
 */
export interface UploadQuota {
  readonly inFlight: number
  readonly bytesStored: number
}

const gib = 1024 * 1024 * 1024

export const uploadQuotas: { readonly [P in Plan]: UploadQuota } = {
  free: { inFlight: 2, bytesStored: 2 * gib },
  basic: { inFlight: 20, bytesStored: 20 * gib },
  pro: { inFlight: 100, bytesStored: 50 * gib },
  business: { inFlight: 200, bytesStored: 200 * gib }
}

export const uploadQuotaFor = (plan: Plan): UploadQuota => uploadQuotas[plan]

/** What an account holds of uploads now. */
export interface UploadUsage {
  readonly inFlight: number
  readonly bytesStored: number
}

/** Which quota one more upload of `sizeBytes` would pass, if any (the count first). */
export const uploadQuotaExceeded = (
  quota: UploadQuota,
  usage: UploadUsage,
  sizeBytes: number
): "in_flight" | "bytes_stored" | undefined =>
  usage.inFlight + 1 > quota.inFlight
    ? "in_flight"
    : usage.bytesStored + sizeBytes > quota.bytesStored
      ? "bytes_stored"
      : undefined
