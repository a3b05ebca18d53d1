import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Option } from "effect"
import { Webhook } from "../../src/index.js"

/**
 * The refused ranges, written out again here (not read from the code under test), with the
 * reason each must give. A more specific entry wins where ranges nest.
 */
const v4Refused: ReadonlyArray<readonly [string, Webhook.Refusal]> = [
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier_grade_nat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link_local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"]
]
/** Single addresses refused for a reason of their own inside (or outside) the ranges above. */
const v4Singles: ReadonlyArray<readonly [string, Webhook.Refusal]> = [
  ["169.254.169.254", "metadata"],
  ["169.254.170.2", "metadata"],
  ["169.254.170.23", "metadata"],
  ["192.0.0.192", "metadata"],
  ["100.100.100.200", "metadata"],
  ["168.63.129.16", "metadata"],
  ["255.255.255.255", "broadcast"]
]

const toNumber = (dotted: string): number =>
  dotted.split(".").reduce((acc, part) => acc * 256 + Number(part), 0)
const toDotted = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")

const cidr = (text: string) => {
  const [base = "", bits = "32"] = text.split("/")
  const size = 2 ** (32 - Number(bits))
  return { first: toNumber(base), size }
}

const inside = (n: number, text: string): boolean => {
  const { first, size } = cidr(text)
  return n >= first && n < first + size
}

const expectedV4 = (n: number): Webhook.Refusal | "public" => {
  const single = v4Singles.find(([address]) => toNumber(address) === n)
  if (single !== undefined) return single[1]
  return v4Refused.find(([range]) => inside(n, range))?.[1] ?? "public"
}

const reasonOf = (ip: string): Webhook.Refusal | "public" => {
  const c = Webhook.classify(ip)
  return c._tag === "Public" ? "public" : c.reason
}

const uint32 = fc.integer({ min: 0, max: 2 ** 32 - 1 })
const publicV4 = uint32.filter((n) => expectedV4(n) === "public")
const hex4 = (n: number) => n.toString(16)

/** Every IPv6 form that carries an IPv4 address. */
const carriers = (n: number): ReadonlyArray<string> => {
  const hi = hex4(n >>> 16)
  const lo = hex4(n & 0xffff)
  const dotted = toDotted(n)
  return [
    `::ffff:${dotted}`,
    `::ffff:${hi}:${lo}`,
    `0:0:0:0:0:ffff:${dotted}`,
    `::ffff:0:${dotted}`,
    `64:ff9b::${dotted}`,
    `64:ff9b::${hi}:${lo}`,
    `2002:${hi}:${lo}::1`,
    `2002:${hi}:${lo}:abcd:1::`,
    `[::ffff:${dotted}]`
  ]
}

