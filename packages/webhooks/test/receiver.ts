/** Local HTTP receivers on 127.0.0.1 for the sender's tests: they record what reached them. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export interface Receiver {
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: ReadonlyArray<Received>
  /** TCP connections accepted, whether or not a request followed. */
  readonly connections: () => number
}

/**
 * A receiver answering each request with `answer` (after the body is read). `answer` may leave the
 * response open to simulate a receiver that never answers.
 */
export const receiver = (
  answer: (request: Received, response: http.ServerResponse) => void
): Effect.Effect<Receiver, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ server: http.Server; receiver: Receiver }>((resume) => {
      const requests: Array<Received> = []
      let connections = 0
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const received: Received = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          requests.push(received)
          answer(received, res)
        })
      })
      server.on("connection", () => {
        connections++
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(
          Effect.succeed({
            server,
            receiver: { port, origin: `http://127.0.0.1:${port}`, requests, connections: () => connections }
          })
        )
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ receiver }) => receiver))

/**
 * Sends a request of our own to the receiver and waits for its answer. A listening socket accepts
 * connections in the order they arrive, so once the probe is answered, every connection made to the
 * receiver before it has been accepted and counted: a test can then say that none was made, with no
 * sleep standing in for the event.
 */
export const probe = (to: Receiver): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const request = http.request(
      { host: "127.0.0.1", port: to.port, path: probePath, method: "POST", agent: false },
      (response) => {
        response.resume()
        response.on("end", () => resume(Effect.void))
      }
    )
    request.on("error", (error) => resume(Effect.die(error)))
    request.end("probe")
  })

/** The path of `probe`'s requests. */
export const probePath = "/probe"

/** The requests that reached a receiver, `probe`'s left out. */
export const received = (from: Receiver): ReadonlyArray<Received> =>
  from.requests.filter((request) => request.url !== probePath)

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
export const closedPort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})
