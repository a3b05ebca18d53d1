/**
 * The connection budget (`src/connections.ts`): a model-based property over random sequences of
 * connections opening, requests starting and ending, and connections closing, checked after every
 * step against a plain model; then the budget on a real node server, where connections that send
 * nothing fill the cap and a request with a key is still answered.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { connect, type Socket } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { type Connection, ConnectionBudget } from "../src/connections.js"
import { connectionBudgetOf } from "../src/node-server.js"
import { withNodeServer } from "./node-servers.js"

class Fake implements Connection {
  destroyed = false
  constructor(
    readonly id: number,
    readonly remoteAddress: string
  ) {}
  destroy() {
    this.destroyed = true
  }
}

type Step =
  | { readonly kind: "open"; readonly address: string }
  | { readonly kind: "start" | "end" | "close"; readonly pick: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("open" as const), address: fc.constantFrom("a", "b", "c") }),
  fc.record({ kind: fc.constantFrom("start" as const, "end" as const, "close" as const), pick: fc.nat() })
)

describe("the connection budget", () => {
  it("never passes its caps, closes only idle connections, and keeps a new one whenever an idle one could make room", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(step, { maxLength: 120 }),
        (total, perAddress, steps) => {
          const budget = new ConnectionBudget<Fake>({ total, perAddress })
          // The model: open connections with their requests being answered.
          const open: Array<{ fake: Fake; busy: number; idleSince: number }> = []
          let clock = 0
          const alive = () => open.filter((entry) => !entry.fake.destroyed)
          for (const [index, s] of steps.entries()) {
            clock += 1
            if (s.kind === "open") {
              const fake = new Fake(index, s.address)
              const before = alive()
              const idleOf = (entries: typeof before) => entries.filter((entry) => entry.busy === 0)
              const sameAddress = before.filter((entry) => entry.fake.remoteAddress === s.address)
              const addressFull = perAddress > 0 && sameAddress.length >= perAddress
              const roomExpected =
                (!addressFull || idleOf(sameAddress).length > 0) &&
                (before.length < total || addressFull || idleOf(before).length > 0)
              const kept = budget.opened(fake)
              expect(kept).toBe(roomExpected)
              expect(fake.destroyed).toBe(!kept)
              // Only idle connections were closed, and the longest idle of their kind.
              const closed = before.filter((entry) => entry.fake.destroyed)
              expect(closed.length).toBeLessThanOrEqual(1)
              for (const entry of closed) {
                expect(entry.busy).toBe(0)
                const pool = addressFull ? idleOf(sameAddress) : idleOf(before)
                expect(entry.idleSince).toBe(Math.min(...pool.map((other) => other.idleSince)))
              }
              if (kept) open.push({ fake, busy: 0, idleSince: clock })
            } else {
              const live = alive()
              if (live.length === 0) continue
              const entry = live[s.pick % live.length]
              if (entry === undefined) continue
              if (s.kind === "start") {
                budget.requestStarted(entry.fake)
                entry.busy += 1
              } else if (s.kind === "end") {
                budget.requestEnded(entry.fake)
                if (entry.busy > 0) {
                  entry.busy -= 1
                  if (entry.busy === 0) entry.idleSince = clock
                }
              } else {
                entry.fake.destroy()
                budget.closed(entry.fake)
              }
            }
            const live = alive()
            expect(budget.open).toBe(live.length)
            expect(budget.open).toBeLessThanOrEqual(total)
            if (perAddress > 0) {
              for (const address of ["a", "b", "c"]) {
                const count = live.filter((entry) => entry.fake.remoteAddress === address).length
                expect(count).toBeLessThanOrEqual(perAddress)
              }
            }
          }
        }
      )
    ))
})

const opened = (port: number, localAddress?: string) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(
      { port, host: "127.0.0.1", ...(localAddress === undefined ? {} : { localAddress }) },
      () => resolve(socket)
    )
    socket.once("error", reject)
  })

const closedSoon = (socket: Socket) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed || socket.readyState === "closed") resolve()
    socket.once("close", () => resolve())
  })

/** One request on a fresh connection; the whole answer, read until the server ends it. */
const exchange = (port: number, bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8")
    })
    socket.on("error", reject)
    socket.on("close", () => resolve(answer))
    socket.write(bytes)
  })

const answerAtOnce = (_request: IncomingMessage, response: ServerResponse) => {
  response.end("{}")
}

describe("connections past the cap on a real server", () => {
  it("a new connection takes the place of the longest idle one: silent connections at the cap hold nothing against a request", () => {
    const sockets: Array<Socket> = []
    return withNodeServer(
      { connectionCaps: { total: 20, perAddress: 0 } },
      answerAtOnce,
      async (port, server) => {
        try {
          for (let i = 0; i < 20; i += 1) sockets.push(await opened(port))
          // Each of the 20 sends nothing: all idle, at the cap.
          const budget = connectionBudgetOf(server)
          await expect.poll(() => budget?.open).toBe(20)
          const answer = await exchange(
            port,
            "GET /api/v2/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
          )
          expect(answer.split(" ")[1]).toBe("200")
          // The first silent connection was closed to make room; the budget never passed the cap.
          await closedSoon(sockets[0] as Socket)
          expect(budget?.evicted).toBeGreaterThanOrEqual(1)
          expect(budget?.open ?? 0).toBeLessThanOrEqual(20)
        } finally {
          for (const socket of sockets) socket.destroy()
        }
      }
    )
  })

  it("a peer address at its cap gives up its own longest idle connection, not another peer's", () => {
    const sockets: Array<Socket> = []
    return withNodeServer(
      { connectionCaps: { total: 100, perAddress: 3 } },
      answerAtOnce,
      async (port, server) => {
        try {
          // The longest idle of all is another peer's (127.0.0.2: loopback answers for all of 127/8).
          const other = await opened(port, "127.0.0.2")
          sockets.push(other)
          const own: Array<Socket> = []
          for (let i = 0; i < 3; i += 1) own.push(await opened(port))
          sockets.push(...own)
          const budget = connectionBudgetOf(server)
          await expect.poll(() => budget?.open).toBe(4)
          sockets.push(await opened(port))
          await closedSoon(own[0] as Socket)
          await expect.poll(() => budget?.open).toBe(4)
          expect(other.destroyed).toBe(false)
          expect(own.slice(1).every((socket) => !socket.destroyed)).toBe(true)
        } finally {
          for (const socket of sockets) socket.destroy()
        }
      }
    )
  })
})
