import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { Webhook } from "../../src/index.js"

const reason = (url: string, allowed: ReadonlyArray<string> = []): string | undefined =>
  Either.match(Webhook.checkUrl(url, allowed), { onLeft: (r) => r, onRight: () => undefined })

const target = (url: string, allowed: ReadonlyArray<string> = []): Webhook.WebhookTarget => {
  const result = Webhook.checkUrl(url, allowed)
  if (Either.isLeft(result)) throw new Error(`refused: ${result.left}`)
  return result.right
}

describe("Webhook.checkUrl: the URL's shape", () => {
  it("accepts absolute http and https URLs with a host, and returns host, port and path", () => {
    expect(target("https://Hooks.Example.com/verbatim?x=1#frag")).toEqual({
      href: "https://hooks.example.com/verbatim?x=1#frag",
      protocol: "https:",
      host: "hooks.example.com",
      port: 443,
      path: "/verbatim?x=1",
      ip: false,
      allowed: false
    })
    expect(target("http://example.com:8080")).toMatchObject({ port: 8080, path: "/", ip: false })
    expect(target("http://example.com./x")).toMatchObject({ host: "example.com" })
  })

  it("refuses other schemes, relative URLs, user info and missing hosts", () => {
    expect(reason("ftp://example.com/")).toContain("http or https")
    expect(reason("javascript:alert(1)")).toContain("http or https")
    expect(reason("file:///etc/passwd")).toContain("http or https")
    expect(reason("/relative/path")).toBe("must be an absolute http or https URL")
    expect(reason("example.com/hook")).toBe("must be an absolute http or https URL")
    expect(reason("http://")).toBe("must be an absolute http or https URL")
    expect(reason("https://user:pass@example.com/")).toBe("must not contain a user name or password")
    expect(reason("https://user@example.com/")).toBe("must not contain a user name or password")
    expect(reason("https://:pass@example.com/")).toBe("must not contain a user name or password")
  })
})

