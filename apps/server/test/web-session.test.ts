/**
 * The web library's session over real HTTP: sign-in turns an API key into an HttpOnly, SameSite
 * cookie holding a session token (never the key), refused from another site; the pages carry their
 * CSP and the CSRF token; the API's own routes (hot routes and HttpApi alike) take the cookie as the
 * credential, reads freely and changes only with the CSRF token; sign-out needs the token and ends
 * the session; `VERBATIM_WEB=false` serves no page. And as `pnpm start` runs: the key typed appears
 * in no log line (only the seed's report prints a key, once).
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer, type TestServerService, testServerOn } from "./server.js"
import { freePort, listeningUrl, printedKey, startServer } from "./server-process.js"

const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
  redirect: "manual" as const
})

/** Signs in with `key`: the cookie (name=value) and the CSRF token of the page. */
const signIn = (server: TestServerService, key: string) =>
  Effect.gen(function* () {
    const answer = yield* server.request("POST", "/sign-in", form({ api_key: key }))
    expect(answer.status, answer.text).toBe(303)
    const cookie = (answer.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
    const page = yield* server.get("/", { headers: { cookie }, redirect: "manual" })
    expect(page.status).toBe(200)
    const csrf = /&quot;csrfToken&quot;:&quot;([0-9a-f]+)&quot;/.exec(page.text)?.[1] ?? ""
    return { answer, cookie, page, csrf }
  })

layer(testServerOn({ web: true }), { timeout: "60 seconds" })("the web library's session", (it) => {
  it.effect(
    "sign-in sets an HttpOnly SameSite cookie with a session token, never the key; pages carry the CSP",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro" })
        const signedOut = yield* server.get("/", { redirect: "manual" })
        expect(signedOut.status).toBe(303)
        expect(signedOut.headers.get("location")).toBe("/sign-in")
        const signInPage = yield* server.get("/sign-in")
        expect(signInPage.status).toBe(200)
        expect(signInPage.headers.get("content-security-policy")).toContain("script-src 'self'")
        expect(signInPage.text).toContain('method="post" action="/sign-in"')
        const refused = yield* server.request("POST", "/sign-in", form({ api_key: `${key}x` }))
        expect(refused.status).toBe(401)
        expect(refused.headers.get("set-cookie")).toBeNull()
        expect(refused.text).not.toContain(key)

        const { answer, cookie, page, csrf } = yield* signIn(server, key)
        expect(answer.headers.get("location")).toBe("/")
        const setCookie = answer.headers.get("set-cookie") ?? ""
        expect(setCookie).toMatch(
          /^verbatim_session=vbw_[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/
        )
        expect(setCookie).not.toContain(key)
        expect(page.text).not.toContain(key)
        expect(page.headers.get("content-security-policy")).toBe(
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; media-src blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        )
        expect(page.headers.get("cache-control")).toBe("no-store")
        expect(page.headers.get("x-frame-options")).toBe("DENY")
        expect(csrf).toMatch(/^[0-9a-f]{64}$/)
        expect(cookie).not.toContain(csrf)
        // Every page of the library answers the shell for a session.
        for (const path of ["/read/Rt7mN0pWzYe", "/transcribe", "/account"]) {
          expect((yield* server.get(path, { headers: { cookie } })).status).toBe(200)
        }
        // Signed in, the sign-in page sends the person on.
        expect((yield* server.get("/sign-in", { headers: { cookie }, redirect: "manual" })).status).toBe(303)
      })
  )

  it.effect("sign-in from another site is refused and sets no cookie", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount()
      for (const headers of [
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { origin: "http://evil.example" }
      ]) {
        const answer = yield* server.request("POST", "/sign-in", {
          raw: new URLSearchParams({ api_key: key }).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers }
        })
        expect(answer.status).toBe(403)
        expect(answer.headers.get("set-cookie")).toBeNull()
      }
    })
  )

  it.effect("the API's routes take the session: reads as they are, changes only with X-CSRF-Token", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "pro", credits: 10 })
      const { cookie, csrf } = yield* signIn(server, key)
      // A hot route and an HttpApi route, reading.
      const credits = yield* server.get("/api/v2/credits", { headers: { cookie } })
      expect(credits.status).toBe(200)
      expect(credits.json).toMatchObject({ credits: 10, plan: "pro" })
      expect(credits.headers.get("ratelimit-limit")).toBe("50")
      expect((yield* server.get("/api/v2/jobs", { headers: { cookie } })).status).toBe(200)
      // Changes: 403 forbidden without the token (nothing charged), done with it.
      const refused = yield* server.post("/api/v2/transcribe", {
        json: { video: "Rt7mN0pWzYe" },
        headers: { cookie }
      })
      expect(refused.status).toBe(403)
      expect(refused.json).toMatchObject({ error: "forbidden" })
      const wrong = yield* server.post("/api/v2/transcribe", {
        json: { video: "Rt7mN0pWzYe" },
        headers: { cookie, "x-csrf-token": "0".repeat(64) }
      })
      expect(wrong.status).toBe(403)
      expect((yield* server.get("/api/v2/credits", { headers: { cookie } })).json).toMatchObject({
        credits: 10
      })
      const done = yield* server.post("/api/v2/transcribe", {
        json: { video: "Rt7mN0pWzYe" },
        headers: { cookie, "x-csrf-token": csrf }
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json).toMatchObject({ status: "completed", credits_used: 1 })
      // An HttpApi route that changes something, and the list filtered by source.
      const listed = yield* server.get("/api/v2/transcripts?source=manual", { headers: { cookie } })
      expect(listed.json).toMatchObject({ count: 1 })
      expect(
        (yield* server.get("/api/v2/transcripts?source=asr", { headers: { cookie } })).json
      ).toMatchObject({
        count: 0
      })
      expect((yield* server.del("/api/v2/transcripts/Rt7mN0pWzYe", { headers: { cookie } })).status).toBe(403)
      expect(
        (yield* server.del("/api/v2/transcripts/Rt7mN0pWzYe", { headers: { cookie, "x-csrf-token": csrf } }))
          .status
      ).toBe(200)
      // A Bearer header is the credential when both come: another account's key wins.
      const other = yield* server.newAccount({ plan: "free", credits: 3 })
      const bearer = yield* server.get("/api/v2/credits", { key: other.key, headers: { cookie } })
      expect(bearer.json).toMatchObject({ credits: 3, plan: "free" })
      // A cookie that is no session is 401, as a bad key is.
      const unknown = yield* server.get("/api/v2/credits", {
        headers: { cookie: `verbatim_session=vbw_${"x".repeat(43)}` }
      })
      expect(unknown.status).toBe(401)
      expect(unknown.json).toMatchObject({ error: "invalid_api_key" })
    })
  )

  it.effect("sign-out needs the CSRF token, ends the session and clears the cookie", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount()
      const { cookie, csrf } = yield* signIn(server, key)
      const refused = yield* server.request("POST", "/sign-out", {
        ...form({}),
        headers: { ...form({}).headers, cookie }
      })
      expect(refused.status).toBe(403)
      expect((yield* server.get("/api/v2/credits", { headers: { cookie } })).status).toBe(200)
      const out = yield* server.request("POST", "/sign-out", {
        redirect: "manual",
        raw: new URLSearchParams({ csrf_token: csrf }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", cookie }
      })
      expect(out.status).toBe(303)
      expect(out.headers.get("location")).toBe("/sign-in")
      expect(out.headers.get("set-cookie")).toMatch(/^verbatim_session=; .*Max-Age=0$/)
      expect((yield* server.get("/api/v2/credits", { headers: { cookie } })).status).toBe(401)
      const page = yield* server.get("/account", { headers: { cookie }, redirect: "manual" })
      expect(page.status).toBe(303)
    })
  )

  it.effect("the bundle is served under hashed names, gzipped when asked, cached for good", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const page = yield* server.get("/sign-in")
      const style = /href="(\/web\/app-[A-Za-z0-9_-]{12}\.css)"/.exec(page.text)?.[1] ?? ""
      expect(style).not.toBe("")
      const asset = yield* server.get(style, { headers: { "accept-encoding": "gzip" } })
      expect(asset.status).toBe(200)
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(asset.headers.get("content-type")).toContain("text/css")
      expect((yield* server.get("/web/app-unknown.js")).status).toBe(404)
    })
  )
})

