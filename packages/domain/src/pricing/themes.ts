/**
 * Themes: 1 credit per transcript, charged once; 0 once unlocked (repeats and GET are free) and 0
 * for transcripts too short to analyse, which get empty themes. "Too short" means fewer than
 * `minThemesWords` words. A refund on failed detection is the ledger's business, not a price.
 */
import type { Credits } from "../credits.js"
import { themesCreditsPerTranscript } from "./rates.js"

/** A transcript with fewer words than this is too short to analyse: empty themes, 0 credits. */
export const minThemesWords = 50

export const isTooShortForThemes = (wordCount: number): boolean => !(wordCount >= minThemesWords)

export interface ThemesQuote {
  readonly wordCount: number
  /** Themes already unlocked for this transcript by this account. */
  readonly unlocked: boolean
}

/** What POST themes charges (and what GET reports as `credits_required` while locked). */
export const themesCredits = (quote: ThemesQuote): Credits =>
  quote.unlocked || isTooShortForThemes(quote.wordCount) ? 0 : themesCreditsPerTranscript
