/**
 * Translation of a stored transcript: 1 credit per 2,500 characters of the text translated,
 * rounded up (so any non-empty text costs at least 1, an empty text 0), and 0 when the account
 * already owns the translation. Characters are Unicode code points, not UTF-16 units, so a
 * character outside the Basic Multilingual Plane (emoji, rare CJK) counts once.
 */
import type { Credits } from "../credits.js"
import { charactersPerTranslationCredit } from "./rates.js"
import { ceilDiv } from "./rational.js"

/** The characters of a text as translation counts them: Unicode code points. */
export const translationCharacters = (text: string): number => {
  let n = 0
  for (const _ of text) n++
  return n
}

export interface TranslationQuote {
  /** Characters of the text to translate (a non-negative integer; fractions round up). */
  readonly characters: number
  /** The account already owns this translation. */
  readonly owned: boolean
}

export const translationCredits = (quote: TranslationQuote): Credits => {
  if (quote.owned || !(quote.characters > 0)) return 0
  return ceilDiv(
    Math.ceil(Math.min(quote.characters, Number.MAX_SAFE_INTEGER)),
    charactersPerTranslationCredit
  )
}

/** The credits to translate a text. */
export const translationCreditsForText = (text: string, owned: boolean): Credits =>
  translationCredits({ characters: translationCharacters(text), owned })
