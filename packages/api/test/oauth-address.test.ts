/**
 * The address registration is rate-limited by (`clientAddress`): the connection's peer, or the
 * last `X-Forwarded-For` address when the peer is a proxy on this machine or a private network.
 */
import { describe, expect, it } from "@effect/vitest"
import { clientAddress } from "../src/oauth.js"

describe("clientAddress", () => {
  it("believes X-Forwarded-For only from a loopback or private peer, and only its last address", () => {
    for (const proxy of ["127.0.0.1", "::1", "::ffff:10.0.0.5", "172.18.0.3", "192.168.1.2", "100.64.0.1"]) {
      expect(clientAddress(proxy, "198.51.100.1, 203.0.113.9"), proxy).toBe("203.0.113.9")
      expect(clientAddress(proxy, undefined), proxy).toBe(proxy.replace(/^::ffff:/, ""))
    }
  })

  it("ignores X-Forwarded-For from a public peer: a caller cannot pick its own bucket", () => {
    expect(clientAddress("203.0.113.9", "192.0.2.1")).toBe("203.0.113.9")
    expect(clientAddress("::ffff:203.0.113.9", "192.0.2.1")).toBe("203.0.113.9")
    expect(clientAddress("2001:4860::1", "192.0.2.1")).toBe("2001:4860::1")
  })

  it("keeps the peer when the header's last address is empty or overlong", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.9, ")).toBe("127.0.0.1")
    expect(clientAddress("127.0.0.1", "x".repeat(65))).toBe("127.0.0.1")
    expect(clientAddress(undefined, "203.0.113.9")).toBe("unknown")
  })
})
