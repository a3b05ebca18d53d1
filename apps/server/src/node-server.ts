/**
 * The node HTTP server Verbatim listens with. Requests node refuses before the app sees them would
 * get a bare status with no body; here they get the API's error body with the standard status, so
 * every answer of the service is `{error, message, details}`: a head over node's 16 KiB limit is 431
 * `request_header_too_large`, a head that does not arrive within node's `headersTimeout` (or a
 * request not whole within its `requestTimeout`) is 408 `request_timeout`, a malformed request is
 * 400 `invalid_request`.
 *
 * Node's `requestTimeout` (300 s by default) would end every signed PUT after five minutes, whatever
 * its size: it is set to the longest PUT the upload pace allows (the largest upload at the minimum
 * rate) plus the head's time, so that the PUT's own bound (`MediaUploads.receive`, derived from its
 * signed size) always answers first, with its own 408. Every other request with a body must be
 * whole within `bodyTimeoutMs` (300 s, node's old bound): a plain timer per such request, cleared
 * when it ends or is answered, answers 408 `request_timeout` with the error body and closes the
 * connection. (An `Effect.timeoutFail` around each body read did the same at a quarter of owned
 * POST /transcribe's throughput, `bench:ab`.)
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { isSignedPut } from "@verbatim/api"
import {
  acceptedRequestId,
  defaultUploadPace,
  longestPutMillis,
  type UploadPaceSettings
} from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { defaultKeepAliveMs } from "./keep-alive.js"

/**
 * An answer written to the socket itself, before (or instead of) the app: the error body with a
 * request id as every answer has (`X-Request-Id` and `request_id`; the client's when the head was
 * read and its id is valid, else a new one).
 */
const reply = (
  socket: Duplex,
  code: Errors.ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  clientId?: string | undefined
) => {
  const status = Errors.statusOf(code)
  const id = acceptedRequestId(clientId) ?? randomUUID()
  const body = JSON.stringify({ ...Errors.apiError(code, message, details).toBody(), request_id: id })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`
  )
}

/** The largest request head node accepts (its `maxHeaderSize`). */
export const maxHeadBytes = 16 * 1024

/** Node's default `headersTimeout`. */
export const defaultHeadersTimeoutMs = 60_000

/** How long a request other than a signed PUT may take to arrive whole: node's old `requestTimeout`. */
export const defaultBodyTimeoutMs = 300_000

export interface NodeServerOptions {
  /** How long a request head may take to arrive (node's `headersTimeout`; default 60 s). */
  readonly headersTimeoutMs?: number | undefined
  /** How often node checks for heads past their time (default 30 s; tests shorten it). */
  readonly checkEveryMs?: number | undefined
  /** The pace signed PUTs are held to (default core's `defaultUploadPace`): node's `requestTimeout` follows it. */
  readonly uploadPace?: UploadPaceSettings | undefined
  /** How long any other request's body may take to arrive (default `defaultBodyTimeoutMs`; tests shorten it). */
  readonly bodyTimeoutMs?: number | undefined
  /** How long an idle connection is kept open (node's `keepAliveTimeout`; default 75 s, not node's 5 s). */
  readonly keepAliveTimeoutMs?: number | undefined
}

/** The `X-Request-Id` a request sent (one value), if any. */
const requestIdOf = (request: IncomingMessage): string | undefined => {
  const header = request.headers["x-request-id"]
  return typeof header === "string" ? header : undefined
}

/** Whether a request carries a body to wait for (a length above 0, or chunks). */
const hasBody = (request: IncomingMessage): boolean =>
  request.headers["transfer-encoding"] !== undefined ||
  (request.headers["content-length"] !== undefined && request.headers["content-length"] !== "0")

/**
 * Bounds the arrival of a request's body (not a signed PUT's, which has its own bound): past
 * `timeoutMs` without the whole body, 408 `request_timeout` with the error body, connection closed.
 */
const boundBody = (timeoutMs: number) => (request: IncomingMessage, response: ServerResponse) => {
  if (!hasBody(request) || isSignedPut(request.method ?? "", request.url ?? "")) return
  const timer = setTimeout(() => {
    if (request.complete || response.headersSent) return
    reply(
      request.socket,
      "request_timeout",
      `The request body did not arrive within ${timeoutMs / 1000} s`,
      { body_timeout_ms: timeoutMs },
      requestIdOf(request)
    )
  }, timeoutMs)
  const clear = () => clearTimeout(timer)
  request.once("end", clear)
  request.once("close", clear)
  response.once("finish", clear)
}

/** Node's `requestTimeout`: the longest signed PUT, plus the time its head may take. */
export const requestTimeoutMs = (options: NodeServerOptions = {}): number =>
  longestPutMillis(options.uploadPace ?? defaultUploadPace) +
  (options.headersTimeoutMs ?? defaultHeadersTimeoutMs)

export const makeNodeServer = (options: NodeServerOptions = {}): Server => {
  const server = createServer({
    requestTimeout: requestTimeoutMs(options),
    ...(options.headersTimeoutMs === undefined ? {} : { headersTimeout: options.headersTimeoutMs }),
    ...(options.checkEveryMs === undefined ? {} : { connectionsCheckingInterval: options.checkEveryMs })
  })
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? defaultKeepAliveMs
  server.on("request", boundBody(options.bodyTimeoutMs ?? defaultBodyTimeoutMs))
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy()
      return
    }
    if (error.code === "HPE_HEADER_OVERFLOW") {
      reply(
        socket,
        "request_header_too_large",
        "The request head (URL and headers) is larger than the server accepts (16 KiB)",
        { max_head_bytes: maxHeadBytes }
      )
    } else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      reply(
        socket,
        "request_timeout",
        "The request did not arrive in time: its head within the server's head timeout, or the whole request within its request timeout"
      )
    } else {
      reply(socket, "invalid_request", "The request is not valid HTTP")
    }
  })
  return server
}
