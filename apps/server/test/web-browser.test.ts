/**
 * The web library in a real browser (Debian's headless Chromium through playwright-core), used as a
 * new user would, on the demo platform: sign in, transcribe a video, search, open the reader, follow
 * a timestamp link, download SRT, ask for speech recognition and confirm it, upload a file by drag
 * and drop, transcribe a playlist and watch its progress, delete, sign out. A caption written with
 * markup and script renders as text; the API key appears in no page, URL or browser storage; axe-core
 * finds no serious or critical violation on any page at 375 px and 1280 px, light and dark; the first
 * page's JavaScript is measured gzipped; a three-hour transcript is drawn a page at a time. Every
 * page is kept as a screenshot at both widths in `apps/server/test-artefacts/web/`.
 *
 * On the embedded PGlite, and on PostgreSQL when DATABASE_URL is set (CI runs the server's tests on
 * both). `scripts/install-browser.sh` installs Chromium; without it the tests are skipped, saying
 * so, except under CI=true where they fail.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import AxeBuilder from "@axe-core/playwright"
import { describe, expect, layer } from "@effect/vitest"
import { AssemblyAiStandIn, standInEngine, wav } from "@verbatim/assemblyai/testing"
import { AccountAdmin } from "@verbatim/core"
import { demoPlatform } from "@verbatim/runtime"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Layer, Option } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import { webhookReceiver } from "./receiver.js"
import { TestServer, testServerOn } from "./server.js"
import {
  artefactsFolder,
  browser,
  buildPages,
  executablePath,
  hasChromium,
  hostileLines,
  hostileVideo,
  inCi,
  longSegments,
  longVideo,
  testCatalogue
} from "./web-support.js"

if (!hasChromium && !inCi) {
  process.stderr.write(
    `web library browser tests skipped: ${executablePath} is missing (bash scripts/install-browser.sh installs it)\n`
  )
}
if (hasChromium || inCi) await buildPages()

const heard = "Welcome to the library. This file was transcribed from its audio."

const serverLayer = Layer.unwrapEffect(
  Effect.map(AssemblyAiStandIn, (standIn) =>
    testServerOn({ web: true, platform: demoPlatform(testCatalogue()), speech: standInEngine(standIn) })
  )
).pipe(Layer.provideMerge(AssemblyAiStandIn.layer({ recognise: () => heard, pollsUntilDone: 1 })))

const widths = [
  { name: "375", width: 375, height: 812 },
  { name: "desktop", width: 1280, height: 900 }
] as const

/** A page that records what must never happen: a dialog, a CSP violation, an error in the page. */
const watchedPage = async (context: BrowserContext) => {
  const page = await context.newPage()
  const incidents: Array<string> = []
  page.on("dialog", (dialog) => {
    incidents.push(`dialog: ${dialog.message()}`)
    void dialog.dismiss()
  })
  page.on("pageerror", (error) => incidents.push(`page error: ${error.message}`))
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) {
      incidents.push(`console: ${message.text()}`)
    }
  })
  // Runs before the page's own script (through the browser's protocol, not as page script).
  await page.addInitScript(
    "window.__violations = []; document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective))"
  )
  return { page, incidents }
}

