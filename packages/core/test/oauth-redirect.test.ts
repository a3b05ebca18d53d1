/**
 * Which redirect URIs a client may register (`redirectUriProblem`): https with a host, http only on
 * this machine, or an app's own scheme; never a scheme the browser handles itself, never a fragment.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Option } from "effect"
import { redirectUriProblem } from "../src/usecases/oauth.js"

const accepted = (uri: string) => Option.isNone(redirectUriProblem(uri))

const host = fc.domain()
const path = fc.webPath()

describe("redirectUriProblem", () => {
  it("accepts https with a host, and http on a loopback host, whatever the port and path", () => {
    fc.assert(fc.property(host, path, (h, p) => accepted(`https://${h}${p}`)))
    fc.assert(
      fc.property(
        fc.constantFrom("localhost", "127.0.0.1", "[::1]"),
        fc.integer({ min: 1, max: 65535 }),
        path,
        (h, port, p) => accepted(`http://${h}:${port}${p}`)
      )
    )
  })

  it("refuses http elsewhere than on this machine, and any fragment", () => {
    fc.assert(fc.property(host, path, (h, p) => h === "localhost" || !accepted(`http://${h}${p}`)))
    fc.assert(fc.property(host, path, fc.string(), (h, p, f) => !accepted(`https://${h}${p}#${f}`)))
  })

  it("refuses every scheme a browser handles itself, in any case, whatever follows", () => {
    const browserSchemes = [
      "javascript",
      "vbscript",
      "data",
      "file",
      "blob",
      "filesystem",
      "about",
      "view-source",
      "ws",
      "wss",
      "ftp",
      "mailto",
      "tel",
      "chrome",
      "chrome-extension",
      "moz-extension",
      "intent"
    ]
    fc.assert(
      fc.property(
        fc.constantFrom(...browserSchemes),
        fc.boolean(),
        fc.constantFrom("//", "/", ""),
        host,
        (scheme, upper, slashes, rest) =>
          !accepted(`${upper ? scheme.toUpperCase() : scheme}:${slashes}${rest}/cb`)
      )
    )
    expect(accepted("view-source:https://assistant.example/cb")).toBe(false)
    expect(accepted("about:blank")).toBe(false)
  })

  it("accepts apps' own schemes", () => {
    for (const uri of [
      "vscode://vscode.github-authentication/did-authenticate",
      "cursor://anysphere.cursor-retrieval/oauth/callback",
      "com.example.app:/oauth2redirect"
    ]) {
      expect(accepted(uri), uri).toBe(true)
    }
  })
})
