/**
 * What the server writes for the web library, without a server: the session cookie over http and
 * https, the check that a sign-in comes from this origin, and the shell, whose untrusted text (the
 * account's name) is escaped.
 */
import { HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Ids } from "@verbatim/domain"
import { DateTime } from "effect"
import { escapeHtml, sameOrigin, sessionCookieFor, sessionInfo, shellPage, signInPage } from "../src/index.js"

const requestWith = (headers: Record<string, string>) =>
  HttpServerRequest.fromWeb(new Request("http://127.0.0.1:3000/sign-in", { method: "POST", headers }))

describe("the session cookie", () => {
  it("over http: HttpOnly, SameSite=Lax, Path=/, for 7 days, not Secure", () => {
    const cookie = sessionCookieFor("http://127.0.0.1:3000")
    expect(cookie.setCookie("vbw_token")).toBe(
      "verbatim_session=vbw_token; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800"
    )
    expect(cookie.clearCookie).toBe("verbatim_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0")
  })

  it("behind https: Secure, under the __Host- name", () => {
    const cookie = sessionCookieFor("https://verbatim.example/")
    expect(cookie.setCookie("vbw_token")).toBe(
      "__Host-verbatim_session=vbw_token; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=604800"
    )
    expect(cookie.clearCookie).toContain("; Secure; Max-Age=0")
  })
})

describe("a sign-in's origin", () => {
  const service = "https://verbatim.example"
  it("passes from this origin or typed by the person, and is refused from any other site", () => {
    expect(sameOrigin(requestWith({ "sec-fetch-site": "same-origin" }), service)).toBe(true)
    expect(sameOrigin(requestWith({ "sec-fetch-site": "none" }), service)).toBe(true)
    expect(sameOrigin(requestWith({ "sec-fetch-site": "same-site" }), service)).toBe(false)
    expect(sameOrigin(requestWith({ "sec-fetch-site": "cross-site" }), service)).toBe(false)
    expect(sameOrigin(requestWith({ origin: service }), service)).toBe(true)
    expect(
      sameOrigin(requestWith({ origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000" }), service)
    ).toBe(true)
    expect(
      sameOrigin(requestWith({ origin: "https://evil.example", host: "verbatim.example" }), service)
    ).toBe(false)
    expect(sameOrigin(requestWith({ origin: "null", host: "verbatim.example" }), service)).toBe(false)
    // A program (curl) sends neither.
    expect(sameOrigin(requestWith({}), service)).toBe(true)
  })
})

describe("the pages' HTML", () => {
  const session = {
    account: {
      id: Ids.AccountId.make("6f1c7a0e-3333-4a4a-8a8a-000000000001"),
      name: `"><script>alert(1)</script>`,
      plan: "basic" as const,
      defaultMode: "auto" as const,
      onboardingCompleted: false,
      createdAt: DateTime.unsafeMake("2026-11-01T00:00:00Z")
    },
    csrfToken: "c".repeat(64),
    expiresAt: DateTime.unsafeMake("2026-11-02T00:00:00Z")
  }

  it("escapes what it writes", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
    )
  })

  it("the shell carries the session in one meta element, its untrusted text escaped, and no script of its own", () => {
    const info = sessionInfo(session, "http://127.0.0.1:3000")
    expect(info.limits).toMatchObject({ requestsPerSecond: 25, batchSize: 500 })
    expect(info.pricing).toEqual({
      charactersPerTranslationCredit: 2500,
      secondsPerAsrCredit: 90,
      captionCreditsPerTranscript: 1
    })
    const html = shellPage(undefined, info)
    expect(html).not.toContain("<script>alert(1)</script>")
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/)
    const content = /<meta name="verbatim-session" content="([^"]*)">/.exec(html)?.[1] ?? ""
    const decoded = content
      .replaceAll("&quot;", '"')
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&#39;", "'")
      .replaceAll("&amp;", "&")
    expect(JSON.parse(decoded)).toEqual(info)
  })

  it("the sign-in page posts the key in a form body, and shows a problem as text", () => {
    const html = signInPage(undefined, "<b>no</b>")
    expect(html).toContain('<form method="post" action="/sign-in"')
    expect(html).toContain('type="password"')
    expect(html).toContain("&lt;b&gt;no&lt;/b&gt;")
  })
})
