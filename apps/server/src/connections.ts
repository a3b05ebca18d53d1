/**
 * Connections as a budget: at most `total` open at once, and at most `perAddress` from one peer
 * address. A connection is idle while no request on it is being answered: waiting for its first
 * head (a slow or silent client), kept alive between requests, or dropping the rest of a body
 * already answered. A connection that would pass a cap closes the longest-idle connection under
 * that cap (its peer's own, for the address cap) and is kept; only when every connection under the
 * cap is answering a request is the new one closed. So a client that opens thousands of
 * connections and sends nothing holds none of them against a client with a key and a request:
 * each new connection takes the place of the oldest idle one.
 *
 * Behind a proxy every connection comes from the proxy's address: its pool of upstream connections
 * must fit within `perAddress` (or set it to 0, no address cap, and let the proxy cap clients).
 */

/** The default cap on open connections (`VERBATIM_MAX_CONNECTIONS`). */
export const defaultMaxConnections = 4096

/** The default cap on connections from one address (`VERBATIM_MAX_CONNECTIONS_PER_ADDRESS`; 0: none). */
export const defaultMaxConnectionsPerAddress = 512

export interface ConnectionCaps {
  readonly total: number
  /** 0: no cap per address. */
  readonly perAddress: number
}

/** What the budget needs of a connection: its peer's address, and a way to close it. */
export interface Connection {
  readonly remoteAddress?: string | undefined
  destroy(): void
}

interface Entry {
  readonly address: string
  /** Requests on it being answered. */
  busy: number
}

/** Sets in insertion order: the first is the longest idle. */
const oldest = <A>(set: Set<A>): A | undefined => set.values().next().value

export class ConnectionBudget<C extends Connection> {
  private readonly entries = new Map<C, Entry>()
  private readonly idle = new Set<C>()
  private readonly idleByAddress = new Map<string, Set<C>>()
  private readonly countByAddress = new Map<string, number>()
  /** Connections closed to make room, and new connections refused (every other was answering). */
  evicted = 0
  refused = 0

  constructor(readonly caps: ConnectionCaps) {}

  get open(): number {
    return this.entries.size
  }

  /** A new connection: kept (true) when within the caps or once an idle one made room; else closed. */
  opened(connection: C): boolean {
    const address = connection.remoteAddress ?? ""
    if (this.caps.perAddress > 0 && (this.countByAddress.get(address) ?? 0) >= this.caps.perAddress) {
      if (!this.evict(this.idleByAddress.get(address))) return this.refuse(connection)
    }
    if (this.entries.size >= this.caps.total && !this.evict(this.idle)) return this.refuse(connection)
    this.entries.set(connection, { address, busy: 0 })
    this.countByAddress.set(address, (this.countByAddress.get(address) ?? 0) + 1)
    this.markIdle(connection, address)
    return true
  }

  /** A request on the connection is being answered. */
  requestStarted(connection: C): void {
    const entry = this.entries.get(connection)
    if (entry === undefined) return
    entry.busy += 1
    this.unmarkIdle(connection, entry.address)
  }

  /** A request on the connection was answered (or abandoned). */
  requestEnded(connection: C): void {
    const entry = this.entries.get(connection)
    if (entry === undefined || entry.busy === 0) return
    entry.busy -= 1
    if (entry.busy === 0) this.markIdle(connection, entry.address)
  }

  /** The connection closed, for whatever reason. */
  closed(connection: C): void {
    const entry = this.entries.get(connection)
    if (entry === undefined) return
    this.entries.delete(connection)
    this.unmarkIdle(connection, entry.address)
    const count = (this.countByAddress.get(entry.address) ?? 1) - 1
    if (count === 0) this.countByAddress.delete(entry.address)
    else this.countByAddress.set(entry.address, count)
  }

  private refuse(connection: C): false {
    this.refused += 1
    connection.destroy()
    return false
  }

  /** Closes the longest-idle connection of `among`, if any. */
  private evict(among: Set<C> | undefined): boolean {
    const victim = among === undefined ? undefined : oldest(among)
    if (victim === undefined) return false
    this.evicted += 1
    this.closed(victim)
    victim.destroy()
    return true
  }

  private markIdle(connection: C, address: string): void {
    this.idle.add(connection)
    let set = this.idleByAddress.get(address)
    if (set === undefined) {
      set = new Set()
      this.idleByAddress.set(address, set)
    }
    set.add(connection)
  }

  private unmarkIdle(connection: C, address: string): void {
    this.idle.delete(connection)
    const set = this.idleByAddress.get(address)
    if (set === undefined) return
    set.delete(connection)
    if (set.size === 0) this.idleByAddress.delete(address)
  }
}
