/**
 * What the shell tells the pages about the session (`<meta name="verbatim-session">`): written by
 * the server (`pages.ts`), read by the pages (`ui/session.ts`), which import this type only.
 */
import type { Plan } from "@verbatim/domain"

/** What the shell tells the pages about the session (`<meta name="verbatim-session">`). */
export interface SessionInfo {
  readonly account: { readonly id: string; readonly name: string; readonly plan: string }
  readonly limits: Plan.PlanLimits
  readonly csrfToken: string
  /** The domain's price rules the pages quote before anything is charged. */
  readonly pricing: {
    readonly charactersPerTranslationCredit: number
    readonly secondsPerAsrCredit: number
    readonly captionCreditsPerTranscript: number
  }
  /** The service's own origin: signed upload URLs that start with it are sent to the page's origin. */
  readonly serviceOrigin: string
}