describe("Webhook.classify: IPv4", () => {
  it.each(v4Refused)("every address in %s is refused (%s)", (range, reason) => {
    const { first, size } = cidr(range)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: size - 1 }), (offset) => {
        const n = first + offset
        const got = reasonOf(toDotted(n))
        expect(got).not.toBe("public")
        // Nested singles (metadata, broadcast) name themselves; the rest name the range.
        expect(got).toBe(expectedV4(n))
        if (!v4Singles.some(([a]) => toNumber(a) === n)) expect(got).toBe(reason)
      })
    )
    expect(reasonOf(toDotted(first))).not.toBe("public")
    expect(reasonOf(toDotted(first + size - 1))).not.toBe("public")
  })

  it.each(v4Singles)("%s is refused as %s", (address, reason) => {
    expect(reasonOf(address)).toBe(reason)
  })

  it("random public addresses pass, and their neighbours outside each range too", () => {
    fc.assert(fc.property(publicV4, (n) => reasonOf(toDotted(n)) === "public"))
    for (const [range] of v4Refused) {
      const { first, size } = cidr(range)
      if (first > 0 && expectedV4(first - 1) === "public")
        expect(reasonOf(toDotted(first - 1))).toBe("public")
      if (first + size < 2 ** 32 && expectedV4(first + size) === "public") {
        expect(reasonOf(toDotted(first + size))).toBe("public")
      }
    }
  })

  it("classification of any IPv4 address equals that of every IPv6 form carrying it", () => {
    fc.assert(
      fc.property(
        fc.oneof(uint32, publicV4, fc.constantFrom(...v4Singles.map(([a]) => toNumber(a)))),
        (n) => {
          const direct = reasonOf(toDotted(n))
          expect(direct).toBe(expectedV4(n))
          for (const form of carriers(n)) expect([form, reasonOf(form)]).toEqual([form, direct])
        }
      )
    )
  })

  it("IPv4-compatible forms (::a.b.c.d) are judged by the address they carry", () => {
    fc.assert(
      fc.property(
        uint32.filter((n) => n > 1),
        (n) => {
          expect(reasonOf(`::${toDotted(n)}`)).toBe(expectedV4(n))
        }
      )
    )
  })

  it("a refused IPv4 address carried in IPv6 is named in the refusal", () => {
    const c = Webhook.classify("::ffff:10.0.0.1")
    expect(c).toMatchObject({ _tag: "Refused", reason: "private", embedded: "10.0.0.1" })
    expect(Webhook.describe(c)).toContain("10.0.0.1")
    expect(Webhook.classify("64:ff9b::a9fe:a9fe")).toMatchObject({
      reason: "metadata",
      embedded: "169.254.169.254"
    })
    expect(Webhook.classify("2002:c0a8:0101::1")).toMatchObject({
      reason: "private",
      embedded: "192.168.1.1"
    })
  })
})

describe("Webhook.classify: odd IPv4 notations mean the address they name", () => {
  const notations = (n: number): ReadonlyArray<string> => {
    const bytes = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255] as const
    const [a, b, c, d] = bytes
    return [
      `${n}`,
      `0x${n.toString(16)}`,
      `0${n.toString(8)}`,
      bytes.map((x) => `0${x.toString(8)}`).join("."),
      bytes.map((x) => `0x${x.toString(16)}`).join("."),
      `${a}.${(b << 16) + (c << 8) + d}`,
      `${a}.${b}.${(c << 8) + d}`,
      `0x${a.toString(16)}.${b}.0${c.toString(8)}.${d}`,
      `${toDotted(n)}.`
    ]
  }

  it("decimal, octal, hexadecimal and short forms parse to the same address", () => {
    fc.assert(
      fc.property(uint32, (n) => {
        for (const text of notations(n)) {
          expect([text, Option.getOrUndefined(Webhook.parseV4(text))]).toEqual([text, n])
          expect([text, reasonOf(text)]).toEqual([text, expectedV4(n)])
        }
      })
    )
  })

  it("the URL parser reads them the same way, so a URL host is judged as the address it means", () => {
    fc.assert(
      fc.property(uint32, (n) => {
        for (const text of notations(n)) {
          expect(new URL(`http://${text}/`).hostname).toBe(toDotted(n))
        }
      })
    )
  })

  it("known examples", () => {
    for (const text of [
      "2130706433",
      "0177.0.0.1",
      "0x7f.1",
      "127.1",
      "0x7f000001",
      "017700000001",
      "127.0.0.1."
    ]) {
      expect([text, reasonOf(text)]).toEqual([text, "loopback"])
    }
  })

  it("out-of-range parts and host names are not IPv4", () => {
    for (const text of [
      "256.0.0.1",
      "1.2.3.4.5",
      "1.2.3.256",
      "1.16777216",
      "4294967296",
      "08",
      "a.b.c.d",
      ""
    ]) {
      expect([text, Option.isNone(Webhook.parseV4(text))]).toEqual([text, true])
    }
    for (const text of ["example.com", "localhost", "1e100.net", ""]) {
      expect(Webhook.classify(text)).toMatchObject({ _tag: "Refused", reason: "not_an_ip" })
    }
  })
})

