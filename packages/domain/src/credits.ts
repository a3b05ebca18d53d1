/**
 * Credits, the service's money. Every amount Verbatim computes is a whole, non-negative
 * number of credits (see docs/decisions.md, "Pricing"), so balances and ledgers stay exact.
 */
import { Schema } from "effect"

export const Credits = Schema.NonNegativeInt.annotations({
  identifier: "Credits",
  description: "A whole, non-negative number of credits"
})
export type Credits = typeof Credits.Type
