import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { OAuth } from "../../src/index.js"

const loopbackHost = fc.constantFrom("127.0.0.1", "[::1]", "localhost")
const port = fc.integer({ min: 1, max: 65535 })
const segment = fc.stringMatching(/^[a-zA-Z0-9._~-]{0,12}$/)
const path = fc.array(segment, { maxLength: 3 }).map((parts) => `/${parts.join("/")}`)
const query = fc.option(fc.stringMatching(/^[a-z]{1,5}=[a-z0-9]{0,5}$/), { nil: undefined })
const withPort = (host: string, p: number | undefined, rest: string) =>
  `http://${host}${p === undefined ? "" : `:${p}`}${rest}`

describe("OAuth.redirectUriMatches (RFC 8252 §7.3)", () => {
  it("accepts any port on an http loopback redirect URI, registered with or without one", () => {
    expect(OAuth.redirectUriMatches("http://127.0.0.1/", "http://127.0.0.1:33418/")).toBe(true)
    fc.assert(
      fc.property(
        loopbackHost,
        fc.option(port, { nil: undefined }),
        fc.option(port, { nil: undefined }),
        path,
        query,
        (host, registeredPort, presentedPort, p, q) => {
          const rest = q === undefined ? p : `${p}?${q}`
          expect(
            OAuth.redirectUriMatches(
              withPort(host, registeredPort, rest),
              withPort(host, presentedPort, rest)
            )
          ).toBe(true)
        }
      )
    )
  })

  it("compares everything but the loopback port exactly: path, query, host and scheme", () => {
    fc.assert(
      fc.property(loopbackHost, port, port, path, path, (host, a, b, p1, p2) => {
        fc.pre(p1 !== p2)
        expect(OAuth.redirectUriMatches(withPort(host, a, p1), withPort(host, b, p2))).toBe(false)
      })
    )
    fc.assert(
      fc.property(loopbackHost, loopbackHost, port, path, (h1, h2, p, rest) => {
        fc.pre(h1 !== h2)
        expect(OAuth.redirectUriMatches(withPort(h1, undefined, rest), withPort(h2, p, rest))).toBe(false)
      })
    )
    expect(OAuth.redirectUriMatches("http://127.0.0.1/cb", "http://127.0.0.1:80/CB")).toBe(false)
    expect(OAuth.redirectUriMatches("http://127.0.0.1/cb", "https://127.0.0.1:8443/cb")).toBe(false)
    expect(OAuth.redirectUriMatches("http://127.0.0.1/cb?a=1", "http://127.0.0.1:9/cb?a=2")).toBe(false)
    expect(OAuth.redirectUriMatches("http://127.0.0.1/", "http://127.0.0.1.evil.example:9/")).toBe(false)
    expect(OAuth.redirectUriMatches("http://127.0.0.1/", "http://user@127.0.0.1:9/")).toBe(false)
  })

  it("ignores the port nowhere else: https, other hosts and app schemes match exactly", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "https://127.0.0.1",
          "https://app.example.com",
          "http://example.com",
          "http://10.0.0.1"
        ),
        port,
        path,
        (origin, p, rest) => {
          expect(OAuth.redirectUriMatches(`${origin}${rest}`, `${origin}${rest}`)).toBe(true)
          expect(OAuth.redirectUriMatches(`${origin}${rest}`, `${origin}:${p}${rest}`)).toBe(false)
        }
      )
    )
    expect(OAuth.redirectUriMatches("vscode://callback", "vscode://callback:5")).toBe(false)
    expect(
      OAuth.isRegisteredRedirectUri(["https://a.example/cb", "http://[::1]/cb"], "http://[::1]:7/cb")
    ).toBe(true)
    expect(OAuth.isRegisteredRedirectUri([], "http://[::1]:7/cb")).toBe(false)
  })
})
