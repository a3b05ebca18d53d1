/**
 * The ASR estimate of POST /transcribe/estimate and of a `requires_asr_confirmation` quote,
 * with the spec's field names.
 *
 * - `duration_seconds` is the whole seconds billed (the input rounded up), or null when unknown.
 * - `duration_minutes` is those seconds / 60 rounded half-up to 2 decimals, or null when unknown.
 * - An unknown duration (null) estimates 0 credits with both durations null and
 *   `exceeds_max_duration` false: nothing can be quoted, so nothing is claimed.
 * - A duration over `max_duration_minutes` (480) is still priced, with `exceeds_max_duration`
 *   true; such videos are not sent to ASR (DESIGN decision 2). Exactly 480 minutes does not exceed.
 */
import { Schema } from "effect"
import type { AddOn } from "../asr/add-on.js"
import { Credits } from "../credits.js"
import { maxAsrDurationMinutes, maxAsrDurationSeconds } from "../plan/limits.js"
import { asrPrice } from "./asr.js"
import { billableSeconds } from "./duration.js"

export interface EstimateInput {
  readonly durationSeconds: number | null
  readonly addOns: ReadonlyArray<AddOn>
}

export const AsrEstimate = Schema.Struct({
  base_credits: Credits,
  addon_credits: Credits,
  estimated_credits: Credits,
  duration_seconds: Schema.NullOr(Schema.NonNegativeInt),
  duration_minutes: Schema.NullOr(Schema.NonNegative),
  max_duration_minutes: Schema.Int.pipe(Schema.positive()),
  exceeds_max_duration: Schema.Boolean
}).annotations({ identifier: "AsrEstimate" })
export type AsrEstimate = typeof AsrEstimate.Type

/** Whole seconds as minutes, rounded half-up to 2 decimals: round(100 s / 60) / 100, in integers. */
export const durationMinutes = (seconds: number): number => {
  const whole = billableSeconds(seconds)
  // round(5 × whole / 3) = floor((10 × whole + 3) / 6)
  return Math.floor((10 * whole + 3) / 6) / 100
}

/** Whether a duration is too long for ASR: strictly more than 480 minutes. */
export const exceedsMaxDuration = (seconds: number): boolean =>
  billableSeconds(seconds) > maxAsrDurationSeconds

export const estimate = (input: EstimateInput): AsrEstimate => {
  if (input.durationSeconds === null) {
    return {
      base_credits: 0,
      addon_credits: 0,
      estimated_credits: 0,
      duration_seconds: null,
      duration_minutes: null,
      max_duration_minutes: maxAsrDurationMinutes,
      exceeds_max_duration: false
    }
  }
  const price = asrPrice(input.durationSeconds, input.addOns)
  return {
    base_credits: price.baseCredits,
    addon_credits: price.addOnCredits,
    estimated_credits: price.totalCredits,
    duration_seconds: price.seconds,
    duration_minutes: durationMinutes(price.seconds),
    max_duration_minutes: maxAsrDurationMinutes,
    exceeds_max_duration: price.seconds > maxAsrDurationSeconds
  }
}
