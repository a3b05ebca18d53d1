/**
 * Which IP addresses a webhook may be sent to. A webhook is a request Verbatim makes on a caller's
 * behalf, so an address inside the operator's network (loopback, private ranges, link-local, cloud
 * metadata services, carrier-grade NAT) or one that is not unicast at all is refused; only public
 * unicast addresses pass.
 *
 * IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4
 * address they carry. IPv4 text is read the way `inet_aton` and URL parsers read it, so decimal
 * (`2130706433`), octal (`0177.0.0.1`), hexadecimal (`0x7f.1`) and short (`127.1`) forms mean the
 * address they name.
 */
import { Option, Schema } from "effect"

/** Why an address is refused. */
export const Refusal = Schema.Literal(
  "loopback",
  "private",
  "link_local",
  "metadata",
  "carrier_grade_nat",
  "unspecified",
  "multicast",
  "broadcast",
  "reserved",
  "documentation",
  "not_an_ip"
)
export type Refusal = typeof Refusal.Type

/** An IP address, parsed. IPv4 as one unsigned 32-bit number, IPv6 as eight 16-bit groups. */
export type Address =
  | { readonly _tag: "V4"; readonly value: number }
  | { readonly _tag: "V6"; readonly groups: ReadonlyArray<number> }

/** What `classify` says of an address. `address` is the normalised text (empty when not an IP). */
export type Classification =
  | { readonly _tag: "Public"; readonly address: string }
  | {
      readonly _tag: "Refused"
      readonly address: string
      readonly reason: Refusal
      /** The IPv4 address an IPv6 form carries, when that is what was judged. */
      readonly embedded?: string
    }

// ---------------------------------------------------------------------------------------------
// Parsing

const decimalPart = /^(?:0|[1-9][0-9]*)$/
const octalPart = /^0[0-7]+$/
const hexPart = /^0[xX][0-9a-fA-F]*$/

/** One part of a loose IPv4 text: decimal, octal (leading 0) or hexadecimal (0x); undefined if none. */
const parseV4Part = (part: string): number | undefined => {
  if (part.length === 0 || part.length > 40) return undefined
  if (hexPart.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16)
  if (octalPart.test(part)) return Number.parseInt(part.slice(1), 8)
  if (decimalPart.test(part)) return Number.parseInt(part, 10)
  return undefined
}

/**
 * IPv4 in any notation `inet_aton` and the WHATWG URL parser accept: one to four parts, each
 * decimal, octal or hexadecimal, the last filling the remaining bytes; one trailing dot allowed.
 */
export const parseV4 = (text: string): Option.Option<number> => {
  const trimmed = text.endsWith(".") ? text.slice(0, -1) : text
  const parts = trimmed.split(".")
  if (parts.length > 4) return Option.none()
  const numbers: Array<number> = []
  for (const part of parts) {
    const n = parseV4Part(part)
    if (n === undefined || !Number.isSafeInteger(n)) return Option.none()
    numbers.push(n)
  }
  const last = numbers.pop()
  if (last === undefined) return Option.none()
  if (numbers.some((n) => n > 255)) return Option.none()
  if (last >= 256 ** (4 - numbers.length)) return Option.none()
  const head = numbers.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0)
  return Option.some(head + last)
}

const hexGroup = /^[0-9a-fA-F]{1,4}$/
const dottedQuad = /^(?:0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]{0,2})){3}$/

const parseGroups = (text: string, v4Allowed: boolean): Array<number> | undefined => {
  if (text.length === 0) return []
  const groups: Array<number> = []
  const pieces = text.split(":")
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] ?? ""
    if (v4Allowed && i === pieces.length - 1 && piece.includes(".")) {
      // An IPv4 address in dotted-quad form as the last 32 bits.
      if (!dottedQuad.test(piece)) return undefined
      const v4 = Option.getOrUndefined(parseV4(piece))
      if (v4 === undefined) return undefined
      groups.push(Math.floor(v4 / 65536), v4 % 65536)
    } else {
      if (!hexGroup.test(piece)) return undefined
      groups.push(Number.parseInt(piece, 16))
    }
  }
  return groups
}

/** IPv6 text, with or without brackets, with an optional zone (`%eth0`, ignored). */
export const parseV6 = (text: string): Option.Option<ReadonlyArray<number>> => {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const zone = body.indexOf("%")
  if (zone >= 0) body = body.slice(0, zone)
  if (!body.includes(":")) return Option.none()
  const halves = body.split("::")
  if (halves.length > 2) return Option.none()
  const head = parseGroups(halves[0] ?? "", halves.length === 1)
  if (head === undefined) return Option.none()
  if (halves.length === 1) return head.length === 8 ? Option.some(head) : Option.none()
  const tail = parseGroups(halves[1] ?? "", true)
  if (tail === undefined || head.length + tail.length > 7) return Option.none()
  const zeros = Array.from({ length: 8 - head.length - tail.length }, () => 0)
  return Option.some([...head, ...zeros, ...tail])
}

