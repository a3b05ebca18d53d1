/**
 * The URL rule of a webhook: an absolute `http:` or `https:` URL with a host and no user name or
 * password. An IP literal host (in any notation the URL parser reads: `http://2130706433/` is
 * `127.0.0.1`) is judged here by the address rules; a host name can only be judged once resolved,
 * which the caller does with `checkAddress` on every address it resolves to.
 *
 * The allow-list (the operator's setting) names host names and IP addresses, matched exactly and
 * without regard to case, that may be reached even though their addresses are refused: the
 * operator's own receivers, and tests on 127.0.0.1. Each entry names its port too: `host` alone
 * allows the default ports only (80 and 443), `host:8080` that port, `host:*` any port (IPv6 as
 * `[::1]:8080`), so allowing `localhost` does not open Redis on `localhost:6379`. Uses the
 * standard global `URL` class.
 */
import { Either, Option } from "effect"
import { type Classification, classifyAddress, describe, format, parse } from "./address.js"

/** The host of an accepted webhook URL. */
export interface WebhookTarget {
  /** The URL as the WHATWG parser normalises it. */
  readonly href: string
  readonly protocol: "http:" | "https:"
  /** The host, lower case, without brackets or a trailing dot; an IP literal in its normal form. */
  readonly host: string
  /** The port to connect to (the scheme's default when the URL names none). */
  readonly port: number
  /** Path and query, as sent in the request line. */
  readonly path: string
  /** Whether the host is an IP address literal (then it has been classified already). */
  readonly ip: boolean
  /** Whether the allow-list names the host with this port: then its addresses are not checked. */
  readonly allowed: boolean
}

/** The normal form of a host or allow-list entry: trimmed, lower case, no brackets or trailing dot. */
export const normaliseHost = (host: string): string => {
  const lower = host.trim().toLowerCase()
  const unbracketed = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower
  const bare = unbracketed.endsWith(".") ? unbracketed.slice(0, -1) : unbracketed
  return Option.match(parse(bare), { onNone: () => bare, onSome: format })
}

/** The port an allow-list entry allows: one, any (`*`), or the default ports (80 and 443). */
type AllowedPort = number | "*" | "default"

const portText = /^(?:\*|[1-9][0-9]{0,4})$/

/** An entry as host and port; `undefined` when its port is no port (`host:x`, `host:70000`). */
const parseEntry = (entry: string): { readonly host: string; readonly port: AllowedPort } | undefined => {
  const text = entry.trim().toLowerCase()
  let host = text
  let port: string | undefined
  if (text.startsWith("[")) {
    const close = text.indexOf("]")
    if (close === -1) return undefined
    host = text.slice(0, close + 1)
    const rest = text.slice(close + 1)
    if (rest !== "") {
      if (!rest.startsWith(":")) return undefined
      port = rest.slice(1)
    }
  } else if (text.indexOf(":") !== -1 && text.indexOf(":") === text.lastIndexOf(":")) {
    host = text.slice(0, text.indexOf(":"))
    port = text.slice(text.indexOf(":") + 1)
  }
  if (port === undefined) return { host: normaliseHost(host), port: "default" }
  if (!portText.test(port)) return undefined
  if (port === "*") return { host: normaliseHost(host), port: "*" }
  const number = Number(port)
  return number > 65535 ? undefined : { host: normaliseHost(host), port: number }
}

const formatEntry = (host: string, port: AllowedPort): string => {
  if (port === "default") return host
  return `${host.includes(":") ? `[${host}]` : host}:${port}`
}

/**
 * The allow-list setting (`VERBATIM_WEBHOOK_ALLOWED_HOSTS`): comma-separated `host`, `host:port` or
 * `host:*`, each in normal form (host lower case, IPs normalised, IPv6 bracketed before a port);
 * Left names an entry whose port is not a port.
 */
export const readAllowedHosts = (setting: string): Either.Either<ReadonlyArray<string>, string> => {
  const entries: Array<string> = []
  for (const raw of setting.split(",")) {
    if (raw.trim() === "") continue
    const entry = parseEntry(raw)
    if (entry === undefined || entry.host.length === 0) {
      return Either.left(`"${raw.trim()}" is not host, host:port or host:* (a port is 1 to 65535)`)
    }
    entries.push(formatEntry(entry.host, entry.port))
  }
  return Either.right(entries)
}

/**
 * Whether the allow-list names this host or address (exact, case-insensitive, IPs by value) with
 * this port: an entry without a port allows 80 and 443 only.
 */
export const isAllowed = (host: string, port: number, allowedHosts: ReadonlyArray<string>): boolean => {
  const wanted = normaliseHost(host)
  return (
    wanted.length > 0 &&
    allowedHosts.some((raw) => {
      const entry = parseEntry(raw)
      if (entry === undefined || entry.host !== wanted) return false
      return (
        entry.port === "*" ||
        entry.port === port ||
        (entry.port === "default" && (port === 80 || port === 443))
      )
    })
  )
}

const refusedIn = (classification: Classification, host: string): string => {
  const why = describe(classification)
  return host === classification.address ? why : `${host} resolves to ${why}`
}

/**
 * Whether one address `host` resolved to may be reached on `port`: yes when it is public, or when
 * the allow-list names the host or the address itself with that port. Right: the address in normal form.
 */
export const checkAddress = (
  address: string,
  host: string,
  port: number,
  allowedHosts: ReadonlyArray<string>
): Either.Either<string, string> =>
  Option.match(parse(address), {
    onNone: () => Either.left(`${host} resolves to "${address}", which is not an IP address`),
    onSome: (parsed) => {
      const classification = classifyAddress(parsed)
      if (classification._tag === "Public") return Either.right(classification.address)
      if (isAllowed(host, port, allowedHosts) || isAllowed(classification.address, port, allowedHosts)) {
        return Either.right(classification.address)
      }
      return Either.left(
        `${refusedIn(classification, normaliseHost(host))}; webhooks must reach a public address`
      )
    }
  })

const defaultPort = (protocol: "http:" | "https:"): number => (protocol === "https:" ? 443 : 80)

/** Checks a webhook URL; Left is the reason in words, for `details.issues[].message`. */
export const checkUrl = (
  url: string,
  allowedHosts: ReadonlyArray<string>
): Either.Either<WebhookTarget, string> =>
  Either.try(() => new URL(url)).pipe(
    Either.mapLeft(() => "must be an absolute http or https URL"),
    Either.flatMap((parsed): Either.Either<WebhookTarget, string> => {
      const protocol: WebhookTarget["protocol"] | undefined =
        parsed.protocol === "http:" ? "http:" : parsed.protocol === "https:" ? "https:" : undefined
      if (protocol === undefined) return Either.left(`must be an http or https URL, not ${parsed.protocol}`)
      if (parsed.username !== "" || parsed.password !== "") {
        return Either.left("must not contain a user name or password")
      }
      const host = normaliseHost(parsed.hostname)
      if (host.length === 0) return Either.left("must name a host")
      const port = parsed.port === "" ? defaultPort(protocol) : Number(parsed.port)
      const target: Omit<WebhookTarget, "ip" | "allowed"> = {
        href: parsed.href,
        protocol,
        host,
        port,
        path: `${parsed.pathname}${parsed.search}`
      }
      const allowed = isAllowed(host, port, allowedHosts)
      return Option.match(parse(host), {
        onNone: () => Either.right({ ...target, ip: false, allowed }),
        onSome: (address) =>
          checkAddress(format(address), host, port, allowedHosts).pipe(
            Either.map(() => ({ ...target, ip: true, allowed }))
          )
      })
    })
  )
