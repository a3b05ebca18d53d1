/**
 * A TCP proxy in front of a server (PostgreSQL, in the outage tests) that a test can break:
 *
 * - `freeze()`: bytes stop flowing both ways and new connections wait, as when the database
 *   process is stopped with SIGSTOP (connections open, nothing answers);
 * - `thaw()`: everything held flows on;
 * - `close()`: every connection is cut and the port refuses new ones, as when the database is down;
 * - `open()`: the port accepts connections again (the database is back).
 */
import { createConnection, createServer, type Server, type Socket } from "node:net"
import { Effect, Layer } from "effect"

interface Pair {
  readonly client: Socket
  upstream: Socket | undefined
  readonly toUpstream: Array<Buffer>
  readonly toClient: Array<Buffer>
}

export class TcpProxy {
  private server: Server | undefined
  private readonly pairs = new Set<Pair>()
  private frozen = false
  port = 0

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = "127.0.0.1"
  ) {}

  /** Listens (on a free port the first time, on the same port after `close`). */
  open(): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((client) => this.accept(client))
      server.once("error", reject)
      server.listen(this.port, "127.0.0.1", () => {
        const address = server.address()
        this.port = typeof address === "object" && address !== null ? address.port : this.port
        this.server = server
        resolve(this.port)
      })
    })
  }

  freeze(): void {
    this.frozen = true
  }

  thaw(): void {
    this.frozen = false
    for (const pair of this.pairs) {
      if (pair.upstream === undefined) this.connect(pair)
      this.flush(pair)
    }
  }

  /** Cuts every connection and stops listening: new connections are refused. */
  close(): Promise<void> {
    this.frozen = false
    for (const pair of this.pairs) {
      pair.client.destroy()
      pair.upstream?.destroy()
    }
    this.pairs.clear()
    const server = this.server
    this.server = undefined
    return new Promise((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
  }

  get connections(): number {
    return this.pairs.size
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined, toUpstream: [], toClient: [] }
    this.pairs.add(pair)
    client.on("data", (chunk) => {
      pair.toUpstream.push(chunk)
      this.flush(pair)
    })
    client.on("error", () => {})
    client.on("close", () => {
      pair.upstream?.destroy()
      this.pairs.delete(pair)
    })
    if (!this.frozen) this.connect(pair)
  }

  private connect(pair: Pair): void {
    const upstream = createConnection({ port: this.targetPort, host: this.targetHost })
    pair.upstream = upstream
    upstream.on("data", (chunk) => {
      pair.toClient.push(chunk)
      this.flush(pair)
    })
    upstream.on("connect", () => this.flush(pair))
    upstream.on("error", () => {})
    upstream.on("close", () => {
      pair.client.destroy()
      this.pairs.delete(pair)
    })
  }

  private flush(pair: Pair): void {
    if (this.frozen) return
    const upstream = pair.upstream
    if (upstream !== undefined && !upstream.connecting) {
      for (const chunk of pair.toUpstream.splice(0)) upstream.write(chunk)
    }
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk)
  }
}

/** `url` with its host and port replaced by the proxy's on this machine. */
export const throughProxy = (url: string, port: number): string => {
  const proxied = new URL(url)
  proxied.hostname = "127.0.0.1"
  proxied.port = String(port)
  return proxied.toString()
}

/** A layer built on the proxy's port while the proxy is open; the proxy is closed with it. */
export const withProxy = <A, E, R>(proxy: TcpProxy, build: (port: number) => Layer.Layer<A, E, R>) =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => proxy.open()),
        () => Effect.promise(() => proxy.close())
      ),
      build
    )
  )