/** An IP address in any accepted notation; `none` for anything else (a host name). */
export const parse = (text: string): Option.Option<Address> =>
  Option.orElse(
    Option.map(parseV6(text), (groups): Address => ({ _tag: "V6", groups })),
    () => Option.map(parseV4(text), (value): Address => ({ _tag: "V4", value }))
  )

// ---------------------------------------------------------------------------------------------
// Formatting

export const formatV4 = (value: number): string =>
  [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".")

/** RFC 5952 text: lower case, no leading zeros, the longest run (of two or more) of zero groups as `::`. */
export const formatV6 = (groups: ReadonlyArray<number>): string => {
  let bestStart = -1
  let bestLength = 0
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < groups.length && groups[j] === 0) j++
    if (j - i > bestLength) {
      bestStart = i
      bestLength = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestLength < 2) return hex.join(":")
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`
}

export const format = (address: Address): string =>
  address._tag === "V4" ? formatV4(address.value) : formatV6(address.groups)

/**
 * The client an address stands for, for per-client budgets (rate limits by address): an IPv4
 * address as itself, an IPv4-mapped IPv6 address as its IPv4, any other IPv6 address by its /64
 * (one subscriber's usual allocation: a single host can use every address in it). Only strict
 * text is read, a dotted quad or IPv6 text of at most 64 characters; anything else is `none`,
 * so a forwarded header holding garbage names no client.
 */
export const clientOf = (text: string): Option.Option<string> => {
  if (text.length === 0 || text.length > 64) return Option.none()
  if (dottedQuad.test(text)) return Option.map(parseV4(text), formatV4)
  return Option.map(parseV6(text), (groups) => {
    const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff
    if (mapped) return formatV4((groups[6] ?? 0) * 65536 + (groups[7] ?? 0))
    return `${formatV6([...groups.slice(0, 4), 0, 0, 0, 0])}/64`
  })
}

// ---------------------------------------------------------------------------------------------
// Ranges

/** An IPv4 range as `[first address, prefix length]`. */
interface V4Range {
  readonly cidr: string
  readonly base: number
  readonly bits: number
  readonly reason: Refusal
}

const v4 = (cidr: string, reason: Refusal): V4Range => {
  const [text = "", bits = "32"] = cidr.split("/")
  return { cidr, base: Option.getOrThrow(parseV4(text)), bits: Number(bits), reason }
}

/** The size of a `/bits` IPv4 block. */
const v4Size = (bits: number): number => 2 ** (32 - bits)

export const inV4Range = (value: number, base: number, bits: number): boolean =>
  Math.floor(value / v4Size(bits)) === Math.floor(base / v4Size(bits))

/** Cloud metadata and platform services reached by IPv4 (checked before the ranges that hold them). */
export const v4Metadata: ReadonlyArray<string> = [
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle instance metadata
  "169.254.170.2", // AWS ECS task metadata and credentials
  "169.254.170.23", // AWS EKS pod identity
  "100.100.100.200", // Alibaba Cloud metadata
  "168.63.129.16", // Azure wire server (a public address that only answers inside Azure)
  "192.0.0.192" // Oracle Cloud (legacy) metadata
]

/** Refused IPv4 ranges, most specific first (the first match names the reason). */
export const v4Ranges: ReadonlyArray<V4Range> = [
  ...v4Metadata.map((address) => v4(`${address}/32`, "metadata")),
  v4("255.255.255.255/32", "broadcast"),
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier_grade_nat"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link_local"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "reserved"), // IETF protocol assignments
  v4("192.0.2.0/24", "documentation"), // TEST-NET-1
  v4("192.88.99.0/24", "reserved"), // deprecated 6to4 relay anycast
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "reserved"), // benchmarking
  v4("198.51.100.0/24", "documentation"), // TEST-NET-2
  v4("203.0.113.0/24", "documentation"), // TEST-NET-3
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved") // future use (255.255.255.255 is matched above)
]

/** An IPv6 range as its first groups and prefix length. */
interface V6Range {
  readonly cidr: string
  readonly groups: ReadonlyArray<number>
  readonly bits: number
  readonly reason: Refusal
}

const v6 = (cidr: string, reason: Refusal): V6Range => {
  const [text = "", bits = "128"] = cidr.split("/")
  return { cidr, groups: Option.getOrThrow(parseV6(text)), bits: Number(bits), reason }
}

export const inV6Range = (
  groups: ReadonlyArray<number>,
  base: ReadonlyArray<number>,
  bits: number
): boolean => {
  for (let i = 0; i < 8; i++) {
    const take = Math.max(0, Math.min(16, bits - 16 * i))
    if (take === 0) return true
    const shift = 16 - take
    if ((groups[i] ?? 0) >> shift !== (base[i] ?? 0) >> shift) return false
  }
  return true
}

/** Cloud metadata services reached by IPv6. */
export const v6Metadata: ReadonlyArray<string> = [
  "fd00:ec2::254", // AWS instance metadata over IPv6
  "fd00:ec2::23" // AWS EKS pod identity over IPv6
]

/** Refused IPv6 ranges that carry no IPv4 address, most specific first. */
export const v6Ranges: ReadonlyArray<V6Range> = [
  ...v6Metadata.map((address) => v6(`${address}/128`, "metadata")),
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("64:ff9b:1::/48", "private"), // local-use NAT64 (RFC 8215)
  v6("100::/64", "reserved"), // discard-only
  v6("2001::/23", "reserved"), // IETF protocol assignments, Teredo among them
  v6("2001:db8::/32", "documentation"),
  v6("3fff::/20", "documentation"),
  v6("5f00::/16", "reserved"), // SRv6 segment identifiers
  v6("fc00::/7", "private"), // unique local
  v6("fe80::/10", "link_local"),
  v6("fec0::/10", "private"), // deprecated site-local
  v6("ff00::/8", "multicast")
]

/** Global unicast: IPv6 outside it is refused as reserved. */
const globalUnicast = v6("2000::/3", "reserved")

/** The IPv6 forms that carry an IPv4 address, and the group where it starts. */
const v4Carriers: ReadonlyArray<{ readonly range: V6Range; readonly at: number }> = [
  { range: v6("::ffff:0:0/96", "reserved"), at: 6 }, // IPv4-mapped
  { range: v6("::ffff:0:0:0/96", "reserved"), at: 6 }, // IPv4-translated (RFC 2765)
  { range: v6("64:ff9b::/96", "reserved"), at: 6 }, // NAT64 well-known prefix
  { range: v6("2002::/16", "reserved"), at: 1 } // 6to4: the IPv4 address follows the prefix
] // (their reason is unused: the carried address is judged instead)

/** The IPv4 address an IPv6 address carries, if it is one of the forms that carry one. */
export const embeddedV4 = (groups: ReadonlyArray<number>): Option.Option<number> => {
  for (const { range, at } of v4Carriers) {
    if (inV6Range(groups, range.groups, range.bits)) {
      return Option.some((groups[at] ?? 0) * 65536 + (groups[at + 1] ?? 0))
    }
  }
  // IPv4-compatible (deprecated): 96 zero bits, then the IPv4 address (`::` and `::1` excepted).
  if (groups.slice(0, 6).every((g) => g === 0) && ((groups[6] ?? 0) !== 0 || (groups[7] ?? 0) > 1)) {
    return Option.some((groups[6] ?? 0) * 65536 + (groups[7] ?? 0))
  }
  return Option.none()
}

const classifyV4 = (value: number): Option.Option<Refusal> => {
  const range = v4Ranges.find((r) => inV4Range(value, r.base, r.bits))
  return range === undefined ? Option.none() : Option.some(range.reason)
}

/** Classifies a parsed address. */
export const classifyAddress = (address: Address): Classification => {
  const text = format(address)
  if (address._tag === "V4") {
    return Option.match(classifyV4(address.value), {
      onNone: () => ({ _tag: "Public", address: text }),
      onSome: (reason) => ({ _tag: "Refused", address: text, reason })
    })
  }
  const { groups } = address
  const range = v6Ranges.find((r) => inV6Range(groups, r.groups, r.bits))
  if (range !== undefined) return { _tag: "Refused", address: text, reason: range.reason }
  const carried = embeddedV4(groups)
  if (Option.isSome(carried)) {
    const embedded = formatV4(carried.value)
    return Option.match(classifyV4(carried.value), {
      onNone: () => ({ _tag: "Public", address: text }),
      onSome: (reason) => ({ _tag: "Refused", address: text, reason, embedded })
    })
  }
  if (!inV6Range(groups, globalUnicast.groups, globalUnicast.bits)) {
    return { _tag: "Refused", address: text, reason: "reserved" }
  }
  return { _tag: "Public", address: text }
}

/**
 * Public, or the reason the address is refused. Text that is no IP address in any accepted
 * notation is refused as `not_an_ip` (fail closed).
 */
export const classify = (ip: string): Classification =>
  Option.match(parse(ip), {
    onNone: () => ({ _tag: "Refused", address: "", reason: "not_an_ip" }),
    onSome: classifyAddress
  })

/** Whether `classify` lets the address through. */
export const isPublic = (ip: string): boolean => classify(ip)._tag === "Public"

const refusalWords: Record<Refusal, string> = {
  loopback: "a loopback address",
  private: "a private address",
  link_local: "a link-local address",
  metadata: "a cloud metadata address",
  carrier_grade_nat: "a carrier-grade NAT address",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved address",
  documentation: "a documentation address",
  not_an_ip: "not an IP address"
}

/** The refusal in words: `10.0.0.1 is a private address`. */
export const describe = (classification: Classification): string => {
  if (classification._tag === "Public") return `${classification.address} is a public address`
  const words = refusalWords[classification.reason]
  const carried = classification.embedded === undefined ? "" : ` (it carries ${classification.embedded})`
  return classification.reason === "not_an_ip"
    ? "the address is not an IP address"
    : `${classification.address} is ${words}${carried}`
}