describe("Webhook.checkUrl: IP literal hosts", () => {
  const refusedLiterals: ReadonlyArray<readonly [string, string]> = [
    ["http://127.0.0.1/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://127.1:8080/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:10.0.0.1]/", "private"],
    ["http://10.1.2.3/", "private"],
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://[fd00:ec2::254]/", "metadata"],
    ["http://100.100.100.200/", "metadata"],
    ["http://100.64.0.1/", "carrier-grade NAT"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://[64:ff9b::192.168.0.1]/", "private"],
    ["http://[2002:c0a8:1::]/", "private"],
    ["http://224.0.0.1/", "multicast"],
    ["http://255.255.255.255/", "broadcast"],
    ["http://192.0.2.10/", "documentation"],
    ["http://[fe80::1]/", "link-local"]
  ]

  it.each(refusedLiterals)("%s is refused (%s)", (url, words) => {
    const why = reason(url)
    expect(why).toContain(words)
    expect(why).toContain("public address")
  })

  it("a public literal passes, normalised, and is marked as an IP", () => {
    expect(target("http://8.8.8.8/x")).toMatchObject({ host: "8.8.8.8", ip: true, allowed: false })
    expect(target("http://134744072/")).toMatchObject({ host: "8.8.8.8", ip: true })
    expect(target("https://[2606:4700:4700:0:0:0:0:1111]:8443/")).toMatchObject({
      host: "2606:4700:4700::1111",
      port: 8443,
      ip: true
    })
  })

  it("the allow-list lets a refused literal through, matching IPs by value", () => {
    expect(target("http://127.0.0.1:9000/hook", ["127.0.0.1:9000"])).toMatchObject({
      ip: true,
      allowed: true
    })
    expect(reason("http://127.0.0.1:9000/hook", ["127.0.0.1"])).toContain("loopback")
    expect(target("http://0x7f.1/", ["127.0.0.1"])).toMatchObject({ host: "127.0.0.1", allowed: true })
    expect(target("http://[::1]/", ["0:0:0:0:0:0:0:1"])).toMatchObject({ host: "::1", allowed: true })
    expect(target("http://[::1]/", ["[::1]"])).toMatchObject({ allowed: true })
    expect(reason("http://127.0.0.2/", ["127.0.0.1"])).toContain("loopback")
    expect(reason("http://127.0.0.1/", ["localhost"])).toContain("loopback")
  })

  it("any refused IPv4 address in any notation is refused unless allowed, then allowed", () => {
    const refusedV4 = fc.oneof(
      fc.integer({ min: 0x7f000000, max: 0x7fffffff }),
      fc.integer({ min: 0x0a000000, max: 0x0affffff }),
      fc.integer({ min: 0xc0a80000, max: 0xc0a8ffff }),
      fc.integer({ min: 0xa9fe0000, max: 0xa9feffff })
    )
    fc.assert(
      fc.property(refusedV4, fc.constantFrom("dec", "hex", "dotted"), (n, form) => {
        const dotted = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")
        const host = form === "dec" ? `${n}` : form === "hex" ? `0x${n.toString(16)}` : dotted
        expect(reason(`http://${host}/`)).toBeDefined()
        expect(target(`http://${host}/`, [dotted.toUpperCase()])).toMatchObject({
          host: dotted,
          allowed: true
        })
      })
    )
  })
})

describe("Webhook.checkAddress and the allow-list", () => {
  it("a resolved address is checked; the host name or the address on the list lets it through", () => {
    expect(Webhook.checkAddress("93.184.215.14", "example.com", 443, [])).toEqual(
      Either.right("93.184.215.14")
    )
    const refused = Webhook.checkAddress("10.0.0.5", "internal.example.com", 443, [])
    expect(refused).toEqual(
      Either.left(
        "internal.example.com resolves to 10.0.0.5 is a private address; webhooks must reach a public address"
      )
    )
    expect(Webhook.checkAddress("10.0.0.5", "Internal.Example.com", 443, ["internal.example.COM"])).toEqual(
      Either.right("10.0.0.5")
    )
    expect(Webhook.checkAddress("10.0.0.5", "internal.example.com", 80, ["10.0.0.5"])).toEqual(
      Either.right("10.0.0.5")
    )
    expect(Webhook.checkAddress("10.0.0.6", "internal.example.com", 443, ["10.0.0.5"])._tag).toBe("Left")
    expect(Webhook.checkAddress("garbage", "x.example", 443, ["x.example"])._tag).toBe("Left")
  })

  it("an entry names its port: alone the default ports only, host:port that port, host:* any", () => {
    for (const url of ["http://localhost:6379/x", "http://LOCALHOST:5432/x"]) {
      expect(target(url, ["localhost", "127.0.0.1"]).allowed, url).toBe(false)
    }
    expect(reason("http://127.0.0.1:6379/", ["localhost", "127.0.0.1"])).toBeDefined()
    expect(reason("http://127.0.0.1/", ["localhost", "127.0.0.1"])).toBeUndefined()
    expect(target("http://localhost/x", ["localhost"]).allowed).toBe(true)
    expect(target("https://localhost/x", ["localhost"]).allowed).toBe(true)
    expect(target("http://localhost:4000/x", ["localhost:4000"]).allowed).toBe(true)
    expect(target("http://localhost:4001/x", ["localhost:4000"]).allowed).toBe(false)
    expect(reason("http://127.0.0.1:4001/x", ["127.0.0.1:*"])).toBeUndefined()
    expect(reason("http://[::1]:4001/x", ["[::1]:4001"])).toBeUndefined()
    expect(reason("http://[::1]:4002/x", ["[::1]:4001"])).toBeDefined()
    expect(Webhook.checkAddress("10.0.0.5", "hooks.internal", 6379, ["hooks.internal"])._tag).toBe("Left")
    expect(Webhook.checkAddress("10.0.0.5", "hooks.internal", 8443, ["hooks.internal:8443"])._tag).toBe(
      "Right"
    )
    expect(Webhook.checkAddress("10.0.0.5", "hooks.internal", 8443, ["10.0.0.5:*"])._tag).toBe("Right")
  })

  it("a host name passes the URL rule (its addresses are checked once resolved)", () => {
    expect(target("https://localhost:3000/")).toMatchObject({ host: "localhost", ip: false, allowed: false })
    expect(target("https://LOCALHOST:3000/", ["localhost:3000"])).toMatchObject({ allowed: true })
    expect(target("https://LOCALHOST:3000/", ["localhost"])).toMatchObject({ allowed: false })
    expect(target("https://hooks.example.com/", ["example.com"])).toMatchObject({ allowed: false })
  })

  it("parses the setting: comma-separated, trimmed, lower case, IPs normalised, empties dropped", () => {
    expect(Webhook.readAllowedHosts("")).toEqual(Either.right([]))
    expect(
      Webhook.readAllowedHosts(
        " Hooks.Internal , 127.0.0.1,,[::1], 0:0::1 ,receiver.,Receiver:8080,[0::1]:*,10.0.0.1:*"
      )
    ).toEqual(
      Either.right([
        "hooks.internal",
        "127.0.0.1",
        "::1",
        "::1",
        "receiver",
        "receiver:8080",
        "[::1]:*",
        "10.0.0.1:*"
      ])
    )
    expect(Webhook.readAllowedHosts("a.example:443, b.example")).toEqual(
      Either.right(["a.example:443", "b.example"])
    )
    for (const bad of ["localhost:x", "localhost:0", "localhost:65536", "[::1", "[::1]x", "localhost:"]) {
      expect(Webhook.readAllowedHosts(`ok.example,${bad}`)._tag, bad).toBe("Left")
    }
  })

  it("matching is exact: no suffix or prefix matches, and no other port", () => {
    fc.assert(
      fc.property(fc.domain(), fc.domain(), fc.integer({ min: 1, max: 65535 }), (a, b, port) => {
        fc.pre(a.toLowerCase() !== b.toLowerCase())
        expect(Webhook.isAllowed(a, port, [`${b}:*`])).toBe(false)
        expect(Webhook.isAllowed(a.toUpperCase(), port, [`${a}:*`])).toBe(true)
        expect(Webhook.isAllowed(a, port, [`${a}:${port}`])).toBe(true)
        expect(Webhook.isAllowed(a, port, [a])).toBe(port === 80 || port === 443)
        expect(Webhook.isAllowed(a, port === 65535 ? 1 : port + 1, [`${a}:${port}`])).toBe(false)
        expect(Webhook.isAllowed(`x.${a}`, port, [`${a}:*`])).toBe(false)
      })
    )
  })
})
