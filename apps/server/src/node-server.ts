/**
 * The node HTTP server Verbatim listens with. Requests node refuses before the app sees them (a
 * head over node's 16 KiB limit, a malformed request line) would get a bare 431/400 with no body;
 * here they get the API's error body, so every answer of the service is `{error, message, details}`.
 */
import { createServer, type Server } from "node:http"
import type { Duplex } from "node:stream"
import { Errors } from "@verbatim/domain"

const reply = (socket: Duplex, status: number, reason: string, message: string) => {
  const body = JSON.stringify(Errors.apiError("invalid_request", message).toBody())
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

export const makeNodeServer = (): Server => {
  const server = createServer()
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy()
      return
    }
    if (error.code === "HPE_HEADER_OVERFLOW") {
      reply(socket, 400, "Bad Request", "the request head is larger than the server accepts (16 KiB)")
    } else {
      reply(socket, 400, "Bad Request", "the request is not valid HTTP")
    }
  })
  return server
}