layer(testServerOn({ web: false }), { timeout: "60 seconds" })("VERBATIM_WEB=false", (it) => {
  it.effect("serves no page of the library: the API alone", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      for (const path of ["/", "/sign-in", "/account"]) {
        expect((yield* server.get(path)).status).toBe(404)
      }
      expect((yield* server.request("POST", "/sign-in", form({ api_key: "vbt_x" }))).status).toBe(404)
      expect((yield* server.get("/api/v2/ping")).status).toBe(200)
    })
  )
})

describe("the web library as pnpm start serves it", () => {
  it("the key typed to sign in appears in no log line: only the seed's report prints a key, once", async () => {
    const server = startServer({
      VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-web-logs-")),
      VERBATIM_LOG_FORMAT: "json",
      VERBATIM_LOG_LEVEL: "debug",
      PORT: String(await freePort())
    })
    try {
      const url = listeningUrl(await server.waitFor(/Listening on http/, 120_000))
      const output = await server.waitFor(/Seeded a development account/, 60_000)
      const key = printedKey(output) ?? ""
      expect(key).not.toBe("")
      expect(output).toContain(`"library":"${url}/"`)
      const signedIn = await fetch(`${url}/sign-in`, {
        method: "POST",
        body: new URLSearchParams({ api_key: key }),
        redirect: "manual"
      })
      expect(signedIn.status).toBe(303)
      const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
      expect((await fetch(`${url}/api/v2/credits`, { headers: { cookie } })).status).toBe(200)
      expect((await fetch(`${url}/account`, { headers: { cookie } })).status).toBe(200)
      // A failed sign-in with a near miss of the key is not logged either.
      await fetch(`${url}/sign-in`, { method: "POST", body: new URLSearchParams({ api_key: `${key}0` }) })
      // Both sign-ins are in the access log (lines are written a turn of the event loop later).
      await expect
        .poll(
          () =>
            server
              .output()
              .split("\n")
              .filter((line) => /POST \/sign-in (303|401)/.test(line)).length,
          {
            timeout: 10_000
          }
        )
        .toBe(2)
      const lines = server.output().split("\n")
      expect(lines.filter((line) => line.includes(key.slice(4)))).toHaveLength(1)
      expect(lines.filter((line) => line.includes(key.slice(4)))[0]).toContain("Seeded a development account")
      expect(server.output()).not.toContain(cookie.split("=")[1] ?? "no cookie")
    } finally {
      server.child.kill("SIGTERM")
      await server.exited
    }
  }, 180_000)
})
