/**
 * The consent page in a real browser (Debian's headless Chromium through playwright-core): a
 * hosted assistant's authorization URL opens the page, the person types an API key, sees the
 * account the assistant will act for, allows it, and the browser lands on the client's redirect
 * URI with a code that the SDK exchanges for tokens that work on the MCP endpoint.
 *
 * `scripts/install-browser.sh` installs the browser when it is missing (`pnpm test` and `.ci/run`
 * run it). Skipped, saying so, when /usr/bin/chromium is still missing; under CI=true a missing
 * browser fails instead.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, layer } from "@effect/vitest"
import { auth } from "@modelcontextprotocol/sdk/client/auth.js"
import { mcpPath } from "@verbatim/api"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "../../server/test/server.js"
import { browser, executablePath, hasChromium, inCi } from "../../server/test/web-support.js"
import { MemoryOAuthProvider } from "./support.js"

if (!hasChromium && !inCi) {
  process.stderr.write(
    `consent page browser test skipped: ${executablePath} is missing (bash scripts/install-browser.sh installs it)\n`
  )
}

/** The assistant's own page, where the browser lands with the code: a local server. */
const callbackPage = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly close: () => void }>((resume) => {
    const server = createServer((_, response) => {
      response.writeHead(200, { "content-type": "text/html" })
      response.end("<p>signed in</p>")
    })
    server.listen(0, "127.0.0.1", () =>
      resume(
        Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
          close: () => server.close()
        })
      )
    )
  }),
  (callback) => Effect.sync(() => callback.close())
)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })(
  "consent page in a browser",
  (it) => {
    describe("headless Chromium", () => {
      it.scoped.skipIf(!hasChromium && !inCi)(
        "signs in with an API key, shows the account, allows, and the code works",
        () =>
          Effect.gen(function* () {
            expect(hasChromium, `${executablePath} is missing under CI=true`).toBe(true)
            const server = yield* TestServer
            const { account, key } = yield* server.newAccount({ plan: "pro", credits: 31 })
            const serverUrl = new URL(`${server.baseUrl}${mcpPath}`)
            const callback = yield* callbackPage
            const redirectUrl = callback.url
            const provider = new MemoryOAuthProvider(redirectUrl, {
              client_name: "Browser Assistant",
              token_endpoint_auth_method: "none"
            })
            expect(yield* Effect.promise(() => auth(provider, { serverUrl }))).toBe("REDIRECT")

            const page = yield* Effect.flatMap(browser, (b) => Effect.promise(() => b.newPage()))
            const landed = yield* Effect.promise(async () => {
              await page.goto(String(provider.authorizationUrl))
              const client = await page.textContent("#client-name")
              await page.fill("#api_key", "vbt_not_a_real_key_0000000000000000")
              await page.click("#sign-in")
              const refused = await page.textContent("#error")
              await page.fill("#api_key", key)
              await page.click("#sign-in")
              const html = await page.content()
              const shown = {
                name: await page.textContent("#account-name"),
                id: await page.textContent("#account-id"),
                plan: await page.textContent("#account-plan"),
                credits: await page.textContent("#account-credits")
              }
              await Promise.all([page.waitForURL(`${redirectUrl}**`), page.click("#allow")])
              return { client, refused, html, shown, url: new URL(page.url()) }
            })
            expect(landed.client).toBe("Browser Assistant")
            expect(landed.refused).toContain("unknown or revoked")
            // The consent page holds a sign-in id, never the key typed.
            expect(landed.html).not.toContain(key)
            expect(landed.html).toContain('name="sign_in"')
            expect(landed.shown).toEqual({ name: account.name, id: account.id, plan: "pro", credits: "31" })
            const code = landed.url.searchParams.get("code") ?? ""
            expect(code).toMatch(/^vbo_ac_/)

            expect(yield* Effect.promise(() => auth(provider, { serverUrl, authorizationCode: code }))).toBe(
              "AUTHORIZED"
            )
            const listed = yield* server.post(mcpPath, {
              json: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
              headers: {
                accept: "application/json, text/event-stream",
                authorization: `Bearer ${provider.saved?.access_token}`
              }
            })
            expect(listed.status).toBe(200)
          }),
        240_000
      )
    })
  }
)
