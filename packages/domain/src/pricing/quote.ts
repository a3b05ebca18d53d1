/**
 * A quote from ASR options as a caller sends them: the options are decoded (defaults applied),
 * normalised to those that will really apply, and priced, so a quote charges only for add-ons
 * that apply. This is what POST /transcribe/estimate and a `requires_asr_confirmation` answer show.
 */
import { Either, type ParseResult, Schema } from "effect"
import type { AddOn } from "../asr/add-on.js"
import { type AsrOptionsError, type IgnoredOption, normalise } from "../asr/normalise.js"
import { AsrOptions } from "../asr/options.js"
import { type AsrEstimate, estimate } from "./estimate.js"

export interface Quote extends AsrEstimate {
  /** The add-ons charged. */
  readonly add_ons: ReadonlyArray<AddOn>
  /** Requested options that will not apply, and why (they are not charged). */
  readonly ignored: ReadonlyArray<IgnoredOption>
}

/** The encoded form of `asr_options`: any subset of the fields, as a caller sends them. */
export type AsrOptionsInput = typeof AsrOptions.Encoded

/**
 * Prices ASR of `durationSeconds` (null when unknown) with the given options.
 * Fails with the decode error or the normalisation error when the options are invalid.
 */
export const quote = (
  durationSeconds: number | null,
  options: AsrOptionsInput | AsrOptions = {}
): Either.Either<Quote, ParseResult.ParseError | AsrOptionsError> =>
  (options instanceof AsrOptions ? Either.right(options) : Schema.decodeEither(AsrOptions)(options)).pipe(
    Either.flatMap(normalise),
    Either.map((effective) => ({
      ...estimate({ durationSeconds, addOns: effective.billable }),
      add_ons: effective.billable,
      ignored: effective.ignored
    }))
  )
