/**
 * Credits, the service's money. Every amount Verbatim computes is a whole, non-negative
 * number of credits (see docs/decisions/domain.md, "Pricing"), so balances and ledgers stay exact.
 */
import { Schema } from "effect"

export const Credits = Schema.NonNegativeInt.annotations({
  identifier: "Credits",
  description: "A whole, non-negative number of credits"
})
export type Credits = typeof Credits.Type

/**
 * The largest balance an account may hold: 2^53 - 1, the largest whole number a JSON number (and a
 * JavaScript one) carries exactly. Grants that would take a balance past it are refused.
 */
export const maxBalance = Number.MAX_SAFE_INTEGER

/** How many credits may still be granted to a balance without passing `maxBalance`. */
export const grantableTo = (balance: number): number => Math.max(0, maxBalance - balance)