/** Everything the browser keeps for the page's origin, as text. */
const storageOf = async (page: Page, context: BrowserContext): Promise<string> => {
  const inPage = await page.evaluate<string>(
    "[localStorage, sessionStorage].map((s) => Object.keys(s).map((k) => k + '=' + s.getItem(k)).join('\\n')).join('\\n') + '\\n' + document.cookie"
  )
  const cookies = (await context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("\n")
  const state = JSON.stringify(await context.storageState())
  return `${inPage}\n${cookies}\n${state}`
}

layer(serverLayer, { timeout: "180 seconds", excludeTestServices: true })(
  "the web library in a browser",
  (it) => {
    describe("headless Chromium", () => {
      it.scoped.skipIf(!hasChromium && !inCi)(
        "a new user signs in, transcribes, searches, reads, downloads, confirms speech recognition, uploads, runs a playlist, deletes and signs out",
        () =>
          Effect.gen(function* () {
            expect(hasChromium, `${executablePath} is missing under CI=true`).toBe(true)
            const server = yield* TestServer
            const { key } = yield* server.newAccount({
              name: "Ada's <b>library</b>",
              plan: "pro",
              credits: 200
            })
            const receiver = yield* webhookReceiver()
            const chromium = yield* browser
            const context = yield* Effect.promise(() =>
              chromium.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
            )
            // No internet here: the video platform's page is answered by the test.
            yield* Effect.promise(() =>
              context.route("https://www.youtube.com/**", (route) =>
                route.fulfill({ status: 200, contentType: "text/html", body: "<title>video</title>" })
              )
            )
            yield* Effect.promise(() =>
              context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.baseUrl })
            )
            const { page, incidents } = yield* Effect.promise(() => watchedPage(context))
            const seen: Array<{ readonly url: string; readonly html: string }> = []
            const look = async () => {
              seen.push({ url: page.url(), html: await page.content() })
            }

            const journey = yield* Effect.promise(async () => {
              // The library asks for a sign-in first.
              await page.goto(`${server.baseUrl}/`)
              expect(new URL(page.url()).pathname).toBe("/sign-in")
              await page.fill("#api_key", "vbt_not_a_real_key_000000000000000000000000")
              await page.click("#sign-in")
              const refused = await page.textContent("#error")
              await look()
              await page.fill("#api_key", key)
              await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click("#sign-in")])
              await page.waitForSelector("#result-count")
              const emptyLibrary = await page.textContent("#result-count")
              const accountShown = await page.textContent(".who")
              await look()

              // Transcribe a demo video: the price first, then the transcript.
              await page.click('nav a[href="/transcribe"]')
              await page.fill("#reference", "https://youtu.be/Rt7mN0pWzYe")
              await page.click("#check")
              await page.waitForSelector("#estimate")
              const estimate = await page.textContent("#estimate")
              await page.click("#transcribe")
              await page.waitForSelector("#done")
              const done = await page.textContent("#done")
              await look()

              // The hostile video too, through the same page.
              await page.fill("#reference", hostileVideo)
              await page.click("#check")
              await page.waitForSelector("#estimate")
              await page.click("#transcribe")
              await page.waitForSelector("#done")

              // Search the library: the result with the passage and its time.
              await page.click('nav a[href="/"]')
              await page.fill("#q", "documentation")
              await page.click("#search")
              await page.waitForSelector(".snippets a.time")
              const found = await page.textContent("#result-count")
              const snippetTime = await page.textContent(".snippets a.time")
              await look()

              // Open the reader at the passage.
              await page.click(".snippets a.time")
              await page.waitForSelector("#segments li.current")
              const current = await page.textContent("#segments li.current .text")
              await look()
              // A timestamp opens the video at that moment.
              const [popup] = await Promise.all([
                page.waitForEvent("popup"),
                page.click("#segments li:nth-child(3) a.time")
              ])
              await popup.waitForLoadState()
              const videoLink = new URL(popup.url())
              await popup.close()
              const third = await page.getAttribute("#segments li:nth-child(3) a.time", "href")
              // Search within, copy, download SRT.
              await page.fill("#find", "documentation")
              const matches = await page.textContent("#match-count")
              await page.click("#copy")
              await page.waitForSelector("text=copied")
              const copied = await page.evaluate<string>("navigator.clipboard.readText()")
              const [download] = await Promise.all([
                page.waitForEvent("download"),
                page.click("#download-srt")
              ])
              const srt = readFileSync((await download.path()) ?? "", "utf8")
              await look()

              // A video without captions: speech recognition is asked for in words, with its price.
              await page.click('nav a[href="/transcribe"]')
              await page.fill("#reference", "Wv5SpkDmo1A")
              await page.click("#check")
              await page.waitForSelector("#estimate")
              await page.click("#transcribe")
              await page.waitForSelector("#asr-question")
              const question = await page.textContent("#asr-question")
              await look()
              await page.click("#confirm-asr")
              await page.waitForSelector("#done", { timeout: 60_000 })
              const asrDone = await page.textContent("#done")

              // An upload by drag and drop, with its progress, then its job.
              const bytes = Buffer.from(wav({ durationMs: 3000 })).toString("base64")
              const dataTransfer = await page.evaluateHandle(
                `(() => { const bytes = Uint8Array.from(atob("${bytes}"), (c) => c.charCodeAt(0)); const transfer = new DataTransfer(); transfer.items.add(new File([bytes], "interview.wav", { type: "audio/wav" })); return transfer })()`
              )
              await page.dispatchEvent("#drop-zone", "drop", { dataTransfer })
              await page.waitForSelector("#upload-price")
              const uploadPrice = await page.textContent("#upload-price")
              await page.fill("#webhook", receiver.url)
              await page.click("#upload")
              await page.waitForSelector("#upload-progress")
              await page.waitForSelector("#done", { timeout: 60_000 })
              const uploadProgress = await page.getAttribute("#upload-progress progress", "value")
              const uploadDone = await page.textContent("#done")
              await look()

              // A playlist: its videos and price, then the batch's progress until done.
              await page.fill("#reference", "https://www.youtube.com/playlist?list=PLnw4Tq8Zr2mBestOf2024")
              await page.click("#check")
              await page.waitForSelector("#collection")
              const collection = await page.textContent("#collection")
              await page.click("#start-batch")
              await page.waitForSelector("#batch-progress progress")
              const progressMax = await page.getAttribute("#batch-progress progress", "max")
              await page.waitForSelector("#batch-done", { timeout: 90_000 })
              const batchDone = await page.textContent("#batch-done")
              const progressEnd = await page.getAttribute("#batch-progress progress", "value")
              await look()

              // The account: credits, plan, recent jobs.
              await page.click('nav a[href="/account"]')
              await page.waitForSelector("#jobs")
              const plan = await page.textContent("#plan")
              const available = await page.textContent("#credits-available")
              await look()

              // Delete in the reader, then two at once from the library.
              await page.goto(`${server.baseUrl}/read/Rt7mN0pWzYe`)
              await page.waitForSelector("#segments li")
              await page.click("#delete")
              await page.click("dialog[open] #confirm")
              await page.waitForURL(`${server.baseUrl}/`)
              await page.waitForSelector(".items li")
              const before = await page.locator(".items > li").count()
              await page.locator(".items > li input[type=checkbox]").nth(0).check()
              await page.locator(".items > li input[type=checkbox]").nth(1).check()
              await page.click("#delete-selected")
              const confirmText = await page.textContent("dialog[open]")
              await page.click("dialog[open] #confirm")
              await page.waitForSelector("text=Deleted 2 transcripts")
              // The notice can show before the list is drawn again: wait (bounded) for the new list.
              for (let tries = 0; tries < 100; tries += 1) {
                if ((await page.locator(".items > li").count()) === before - 2) break
                await page.waitForTimeout(100)
              }
              const after = await page.locator(".items > li").count()
              await look()

              const storage = await storageOf(page, context)
              // Sign out: the session ends; the cookie no longer works anywhere.
              await Promise.all([page.waitForURL(`${server.baseUrl}/sign-in`), page.click("#sign-out")])
              await page.goto(`${server.baseUrl}/account`)
              const afterSignOut = new URL(page.url()).pathname
              const apiAfterSignOut = await page.evaluate<number>(
                "fetch('/api/v2/credits').then((r) => r.status)"
              )
              return {
                refused,
                emptyLibrary,
                accountShown,
                estimate,
                done,
                found,
                snippetTime,
                current,
                videoLink,
                third,
                matches,
                copied,
                srt,
                question,
                asrDone,
                uploadPrice,
                uploadProgress,
                uploadDone,
                collection,
                progressMax,
                progressEnd,
                batchDone,
                plan,
                available,
                before,
                after,
                confirmText,
                storage,
                afterSignOut,
                apiAfterSignOut
              }
            })

            expect(journey.refused).toContain("unknown or revoked")
            expect(journey.emptyLibrary).toBe("No transcripts yet.")
            // The account's name is untrusted too: shown as written.
            expect(journey.accountShown).toBe("Ada's <b>library</b>")
            expect(journey.estimate).toContain("1 credit")
            expect(journey.done).toContain("1 credit used")
            expect(journey.found).toBe("1 transcript")
            expect(journey.snippetTime).toMatch(/^\d+:\d\d$/)
            expect(journey.current).toContain("documentation")
            expect(journey.videoLink.hostname).toBe("www.youtube.com")
            expect(journey.videoLink.searchParams.get("v")).toBe("Rt7mN0pWzYe")
            expect(journey.videoLink.searchParams.get("t")).toMatch(/^\d+s$/)
            expect(journey.third).toBe(journey.videoLink.href)
            expect(journey.matches).toMatch(/^[1-9]\d* match/)
            expect(journey.copied).toContain("documentation")
            expect(journey.srt).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d\r?\n/)
            expect(journey.question).toMatch(/no captions.*costs 1 credit/s)
            expect(journey.asrDone).toContain("1 credit used")
            expect(journey.uploadPrice).toBe("1 credit")
            expect(journey.uploadProgress).toBe("100")
            expect(journey.uploadDone).toContain("credit")
            expect(journey.collection).toContain("5 videos")
            expect(journey.progressMax).toBe("5")
            expect(journey.progressEnd).toBe("5")
            expect(journey.batchDone).toMatch(/The batch is (completed|partial)/)
            expect(journey.plan).toBe("pro")
            expect(Number(journey.available)).toBeLessThan(200)
            expect(journey.confirmText).toContain("Delete 2 transcripts?")
            expect(journey.after).toBe(journey.before - 2)
            expect(journey.afterSignOut).toBe("/sign-in")
            expect(journey.apiAfterSignOut).toBe(401)
            // The key reached no page, no URL and nothing the browser keeps.
            for (const visited of seen) {
              expect(visited.url).not.toContain(key)
              expect(visited.html).not.toContain(key)
            }
            expect(journey.storage).not.toContain(key)
            expect(incidents).toEqual([])
            // The upload's result was delivered to the webhook the page was given.
            const delivered = yield* eventually(
              "the upload's webhook delivery",
              Effect.sync(() =>
                receiver.received.length > 0 ? Option.some(receiver.received.length) : Option.none()
              )
            )
            expect(delivered).toBeGreaterThanOrEqual(1)
          }),
        300_000
      )

      it.scoped.skipIf(!hasChromium && !inCi)(
        "captions that carry markup and script render as text under the page's CSP",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "pro", credits: 20 })
            const stored = yield* server.post("/api/v2/transcribe", { key, json: { video: hostileVideo } })
            expect(stored.status, stored.text).toBe(200)
            const chromium = yield* browser
            const context = yield* Effect.promise(() => chromium.newContext())
            const { page, incidents } = yield* Effect.promise(() => watchedPage(context))
            const shown = yield* Effect.promise(async () => {
              const response = await page.goto(`${server.baseUrl}/sign-in`)
              const csp = response?.headers()["content-security-policy"] ?? ""
              await page.fill("#api_key", key)
              await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click("#sign-in")])
              await page.goto(`${server.baseUrl}/read/${hostileVideo}`)
              await page.waitForSelector("#segments li")
              // A search whose words hit the hostile captions: their passages are text too.
              await page.fill("#find", "look")
              return {
                csp,
                title: await page.textContent("#reader-title"),
                texts: await page.locator("#segments .text").allTextContents(),
                injected: await page
                  .locator(
                    "#segments script, #segments img, #segments svg, #segments iframe, #segments b, #reader-title b"
                  )
                  .count(),
                links: await page.evaluate<Array<string>>(
                  "[...document.querySelectorAll('#segments a')].map((a) => a.href)"
                ),
                pwned: await page.evaluate<string | null>("window.__pwned ?? null"),
                violations: await page.evaluate<Array<string>>("window.__violations")
              }
            })
            expect(shown.csp).toContain("script-src 'self'")
            expect(shown.csp).not.toContain("unsafe-inline")
            expect(shown.title).toBe("<script>window.__pwned='title'</script>A talk <b>about</b> escaping")
            expect(shown.texts).toEqual([...hostileLines])
            expect(shown.injected).toBe(0)
            expect(shown.links.every((href) => href.startsWith("https://www.youtube.com/watch?v="))).toBe(
              true
            )
            expect(shown.pwned).toBeNull()
            expect(shown.violations).toEqual([])
            expect(incidents).toEqual([])
          }),
        120_000
      )

      it.scoped.skipIf(!hasChromium && !inCi)(
        "every page at 375 px and on a desktop, light and dark: screenshots kept, no serious or critical axe violation, the first page's JavaScript measured",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "pro", credits: 50 })
            for (const video of ["Rt7mN0pWzYe", "q3Lx8VbT2kA"]) {
              const stored = yield* server.post("/api/v2/transcribe", { key, json: { video } })
              expect(stored.status, stored.text).toBe(200)
            }
            const chromium = yield* browser
            const folder = artefactsFolder()
            const report = yield* Effect.promise(async () => {
              const context = await chromium.newContext()
              const page = await context.newPage()
              // The first page's JavaScript, as the browser fetched it, gzipped.
              const scripts: Array<string> = []
              page.on("response", (response) => {
                if (response.request().resourceType() === "script") scripts.push(response.url())
              })
              await page.goto(`${server.baseUrl}/sign-in`)
              await page.fill("#api_key", key)
              await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click("#sign-in")])
              await page.waitForSelector(".items li")
              let gzipped = 0
              let raw = 0
              for (const url of scripts) {
                const body = Buffer.from(await (await fetch(url)).arrayBuffer())
                raw += body.length
                gzipped += gzipSync(body, { level: 9 }).length
              }
              const pages = [
                { name: "sign-in", path: "/sign-in", ready: "#api_key", signedOut: true },
                { name: "library", path: "/", ready: ".items li" },
                { name: "search", path: "/?q=documentation", ready: ".snippets li" },
                { name: "reader", path: "/read/Rt7mN0pWzYe", ready: "#segments li" },
                { name: "transcribe", path: "/transcribe", ready: "#reference" },
                { name: "account", path: "/account", ready: "#jobs" }
              ] as const
              const violations: Array<string> = []
              const signedOut = await chromium.newContext()
              for (const width of widths) {
                for (const scheme of ["light", "dark"] as const) {
                  for (const shown of pages) {
                    const target = "signedOut" in shown ? await signedOut.newPage() : await context.newPage()
                    await target.setViewportSize({ width: width.width, height: width.height })
                    await target.emulateMedia({ colorScheme: scheme })
                    await target.goto(`${server.baseUrl}${shown.path}`)
                    await target.waitForSelector(shown.ready)
                    await target.screenshot({
                      path: join(folder, `${shown.name}-${width.name}-${scheme}.png`),
                      fullPage: true
                    })
                    const result = await new AxeBuilder({ page: target }).analyze()
                    for (const violation of result.violations) {
                      if (violation.impact === "serious" || violation.impact === "critical") {
                        violations.push(
                          `${shown.name} ${width.name} ${scheme}: ${violation.id} (${violation.impact}) ${violation.nodes.map((n) => n.target.join(" ")).join(", ")}`
                        )
                      }
                    }
                    // Nothing wider than the window at 375 px: no sideways scrolling.
                    const overflow = await target.evaluate<number>(
                      "document.documentElement.scrollWidth - window.innerWidth"
                    )
                    if (overflow > 0)
                      violations.push(
                        `${shown.name} ${width.name} ${scheme}: ${overflow} px wider than the window`
                      )
                    await target.close()
                  }
                }
              }
              await signedOut.close()
              await context.close()
              return { scripts: scripts.length, raw, gzipped, violations }
            })
            writeFileSync(join(folder, "first-page-javascript.json"), `${JSON.stringify(report, null, 2)}\n`)
            process.stdout.write(
              `web library: the first page loads ${report.scripts} script(s), ${report.raw} bytes, ${report.gzipped} bytes gzipped\n`
            )
            expect(report.violations).toEqual([])
            expect(report.scripts).toBe(1)
            expect(report.gzipped).toBeLessThanOrEqual(60 * 1024)
          }),
        300_000
      )

      it.scoped.skipIf(!hasChromium && !inCi)(
        "a three-hour transcript is drawn a page at a time, and its search finds a word on a later page",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "pro", credits: 20 })
            const stored = yield* server.post("/api/v2/transcribe", { key, json: { video: longVideo } })
            expect(stored.status, stored.text).toBe(200)
            const chromium = yield* browser
            const context = yield* Effect.promise(() => chromium.newContext())
            const shown = yield* Effect.promise(async () => {
              const page = await context.newPage()
              await page.goto(`${server.baseUrl}/sign-in`)
              await page.fill("#api_key", key)
              await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click("#sign-in")])
              await page.goto(`${server.baseUrl}/read/${longVideo}`)
              await page.waitForSelector("#segments li")
              const rows = await page.locator("#segments li").count()
              const pager = await page.textContent(".pager span")
              await page.fill("#find", "serendipity")
              await page.click("#find-next")
              await page.waitForSelector("#segments li.current")
              return {
                rows,
                pager,
                match: await page.textContent("#segments li.current .text"),
                pagerAfter: await page.textContent(".pager span"),
                nodes: await page.evaluate<number>("document.getElementsByTagName('*').length")
              }
            })
            expect(shown.rows).toBe(200)
            expect(shown.pager).toBe(`Page 1 of ${longSegments / 200}`)
            expect(shown.match).toBe("The final word is serendipity.")
            expect(shown.pagerAfter).toBe(`Page ${longSegments / 200} of ${longSegments / 200}`)
            // The document stays small whatever the transcript's length.
            expect(shown.nodes).toBeLessThan(2000)
          }),
        120_000
      )

      it.scoped.skipIf(!hasChromium && !inCi)(
        "the keyboard alone signs in, skips to the content, follows the navigation and asks for a price",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "pro", credits: 5 })
            const chromium = yield* browser
            const context = yield* Effect.promise(() => chromium.newContext())
            const page = yield* Effect.promise(() => context.newPage())
            const focused = () =>
              page.evaluate<string>("document.activeElement?.id || document.activeElement?.textContent || ''")
            const steps = yield* Effect.promise(async () => {
              await page.goto(`${server.baseUrl}/sign-in`)
              await page.keyboard.press("Tab")
              const first = await focused()
              await page.keyboard.type(key)
              await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.keyboard.press("Enter")])
              await page.waitForSelector("#result-count")
              await page.keyboard.press("Tab")
              const skip = await focused()
              await page.keyboard.press("Tab")
              await page.keyboard.press("Tab")
              await page.keyboard.press("Tab")
              const link = await focused()
              await page.keyboard.press("Enter")
              await page.waitForSelector("#reference")
              const afterNavigation = await focused()
              await page.keyboard.press("Tab")
              const field = await focused()
              await page.keyboard.type("Rt7mN0pWzYe")
              await page.keyboard.press("Enter")
              await page.waitForSelector("#estimate")
              return { first, skip, link, afterNavigation, field, url: new URL(page.url()).pathname }
            })
            expect(steps).toEqual({
              first: "api_key",
              skip: "Skip to content",
              link: "Transcribe",
              afterNavigation: "main",
              field: "reference",
              url: "/transcribe"
            })
          }),
        120_000
      )

      it.scoped.skipIf(!hasChromium && !inCi)(
        "revoking the key ends its sessions: the next page asks to sign in",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const admin = yield* AccountAdmin
            const account = yield* server.createAccount({ plan: "pro", credits: 10 })
            const issued = yield* Effect.orDie(admin.issueKey(account.id))
            const chromium = yield* browser
            const context = yield* Effect.promise(() => chromium.newContext())
            const page = yield* Effect.promise(() => context.newPage())
            yield* Effect.promise(async () => {
              await page.goto(`${server.baseUrl}/sign-in`)
              await page.fill("#api_key", issued.key)
              await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click("#sign-in")])
              await page.waitForSelector("#result-count")
            })
            yield* Effect.orDie(admin.revokeKey(issued.record.id))
            const after = yield* Effect.promise(async () => {
              const api = await page.evaluate<number>("fetch('/api/v2/credits').then((r) => r.status)")
              await page.goto(`${server.baseUrl}/account`)
              return { api, path: new URL(page.url()).pathname }
            })
            expect(after).toEqual({ api: 401, path: "/sign-in" })
          })
      )
    })
  }
)
