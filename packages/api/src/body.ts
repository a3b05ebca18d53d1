/**
 * Reading a request body within the limit, the one way every route that reads a whole body does it
 * (the JSON routes, OAuth's forms and registration, the MCP transport): a `Content-Length` above
 * `maxBodyBytes` is refused before anything is read, and a chunked body that passes the limit gets
 * the same 413 `request_too_large` with the error body. The platform's own limit destroys the
 * request mid-body, which resets the connection before any answer reaches a sender still sending;
 * here the rest is read and dropped (up to `maxDrainBytes`, past which the connection is cut).
 */
import type { HttpServerError, HttpServerRequest } from "@effect/platform"
import type { Errors } from "@verbatim/domain"
import { Effect, Stream } from "effect"
import { bodyTooLargeFor, maxBodyBytes } from "./failures.js"

/** How much of a body past the limit is read and dropped so that its sender receives the 413. */
export const maxDrainBytes = 16 * maxBodyBytes

/** Whether a request declares a body longer than the limit (`Content-Length`). */
export const declaresTooLarge = (
  request: HttpServerRequest.HttpServerRequest,
  limit = maxBodyBytes
): boolean => Number(request.headers["content-length"] ?? "0") > limit

/** The body's bytes, at most `limit` (`maxBodyBytes`); else 413 `request_too_large`, answerable. */
export const boundedBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit = maxBodyBytes
): Effect.Effect<Uint8Array, Errors.ApiError | HttpServerError.RequestError> =>
  Effect.gen(function* () {
    if (declaresTooLarge(request, limit)) return yield* Effect.fail(bodyTooLargeFor(limit))
    const chunks: Array<Uint8Array> = []
    const length = yield* Stream.runFoldWhile(
      request.stream,
      0,
      (read) => read <= maxDrainBytes,
      (read, chunk) => {
        if (read + chunk.length <= limit) chunks.push(chunk)
        return read + chunk.length
      }
    )
    if (length > limit) return yield* Effect.fail(bodyTooLargeFor(limit))
    const body = new Uint8Array(length)
    let at = 0
    for (const chunk of chunks) {
      body.set(chunk, at)
      at += chunk.length
    }
    return body
  })

/** The body as UTF-8 text, within the limit (`boundedBody`). */
export const boundedText = (request: HttpServerRequest.HttpServerRequest, limit = maxBodyBytes) =>
  Effect.map(boundedBody(request, limit), (bytes) => new TextDecoder().decode(bytes))
