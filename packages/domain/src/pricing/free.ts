/**
 * The operations that never cost credits: the spec's "Recommendations, estimate, themes GET: Free",
 * and the ASR quote of a `requires_asr_confirmation` answer (DESIGN decision 1).
 */
import { Schema } from "effect"
import type { Credits } from "../credits.js"

export const FreeItem = Schema.Literal("recommendations", "estimate", "themes_get", "asr_quote").annotations({
  identifier: "FreeItem",
  description: "An operation that is never charged"
})
export type FreeItem = typeof FreeItem.Type

export const freeItems: ReadonlyArray<FreeItem> = FreeItem.literals

export const freeItemCredits: { readonly [I in FreeItem]: Credits } = {
  recommendations: 0,
  estimate: 0,
  themes_get: 0,
  asr_quote: 0
}
