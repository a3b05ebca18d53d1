/** Name resolution as the adapters use it: every address of a name, in the resolver's order. */
import { promises as dns } from "node:dns"

export interface ResolvedAddress {
  readonly address: string
  /** 4 or 6. */
  readonly family: number
}

/** Resolves a host name to all its addresses; rejects when it cannot (Node's `ENOTFOUND` and kin). */
export type Lookup = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** The system resolver (`getaddrinfo`, so `/etc/hosts` counts), every address, in its order. */
export const systemLookup: Lookup = (host) => dns.lookup(host, { all: true, verbatim: true })

/** A short, stable description of a Node error: its code when it has one, else its message. */
export const describeError = (error: unknown): string => {
  if (error instanceof Error) {
    const code = "code" in error && typeof error.code === "string" ? error.code : undefined
    return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message
  }
  return String(error)
}
