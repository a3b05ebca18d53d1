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
 * POST /transcribe's throughput, `bench:ab`.) A body to a route that needs no key (outside the API's
 * base path: OAuth, the web library's sign-in) has `anonymousBodyTimeoutMs` (10 s) instead.
 *
 * A body answered before it arrived (`lingerAfterAnswer`) is dropped for a short time, then its
 * connection closed; connections are a budget (`connections.ts`).
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { isKeyedPath, isSignedPut } from "@verbatim/api"
import {
  acceptedRequestId,
  defaultUploadPace,
  longestPutMillis,
  type UploadPaceSettings
} from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import {
  ConnectionBudget,
  type ConnectionCaps,
  defaultMaxConnections,
  defaultMaxConnectionsPerAddress
} from "./connections.js"
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
  /** How long a body that needs no key (OAuth, the web library's sign-in) may take (default 10 s). */
  readonly anonymousBodyTimeoutMs?: number | undefined
  /** How long the rest of a body answered before it arrived is dropped before the connection closes (default 2 s). */
  readonly lingerMs?: number | undefined
  /** The caps on open connections, in all and per peer address (`connections.ts`). */
  readonly connectionCaps?: ConnectionCaps | undefined
}

/** How long a body to a route that needs no key may take to arrive. */
export const defaultAnonymousBodyTimeoutMs = 10_000

/** How long the rest of a body answered early is read and dropped, so that its sender gets the answer. */
export const defaultLingerMs = 2_000

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
const boundBody =
  (keyedMs: number, anonymousMs: number) => (request: IncomingMessage, response: ServerResponse) => {
    if (!hasBody(request) || isSignedPut(request.method ?? "", request.url ?? "")) return
    const timeoutMs = isKeyedPath(request.url ?? "") ? keyedMs : anonymousMs
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

/**
 * A body answered before it arrived whole (a 401 before it is read, a 413 past the limit, a 409 to a
 * second PUT) is not left to hold the connection, nor cut under its sender while it still sends
 * (a reset can lose the answer the sender has not read yet): the rest is read and dropped for
 * `lingerMs`, then the connection closes; a body that ends within that time leaves the connection
 * open for the next request. The app's body stream destroys the request when it stops reading
 * early, which would reset the connection before the answer is written: until the answer is
 * written, such a destroy (one without an error) only stops the reading.
 */
const lingerAfterAnswer = (lingerMs: number) => (request: IncomingMessage, response: ServerResponse) => {
  if (!hasBody(request)) return
  const socket = request.socket
  const destroy = request.destroy.bind(request)
  request.destroy = (error?: Error) => {
    if (error == null && !request.complete && !response.writableFinished && !socket.destroyed) return request
    return destroy(error)
  }
  response.once("finish", () => {
    if (request.complete || socket.destroyed) return
    // On a connection the request asked to close, node has ended the socket's writing and destroys
    // it once that is flushed: with body bytes still arriving, a reset. It is closed after the
    // rest of the body (or the linger) instead.
    const closing = socket.writableEnded
    if (closing) socket.removeListener("finish", socket.destroy)
    const timer = setTimeout(() => socket.destroy(), lingerMs)
    const stop = () => {
      clearTimeout(timer)
      request.off("end", stop)
      socket.off("close", stop)
      if (closing) socket.destroy()
    }
    request.removeAllListeners("data")
    request.once("end", stop)
    socket.once("close", stop)
    request.resume()
  })
}

/** Node's `requestTimeout`: the longest signed PUT, plus the time its head may take. */
export const requestTimeoutMs = (options: NodeServerOptions = {}): number =>
  longestPutMillis(options.uploadPace ?? defaultUploadPace) +
  (options.headersTimeoutMs ?? defaultHeadersTimeoutMs)

/** Keeps the server's connections within `caps` (`ConnectionBudget`, read with `connectionBudgetOf`). */
const budgetConnections = (server: Server, caps: ConnectionCaps) => {
  const budget = new ConnectionBudget<Socket>(caps)
  budgets.set(server, budget)
  server.on("connection", (socket: Socket) => {
    if (!budget.opened(socket)) return
    socket.once("close", () => budget.closed(socket))
  })
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket as Socket
    budget.requestStarted(socket)
    response.once("close", () => budget.requestEnded(socket))
  })
}

const budgets = new WeakMap<Server, ConnectionBudget<Socket>>()

/** The connection budget of a server made by `makeNodeServer` (for its metrics and tests). */
export const connectionBudgetOf = (server: Server): ConnectionBudget<Socket> | undefined =>
  budgets.get(server)

export const makeNodeServer = (options: NodeServerOptions = {}): Server => {
  const server = createServer({
    requestTimeout: requestTimeoutMs(options),
    ...(options.headersTimeoutMs === undefined ? {} : { headersTimeout: options.headersTimeoutMs }),
    ...(options.checkEveryMs === undefined ? {} : { connectionsCheckingInterval: options.checkEveryMs })
  })
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? defaultKeepAliveMs
  server.on(
    "request",
    boundBody(
      options.bodyTimeoutMs ?? defaultBodyTimeoutMs,
      options.anonymousBodyTimeoutMs ?? defaultAnonymousBodyTimeoutMs
    )
  )
  server.on("request", lingerAfterAnswer(options.lingerMs ?? defaultLingerMs))
  budgetConnections(
    server,
    options.connectionCaps ?? { total: defaultMaxConnections, perAddress: defaultMaxConnectionsPerAddress }
  )
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
