/**
 * What the server put in the page (`<meta name="verbatim-session">`, see `../pages.ts`): the
 * account, its plan's limits, the CSRF token and the price rules. Read once.
 */
import type { SessionInfo } from "../session-info.js"
/** The session as the server describes it (`SessionInfo`: a type only, nothing of the server's code). */
export type Session = SessionInfo

const meta = document.querySelector<HTMLMetaElement>('meta[name="verbatim-session"]')

export const session: Session = JSON.parse(meta?.content ?? "null") as Session
