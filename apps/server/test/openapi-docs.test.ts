/**
 * The API reference page (`/docs`) in a real browser, offline: Debian's Chromium renders it with every
 * host but 127.0.0.1 unresolvable, and the page must show the API (with "Bearer <API key>" written
 * out, not swallowed as an HTML tag), load no web fonts, and ask no other host for anything.
 * Skipped where /usr/bin/chromium is not installed (`apt-get install chromium`).
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"

const chromium = "/usr/bin/chromium"

/** Chromium's own traffic (updates, sign-in, spelling), not the page's. */
const chromiumOwn = /^https?:\/\/([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)\//

/** The page's markup and styles without its scripts' source text. */
const withoutScripts = (dom: string): string => dom.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")

/** Renders `url` headless; the DOM after scripts ran, and every URL the browser asked for. */
const render = (url: string) =>
  Effect.promise(
    () =>
      new Promise<{ readonly dom: string; readonly requested: ReadonlyArray<string> }>((resolve, reject) => {
        const folder = mkdtempSync(join(tmpdir(), "verbatim-docs-"))
        const netLog = join(folder, "net.json")
        const child = spawn(
          chromium,
          [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            `--user-data-dir=${join(folder, "profile")}`,
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            `--log-net-log=${netLog}`,
            "--virtual-time-budget=15000",
            "--dump-dom",
            url
          ],
          { stdio: ["ignore", "pipe", "ignore"] }
        )
        let dom = ""
        child.stdout.on("data", (chunk: Buffer) => {
          dom += chunk.toString("utf8")
        })
        const timer = setTimeout(() => child.kill("SIGKILL"), 90_000)
        child.on("error", reject)
        child.on("exit", () => {
          clearTimeout(timer)
          const log = existsSync(netLog) ? readFileSync(netLog, "utf8") : ""
          const requested = [...log.matchAll(/"url":"([^"]+)"/g)].map((match) => match[1] ?? "")
          resolve({ dom, requested: [...new Set(requested)] })
        })
      })
  )

describe.runIf(existsSync(chromium))("/docs in a browser, offline", () => {
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(TestServerLive, { timeout: "120 seconds", excludeTestServices: true })("the reference page", (it) => {
    it.effect(
      "renders the API and 'Bearer <API key>', asking no host but this server for anything",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { dom, requested } = yield* render(`${server.baseUrl}/docs`)
          expect(dom).toContain("Transcript Service API")
          expect(dom).toContain("Bearer &lt;API key&gt;")
          expect(dom).not.toMatch(/Bearer \.</)
          const elsewhere = requested.filter(
            (url) => !url.startsWith(server.baseUrl) && !url.startsWith("data:") && !chromiumOwn.test(url)
          )
          // Scalar's default fonts would be @font-face rules on fonts.scalar.com in the page's styles.
          expect(withoutScripts(dom)).not.toContain("fonts.scalar.com")
          expect(elsewhere).toEqual([])
          expect(requested.some((url) => url.startsWith(`${server.baseUrl}/docs`))).toBe(true)
        }),
      120_000
    )
  })
})
