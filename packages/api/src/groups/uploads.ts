/**
 * POST /uploads, POST /uploads/{upload_id}/complete, and the signed PUT of the local store
 * (`PUT /uploads/files/{token}`): a plain route beside the contract, authenticated by its signed
 * token instead of an API key, that streams the body to the store (no JSON, no body limit but the
 * signed size).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { basePath, VerbatimApi } from "@verbatim/contract"
import { CurrentAccount, MediaUploads } from "@verbatim/core"
import { Effect, Stream } from "effect"
import { errorResponse } from "../errors.js"
import { useCase } from "../use-case.js"

export const UploadsHttp = HttpApiBuilder.group(VerbatimApi, "uploads", (handlers) =>
  handlers
    .handle("createUpload", ({ payload }) =>
      Effect.gen(function* () {
        const uploads = yield* MediaUploads
        return yield* useCase(uploads.create(yield* CurrentAccount, payload))
      })
    )
    .handle("completeUpload", ({ path }) =>
      Effect.gen(function* () {
        const uploads = yield* MediaUploads
        return yield* useCase(uploads.complete(yield* CurrentAccount, path.upload_id))
      })
    )
)

/** Where the local store's signed URLs point: `{public URL}{signedPutPrefix}/{token}`. */
export const signedPutPrefix = `${basePath}/uploads/files` as const

/** Whether a request is a signed PUT (exempt from the JSON body policy and the body limit). */
export const isSignedPut = (method: string, url: string): boolean =>
  method === "PUT" && url.startsWith(`${signedPutPrefix}/`)

/** The parts of a Node readable (the request's `source` on node) that reading it needs. */
interface NodeReadable {
  readonly on: (event: string, listener: (value: never) => void) => unknown
  readonly off: (event: string, listener: (value: never) => void) => unknown
  readonly pause: () => unknown
  readonly resume: () => unknown
}
const isNodeReadable = (source: unknown): source is NodeReadable =>
  typeof source === "object" &&
  source !== null &&
  ["on", "off", "pause", "resume"].every((name) => typeof Reflect.get(source, name) === "function")

/**
 * The body of a node request, read without destroying the request when the reader stops early (a
 * refusal, the PUT's time bound): the platform's stream destroys it, which resets the connection
 * before the answer is written. Paused while the reader is behind; the answer then closes the
 * connection (`Connection: close`).
 */
const keptOpen = (source: NodeReadable): Stream.Stream<Uint8Array, unknown> =>
  Stream.async<Uint8Array, unknown>((emit) => {
    const onData = (chunk: Uint8Array) => {
      source.pause()
      void emit.single(chunk).then(() => source.resume())
    }
    const onEnd = () => void emit.end()
    const onError = (error: unknown) => void emit.fail(error)
    // After `end` this changes nothing; before it, the client went away.
    const onClose = () => void emit.fail(new Error("the request closed before its body ended"))
    const listeners = [
      ["data", onData],
      ["end", onEnd],
      ["error", onError],
      ["close", onClose]
    ] as const
    for (const [event, listener] of listeners) source.on(event, listener)
    return Effect.sync(() => {
      for (const [event, listener] of listeners) source.off(event, listener)
      source.pause()
    })
  }, 4)

/** The request's body: on node kept open when the reader stops early (`keptOpen`). */
const bodyOf = (request: HttpServerRequest.HttpServerRequest): Stream.Stream<Uint8Array, unknown> =>
  isNodeReadable(request.source) ? keptOpen(request.source) : request.stream

const contentLength = (value: string | undefined): number | undefined => {
  if (value === undefined || !/^\d+$/.test(value)) return undefined
  return Number(value)
}

/** The signed PUT route: 200 with `{ status: "stored" }`, or the error body. */
export const SignedPutRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const uploads = yield* MediaUploads
    // A wildcard, not a `:token` parameter: the router refuses parameters over 100 characters.
    yield* router.put(
      `${signedPutPrefix}/*`,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = decodeURIComponent(request.url.slice(signedPutPrefix.length + 1).split("?")[0] ?? "")
        return yield* useCase(
          uploads.receive({
            token,
            contentType: request.headers["content-type"],
            contentLength: contentLength(request.headers["content-length"]),
            body: bodyOf(request)
          })
        ).pipe(
          Effect.as(HttpServerResponse.unsafeJson({ status: "stored" })),
          // The body may not have been read to its end: the connection cannot serve another request.
          Effect.catchAll((error) =>
            Effect.succeed(HttpServerResponse.setHeader(errorResponse(error), "connection", "close"))
          )
        )
      })
    )
  })
)
