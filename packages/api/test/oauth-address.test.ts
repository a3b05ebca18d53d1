/**
 * The client registration and sign-in are rate-limited by (`clientAddress`): the connection's peer,
 * or the last `X-Forwarded-For` address when the peer is a proxy on this machine or a private
 * network and that value is an address; an IPv6 client counts by its /64.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhook } from "@verbatim/domain"
import { FastCheck as fc, Option } from "effect"
import { clientAddress } from "../src/oauth.js"

describe("clientAddress", () => {
  it("believes X-Forwarded-For only from a loopback or private peer, and only its last address", () => {
    for (const proxy of ["127.0.0.1", "::1", "::ffff:10.0.0.5", "172.18.0.3", "192.168.1.2", "100.64.0.1"]) {
      expect(clientAddress(proxy, "198.51.100.1, 203.0.113.9"), proxy).toBe("203.0.113.9")
      expect(clientAddress(proxy, "198.51.100.1,2001:db8:1:2:3:4:5:6"), proxy).toBe("2001:db8:1:2::/64")
    }
    expect(clientAddress("127.0.0.1", undefined)).toBe("127.0.0.1")
    expect(clientAddress("::ffff:10.0.0.5", undefined)).toBe("10.0.0.5")
    expect(clientAddress("::1", undefined)).toBe("::/64")
  })

  it("ignores X-Forwarded-For from a public peer: a caller cannot pick its own bucket", () => {
    expect(clientAddress("203.0.113.9", "192.0.2.1")).toBe("203.0.113.9")
    expect(clientAddress("::ffff:203.0.113.9", "192.0.2.1")).toBe("203.0.113.9")
    expect(clientAddress("2001:4860::1", "192.0.2.1")).toBe("2001:4860::/64")
  })

  it("keeps the peer when the header's last value is empty, overlong or no address", () => {
    for (const junk of [
      "203.0.113.9, ",
      "x".repeat(65),
      "garbage",
      "1.2.3",
      "0x7f.1",
      "203.0.113.9:80",
      "::1::2"
    ]) {
      expect(clientAddress("127.0.0.1", junk), junk).toBe("127.0.0.1")
    }
    expect(clientAddress(undefined, "203.0.113.9")).toBe("unknown")
  })

  it("distinct strings behind a proxy name at most as many clients as they hold addresses", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 50 }), (values) => {
        const clients = new Set(values.map((value) => clientAddress("127.0.0.1", value)))
        clients.delete("127.0.0.1")
        for (const client of clients)
          expect(Option.isSome(Webhook.clientOf(client.replace(/\/64$/, "")))).toBe(true)
      })
    )
  })

  it("every address of one /64 is one client", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }), (low) => {
        const address = ["2001", "db8", "aa", "bb", ...low.map((g) => g.toString(16))].join(":")
        expect(clientAddress("10.0.0.1", address)).toBe("2001:db8:aa:bb::/64")
        expect(clientAddress(address, undefined)).toBe("2001:db8:aa:bb::/64")
      })
    )
  })
})
