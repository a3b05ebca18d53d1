/**
 * A raw HTTP client for the tests (node:http, so headers, framing and disconnects are exactly what
 * a test asks for), and the conversion of a node request body into the `Stream` the receiver takes.
 */
import { type IncomingMessage, request } from "node:http"
import { Duration, Effect, Stream } from "effect"

export interface PutOptions {
  readonly url: string
  /** Sent as given; `content-length` is added from the body unless `chunked`. */
  readonly headers?: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /** Sends the body with `Transfer-Encoding: chunked` (no Content-Length), in two chunks. */
  readonly chunked?: boolean
}

export interface Answer {
  readonly status: number
  readonly body: string
}

const readAll = (response: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    response.on("error", reject)
  })

/** One PUT; the answer's status and body. */
export const put = (options: PutOptions): Effect.Effect<Answer, Error> =>
  Effect.async<Answer, Error>((resume) => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.chunked !== true) headers["content-length"] = String(options.body.byteLength)
    const req = request(options.url, { method: "PUT", headers, agent: false }, (response) => {
      readAll(response).then(
        (body) => resume(Effect.succeed({ status: response.statusCode ?? 0, body })),
        (error: Error) => resume(Effect.fail(error))
      )
    })
    req.on("error", (error) => resume(Effect.fail(error)))
    if (options.chunked === true) {
      const half = Math.floor(options.body.byteLength / 2)
      req.write(options.body.subarray(0, half))
      req.write(options.body.subarray(half))
    } else {
      req.write(options.body)
    }
    req.end()
    return Effect.sync(() => req.destroy())
  }).pipe(Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => new Error("PUT timed out") }))

/**
 * Declares `declared` bytes, sends `sent` of them, waits a little (so they reach the server), then
 * drops the connection.
 */
export const putAndDisconnect = (options: {
  readonly url: string
  readonly contentType: string
  readonly declared: number
  readonly sent: Uint8Array
}): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const req = request(options.url, {
      method: "PUT",
      headers: { "content-type": options.contentType, "content-length": String(options.declared) },
      agent: false
    })
    req.on("error", () => {})
    req.write(options.sent)
    const timer = setTimeout(() => {
      req.destroy()
      resume(Effect.void)
    }, 150)
    return Effect.sync(() => {
      clearTimeout(timer)
      req.destroy()
    })
  })

/**
 * A node request's body; fails when the client goes away before the end. Stopping early does not
 * destroy the request, so the server can still answer the refusal.
 */
export const bodyOf = (req: IncomingMessage): Stream.Stream<Uint8Array, Error> =>
  Stream.fromAsyncIterable(
    { [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false }) as AsyncIterator<Uint8Array> },
    (error) => (error instanceof Error ? error : new Error(String(error)))
  )
