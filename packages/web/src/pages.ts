/**
 * The HTML the server writes: the pages' shell (the same for every page of the library: the bundle
 * draws the page from the URL) and the sign-in page, which works without JavaScript.
 *
 * - Every page is sent with a strict Content-Security-Policy: scripts and styles only from this
 *   origin (no inline script or style, no eval), no plugins, no framing, forms and connections only
 *   to this origin. Untrusted text (captions, titles) is only ever set as text by the bundle; what
 *   the server writes into HTML is escaped (`escapeHtml`).
 * - The shell carries what the pages need before their first request, in one `<meta>` element:
 *   the account (name, id, plan and its limits), the session's CSRF token, the price rules the pages
 *   quote and the service's origin. So a page shows the user's data after one round trip (its own
 *   request to the API), never a chain of them.
 * - No page is cached (`no-store`): the shell holds the CSRF token, and a signed-out browser must
 *   not show an earlier page.
 */
import type { WebSession } from "@verbatim/core"
import { Plan, Pricing } from "@verbatim/domain"
import type { Assets } from "./assets.js"
import type { SessionInfo } from "./session-info.js"

export type { SessionInfo } from "./session-info.js"

export const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c
  )

/** The Content-Security-Policy of every page. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  // An upload's duration is read by the browser from the file itself (a blob: URL).
  "media-src blob:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'"
].join("; ")

/** The headers of every page. */
export const pageHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": contentSecurityPolicy,
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()"
}

export const sessionInfo = (session: WebSession, serviceUrl: string): SessionInfo => ({
  account: { id: session.account.id, name: session.account.name, plan: session.account.plan },
  limits: Plan.limitsFor(session.account.plan),
  csrfToken: session.csrfToken,
  pricing: {
    charactersPerTranslationCredit: Pricing.charactersPerTranslationCredit,
    secondsPerAsrCredit: Pricing.secondsPerAsrCredit,
    captionCreditsPerTranscript: Pricing.captionCreditsPerTranscript
  },
  serviceOrigin: new URL(serviceUrl).origin
})

const head = (title: string, assets: Assets | undefined, withScript: boolean, extra = "") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title>${
    assets === undefined
      ? ""
      : `<link rel="stylesheet" href="/web/${assets.style.name}">${withScript ? `<script type="module" src="/web/${assets.script.name}"></script>` : ""}`
  }${extra}</head>`

const notBuilt = `<main class="narrow"><h1>Verbatim</h1><p>The web library's pages are not built on this server. Build them with <code>node scripts/bundle.mjs web</code> (or <code>pnpm install</code>) and start the server again; the API at <code>/api/v2</code> works meanwhile.</p></main>`

/** The shell of every page of the library, for a signed-in session. */
export const shellPage = (assets: Assets | undefined, info: SessionInfo): string =>
  `${head(
    "Verbatim",
    assets,
    true,
    `<meta name="verbatim-session" content="${escapeHtml(JSON.stringify(info))}">`
  )}<body>${assets === undefined ? notBuilt : `<div id="app"><p class="loading">Loading your library…</p></div><noscript><p>The library needs JavaScript. The API works without it: <a href="/docs">/docs</a>.</p></noscript>`}</body></html>`

/** The sign-in page: a form that posts the key (never in the URL) and a problem, if any. */
export const signInPage = (assets: Assets | undefined, problem?: string): string =>
  `${head("Sign in · Verbatim", assets, false)}<body><main class="narrow sign-in">
<h1>Sign in to Verbatim</h1>
<p>Your transcripts, their search, and new transcriptions, with your account's credits.</p>
${problem === undefined ? "" : `<p class="error" id="error" role="alert">${escapeHtml(problem)}</p>`}
<form method="post" action="/sign-in" class="card">
<label for="api_key">Your API key</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" required spellcheck="false" placeholder="vbt_..." aria-describedby="key-help">
<p class="muted" id="key-help">The key signs you in on this browser and is not kept by it: the server holds a session until you sign out, for at most 7 days, and ends it if the key is revoked.</p>
<button type="submit" id="sign-in" class="primary">Sign in</button>
</form>
<p class="muted">No key? Ask whoever runs this server (<code>pnpm admin keys issue</code>). The API reference is at <a href="/docs">/docs</a>.</p>
</main></body></html>`
