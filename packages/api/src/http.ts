/**
 * The server side of the contract: every group's handlers, the authentication middleware, the
 * failure answers, the request body limit, the OpenAPI document at `/api/v2/openapi.json` and the
 * API reference page at `/docs` (Scalar, bundled: no CDN). Provide an `HttpServer` and the use
 * cases (`Access`, `Balance`, `Transcribe`, `JobQueries`, `StoredTranscripts`).
 */
import {
  Headers,
  HttpApiBuilder,
  HttpApiScalar,
  type HttpApp,
  HttpIncomingMessage,
  HttpMethod,
  HttpMiddleware,
  type HttpServerError,
  HttpServerRequest
} from "@effect/platform"
import type { Errors } from "@verbatim/domain"
import { Cause, Effect, Layer, Option } from "effect"
import { VerbatimApi } from "./api.js"
import { basePath } from "./base.js"
import { errorResponse } from "./errors.js"
import {
  answerFor,
  bodyTooDeep,
  bodyTooLarge,
  internalError,
  jsonDepth,
  maxBodyBytes,
  maxJsonDepth
} from "./failures.js"
import { CreditsHttp } from "./groups/credits.js"
import { HealthHttp } from "./groups/health.js"
import { JobsHttp } from "./groups/jobs.js"
import { TranscribeHttp } from "./groups/transcribe.js"
import { TranscriptsHttp } from "./groups/transcripts.js"
import { AuthenticationLive } from "./security.js"

export const openApiPath = `${basePath}/openapi.json` as const
export const docsPath = "/docs" as const

/**
 * Request bodies are JSON (the spec: "Bodies are JSON unless stated"), whatever `Content-Type` says:
 * a body sent without it, or as a form (`curl -d` does that), is read as JSON too, and answers 400
 * `invalid_request` when it is not. A body nesting deeper than `maxJsonDepth` is refused before it
 * is parsed (the body is read once; the route reuses it).
 */
export const readBodiesAsJson = (
  app: HttpApp.Default
): HttpApp.Default<Errors.ApiError | HttpServerError.RequestError> =>
  Effect.gen(function* () {
    const original = yield* HttpServerRequest.HttpServerRequest
    if (!HttpMethod.hasBody(original.method)) return yield* app
    const type = original.headers["content-type"]?.toLowerCase()
    const request =
      type?.includes("application/json") === true
        ? original
        : original.modify({ headers: Headers.set(original.headers, "content-type", "application/json") })
    if (jsonDepth(yield* request.text) > maxJsonDepth) return yield* bodyTooDeep
    return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)
  })

/**
 * The body limit: a `Content-Length` above `maxBodyBytes` is refused before the body is read
 * (400 `invalid_request`); a chunked body is cut off at the limit.
 */
export const limitBodies = <E>(app: HttpApp.Default<E>): HttpApp.Default<E | Errors.ApiError> =>
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request): HttpApp.Default<E | Errors.ApiError> =>
      Number(request.headers["content-length"] ?? "0") > maxBodyBytes
        ? Effect.fail(bodyTooLarge)
        : HttpIncomingMessage.withMaxBodySize(app, Option.some(maxBodyBytes))
  )

/** Answers every failure with the error body (see `failures.ts`). */
export const answerFailures = <E>(app: HttpApp.Default<E>): HttpApp.Default =>
  Effect.catchAllCause(app, (cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.interrupt
      : Option.match(answerFor(cause), {
          onSome: (error) => Effect.succeed(errorResponse(error)),
          onNone: () => Effect.as(Effect.logError("unexpected failure", cause), errorResponse(internalError))
        })
  )

/** What every request goes through before and after its route. */
export const requestPolicy = (app: HttpApp.Default): HttpApp.Default =>
  answerFailures(limitBodies(readBodiesAsJson(app)))

/** Every group's handlers, with the authentication they need. */
export const HandlersLive = Layer.mergeAll(
  HealthHttp,
  CreditsHttp,
  TranscribeHttp,
  JobsHttp,
  TranscriptsHttp
).pipe(Layer.provide(AuthenticationLive))

export const ApiLive = HttpApiBuilder.api(VerbatimApi).pipe(Layer.provide(HandlersLive))

/** The routes beside the contract's: the OpenAPI document and the reference page. */
export const DocsLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: openApiPath }),
  HttpApiScalar.layer({ path: docsPath })
)

/** The whole application, ready to serve (or to turn into a web handler with `HttpApiBuilder.toWebHandler`). */
export const AppLive = Layer.mergeAll(DocsLive, HttpApiBuilder.middleware(requestPolicy)).pipe(
  Layer.provideMerge(ApiLive)
)

/** Serves the API on the `HttpServer` provided, logging each request. */
export const HttpLive = HttpApiBuilder.serve(HttpMiddleware.logger).pipe(Layer.provide(AppLive))
