/**
 * A webhook receiver for the HTTP suites: a server on 127.0.0.1 that answers 204 and keeps what it
 * got (headers and body), closed with the scope.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface Received {
  readonly headers: Record<string, string>
  readonly body: string
}

export interface Receiver {
  readonly url: string
  readonly received: ReadonlyArray<Received>
}

/** A receiver whose URL ends with `path`. */
export const webhookReceiver = (path = "/hook") =>
  Effect.acquireRelease(
    Effect.async<Receiver & { readonly close: (done: () => void) => void }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const headers: Record<string, string> = {}
          for (const [name, value] of Object.entries(request.headers)) {
            if (typeof value === "string") headers[name] = value
          }
          received.push({ headers, body: Buffer.concat(chunks).toString("utf8") })
          response.statusCode = 204
          response.end()
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
            received,
            close: (done) => {
              server.closeAllConnections()
              server.close(() => done())
            }
          })
        )
      )
    }),
    (receiver) => Effect.async<void>((resume) => receiver.close(() => resume(Effect.void)))
  )
