/**
 * The price of an ASR transcription: a base per 90 seconds plus an add-on surcharge per hour,
 * exact and explained.
 *
 * - seconds = `billableSeconds(duration)` (fractions rounded up to a whole second)
 * - base    = ceil(seconds / 90)                        (0 s costs 0; any positive duration at least 1)
 * - addon   = ceil(sumOfRates × seconds / 3600)         (rounded up ONCE for all add-ons together)
 * - total   = base + addon
 *
 * The breakdown gives each distinct add-on's exact share (rate × seconds / 3600, a reduced
 * fraction); the shares add up exactly to the surcharge before rounding.
 */
import type { AddOn } from "../asr/add-on.js"
import type { Credits } from "../credits.js"
import { billableSeconds } from "./duration.js"
import {
  addOnCreditsPerHour,
  addOnRatePerHour,
  distinctAddOns,
  secondsPerAsrCredit,
  secondsPerHour
} from "./rates.js"
import * as R from "./rational.js"

export interface AddOnLine {
  readonly addOn: AddOn
  readonly creditsPerHour: number
  /** Exactly `creditsPerHour × seconds / 3600` credits, before rounding. */
  readonly share: R.Rational
}

export interface AddOnBreakdown {
  /** The whole seconds billed. */
  readonly seconds: number
  /** One line per distinct add-on, in canonical order. */
  readonly lines: ReadonlyArray<AddOnLine>
  /** The summed hourly rate of the lines. */
  readonly creditsPerHour: number
  /** The exact surcharge: the sum of the shares. */
  readonly exact: R.Rational
  /** The surcharge charged: `exact` rounded up once. */
  readonly credits: Credits
}

export interface AsrPrice {
  readonly seconds: number
  /** Exactly `seconds / 90` credits, before rounding. */
  readonly baseExact: R.Rational
  readonly baseCredits: Credits
  readonly addOns: AddOnBreakdown
  readonly addOnCredits: Credits
  readonly totalCredits: Credits
}

/** ASR base credits for a duration in seconds: ceil(whole seconds / 90). */
export const asrBaseCredits = (durationSeconds: number): Credits =>
  R.ceilDiv(billableSeconds(durationSeconds), secondsPerAsrCredit)

/** The add-on surcharge: ceil(sum of the distinct add-ons' hourly rates × whole seconds / 3600). */
export const addOnCredits = (durationSeconds: number, addOns: ReadonlyArray<AddOn>): Credits =>
  R.ceilDiv(addOnRatePerHour(addOns) * billableSeconds(durationSeconds), secondsPerHour)

/** The surcharge with each distinct add-on's exact share. */
export const addOnBreakdown = (durationSeconds: number, addOns: ReadonlyArray<AddOn>): AddOnBreakdown => {
  const seconds = billableSeconds(durationSeconds)
  const lines = distinctAddOns(addOns).map((addOn) => ({
    addOn,
    creditsPerHour: addOnCreditsPerHour[addOn],
    share: R.rational(addOnCreditsPerHour[addOn] * seconds, secondsPerHour)
  }))
  const exact = R.sum(lines.map((line) => line.share))
  return {
    seconds,
    lines,
    creditsPerHour: lines.reduce((total, line) => total + line.creditsPerHour, 0),
    exact,
    credits: R.ceil(exact)
  }
}

/** The full ASR price of a duration with a set of add-ons. */
export const asrPrice = (durationSeconds: number, addOns: ReadonlyArray<AddOn>): AsrPrice => {
  const seconds = billableSeconds(durationSeconds)
  const baseExact = R.rational(seconds, secondsPerAsrCredit)
  const breakdown = addOnBreakdown(seconds, addOns)
  const baseCredits = R.ceil(baseExact)
  return {
    seconds,
    baseExact,
    baseCredits,
    addOns: breakdown,
    addOnCredits: breakdown.credits,
    totalCredits: baseCredits + breakdown.credits
  }
}

/** ASR credits in total: base + add-on surcharge. */
export const asrCredits = (durationSeconds: number, addOns: ReadonlyArray<AddOn>): Credits =>
  asrBaseCredits(durationSeconds) + addOnCredits(durationSeconds, addOns)

/** The price in words, one line per part, for quotes, ledgers and support. */
export const explainAsrPrice = (price: AsrPrice): ReadonlyArray<string> => [
  `ASR base: ${price.seconds} s at 1 credit per ${secondsPerAsrCredit} s = ${R.format(price.baseExact)}, rounded up to ${price.baseCredits}`,
  ...price.addOns.lines.map(
    (line) =>
      `${line.addOn}: ${line.creditsPerHour} credits/hour × ${price.seconds} s = ${R.format(line.share)}`
  ),
  `add-ons: ${price.addOns.creditsPerHour} credits/hour × ${price.seconds} s = ${R.format(price.addOns.exact)}, rounded up to ${price.addOnCredits}`,
  `total: ${price.baseCredits} + ${price.addOnCredits} = ${price.totalCredits} credits`
]
