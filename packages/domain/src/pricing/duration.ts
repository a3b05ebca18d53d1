/**
 * Durations as pricing sees them. A duration is a finite number of seconds from 0 to
 * `maxPricedSeconds`; fractional seconds are rounded UP to a whole second before any price is
 * computed (`billableSeconds`), so 0.2 s is billed as 1 s and 90.5 s as 91 s.
 *
 * `billableSeconds` is total: NaN and negative values count as 0 and anything above the cap
 * (infinity included) as the cap, about 31,700 years — far beyond any video, and low enough
 * that every product in the price stays an exact integer below 2^53.
 */
import { Schema } from "effect"

/** The longest duration pricing distinguishes (10^12 seconds). */
export const maxPricedSeconds = 1_000_000_000_000

export const DurationSeconds = Schema.Number.pipe(
  Schema.finite(),
  Schema.between(0, maxPricedSeconds)
).annotations({
  identifier: "DurationSeconds",
  description: "A duration in seconds, possibly fractional"
})
export type DurationSeconds = typeof DurationSeconds.Type

/** The whole seconds a duration is billed for: rounded up, clamped to 0..`maxPricedSeconds`. */
export const billableSeconds = (seconds: number): number => {
  if (!(seconds > 0)) return 0
  if (seconds >= maxPricedSeconds) return maxPricedSeconds
  return Math.ceil(seconds)
}