describe("Webhook.classify: IPv6", () => {
  const groupsArb = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
  const v6Text = (groups: ReadonlyArray<number>) => groups.map(hex4).join(":")
  const withPrefix = (prefix: ReadonlyArray<number>, bits: number) =>
    groupsArb.map((random) =>
      random.map((g, i) => {
        const keep = Math.max(0, Math.min(16, bits - 16 * i))
        const mask = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff
        return ((prefix[i] ?? 0) & mask) | (g & ~mask & 0xffff)
      })
    )

  const v6Refused: ReadonlyArray<readonly [string, ReadonlyArray<number>, number, Webhook.Refusal]> = [
    ["fc00::/7", [0xfc00], 7, "private"],
    ["fe80::/10", [0xfe80], 10, "link_local"],
    ["fec0::/10", [0xfec0], 10, "private"],
    ["ff00::/8", [0xff00], 8, "multicast"],
    ["2001:db8::/32", [0x2001, 0x0db8], 32, "documentation"],
    ["3fff::/20", [0x3fff], 20, "documentation"],
    ["2001::/23", [0x2001], 23, "reserved"],
    ["100::/64", [0x0100], 64, "reserved"],
    ["64:ff9b:1::/48", [0x64, 0xff9b, 1], 48, "private"]
  ]

  it.each(v6Refused)("every address in %s is refused", (_, prefix, bits, reason) => {
    fc.assert(
      fc.property(withPrefix(prefix, bits), (groups) => {
        const text = v6Text(groups)
        const got = reasonOf(text)
        if (reason === "private" && prefix[0] === 0xfc00 && /^fd00:ec2:0:0:0:0:0:(254|23)$/.test(text)) return
        expect([text, got]).toEqual([text, reason])
      })
    )
  })

  it("unspecified, loopback and metadata", () => {
    expect(reasonOf("::")).toBe("unspecified")
    expect(reasonOf("0:0:0:0:0:0:0:0")).toBe("unspecified")
    expect(reasonOf("::1")).toBe("loopback")
    expect(reasonOf("[::1]")).toBe("loopback")
    expect(reasonOf("fd00:ec2::254")).toBe("metadata")
    expect(reasonOf("FD00:EC2:0:0:0:0:0:254")).toBe("metadata")
    expect(reasonOf("fe80::1%eth0")).toBe("link_local")
  })

  it("outside global unicast (2000::/3) everything not carrying IPv4 is refused", () => {
    fc.assert(
      fc.property(groupsArb, (groups) => {
        const text = v6Text(groups)
        const first = groups[0] ?? 0
        if (first >= 0x2000 && first < 0x4000) return
        if (groups.slice(0, 6).every((g) => g === 0)) return // :: forms carry IPv4
        if (first === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return
        expect([text, reasonOf(text)]).not.toEqual([text, "public"])
      })
    )
  })

  it("random global unicast addresses pass", () => {
    const global = withPrefix([0x2000], 3).filter(
      (g) =>
        !(g[0] === 0x2001 && (g[1] ?? 0) < 0x200) && // 2001::/23
        !(g[0] === 0x2001 && g[1] === 0xdb8) &&
        !(g[0] === 0x3fff && (g[1] ?? 0) < 0x1000) &&
        g[0] !== 0x2002 // 6to4 is judged by its IPv4 address
    )
    fc.assert(fc.property(global, (groups) => reasonOf(v6Text(groups)) === "public"))
    expect(reasonOf("2606:4700:4700::1111")).toBe("public")
    expect(reasonOf("2a00:1450:4001:80b::200e")).toBe("public")
  })

  it("formats as RFC 5952 (the URL parser's own serialisation) and parses back", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          groupsArb,
          groupsArb.map((g) => g.map((x, i) => (i % 3 === 0 ? x : 0)))
        ),
        (groups) => {
          const text = Webhook.formatV6(groups)
          expect(`[${text}]`).toBe(new URL(`http://[${v6Text(groups)}]/`).hostname)
          expect(Option.getOrUndefined(Webhook.parseV6(text))).toEqual(groups)
        }
      )
    )
  })

  it("refuses malformed IPv6 as not an IP", () => {
    for (const text of ["1::2::3", ":1", "1:2:3:4:5:6:7:8:9", "12345::", "1.2.3.4::", "::1.2.3", "g::1"]) {
      expect([text, reasonOf(text)]).toEqual([text, "not_an_ip"])
    }
  })
})
