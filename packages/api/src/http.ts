/**
 * The server side of the contract: every group's handlers, the authentication middleware, the
 * failure answers, the request body limit, the OpenAPI document at `/api/v2/openapi.json` and the
 * API reference page at `/docs` (Scalar, bundled: no CDN). Provide an `HttpServer` and the use
 * cases (`Access`, `Balance`, `Transcribe`, `JobQueries`, `StoredTranscripts`).
 */
import {
  Headers,
  HttpApiBuilder,
  type HttpApp,
  HttpIncomingMessage,
  HttpMethod,
  type HttpServerError,
  HttpServerRequest
} from "@effect/platform"
import { basePath, VerbatimApi } from "@verbatim/contract"
import { Access, noteRequestFailure, storableInput, WebSessions } from "@verbatim/core"
import { Api, type Errors } from "@verbatim/domain"
import { Cause, Effect, Layer, Option } from "effect"
import { boundedBody, declaresTooLarge } from "./body.js"
import { lazyScalarLayer } from "./docs-page.js"
import { errorResponse } from "./errors.js"
import {
  answerFor,
  bodyTooDeep,
  bodyTooLarge,
  bodyTooLargeFor,
  internalError,
  jsonDepth,
  maxBodyBytes,
  maxJsonDepth
} from "./failures.js"
import { GptOpenApiRoute, gptSurface } from "./gpt.js"
import { BatchHttp } from "./groups/batch.js"
import { ChannelsHttp, PlaylistsHttp, RecommendationsHttp } from "./groups/collections.js"
import { CreditsHttp } from "./groups/credits.js"
import { HealthDetailsRoute, HealthHttp, ReadinessFromPorts } from "./groups/health.js"
import { JobsHttp } from "./groups/jobs.js"
import { ThemesHttp } from "./groups/themes.js"
import { TranscribeHttp } from "./groups/transcribe.js"
import { TranscriptPagesHttp } from "./groups/transcript-pages.js"
import { TranscriptsHttp } from "./groups/transcripts.js"
import { isSignedPut, SignedPutRoute, UploadsHttp } from "./groups/uploads.js"
import { VideosHttp } from "./groups/videos.js"
import { makeHotRoutes } from "./hot-routes.js"
import { MetricsRouteLive, observeRequests } from "./metrics.js"
import { isOAuthRequest, OAuthRoutes } from "./oauth.js"
import { readParams } from "./params.js"
import { AuthenticationLive, authorizeBeforeBody, keyedBody } from "./security.js"

export const openApiPath = `${basePath}/openapi.json` as const
export const docsPath = "/docs" as const

/**
 * Request bodies are JSON (the spec: "Bodies are JSON unless stated"), whatever `Content-Type` says:
 * a body sent without it, or as a form (`curl -d` does that), is read as JSON too, and answers 400
 * `invalid_request` when it is not. A body nesting deeper than `maxJsonDepth` is refused before it
 * is parsed (the body is read once; the route reuses it). How long a body may take to arrive is the
 * node server's bound (`apps/server` node-server.ts: 408 `request_timeout` past 300 s).
 */
export const readBodiesAsJson = <E>(
  app: HttpApp.Default<E>
): HttpApp.Default<E | Errors.ApiError | HttpServerError.RequestError> =>
  Effect.gen(function* () {
    const original = yield* HttpServerRequest.HttpServerRequest
    if (!HttpMethod.hasBody(original.method)) return yield* app
    const type = original.headers["content-type"]?.toLowerCase()
    const request =
      type?.includes("application/json") === true
        ? original
        : original.modify({ headers: Headers.set(original.headers, "content-type", "application/json") })
    const text = yield* request.text
    if (jsonDepth(text) > maxJsonDepth) return yield* bodyTooDeep
    // The request read is the one in context (its body kept): no need to provide it again.
    return yield* request === original
      ? app
      : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)
  })

/** A JSON escape of a UTF-16 surrogate (`\\ud800`-`\\udfff`): the only way one reaches a body's text. */
const surrogateEscape = /\\u[dD][89a-fA-F]/

/**
 * A query string of more than `Api.maxParamFields` fields is 400 before any is decoded (`readParams`).
 * The one string rule (core's `storableInput`): a query string or JSON body holding NUL or an
 * unpaired surrogate in any string answers 400 `invalid_request` naming each field, before any route decodes it. NUL reaches
 * a query only as `%00` and a JSON body only as the escape `\u0000` (a raw control character is not
 * JSON), a lone surrogate only as an escape such as `\ud800` (UTF-8 cannot carry one; a query's
 * bytes decode to U+FFFD), so requests without either are not parsed a second time. Runs inside `readBodiesAsJson`,
 * whose read of the body the route reuses.
 */
export const refuseNulInputs = <E>(app: HttpApp.Default<E>): HttpApp.Default<E | Errors.ApiError> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = request.url.indexOf("?")
    if (query >= 0) {
      const pairs = yield* readParams(request.url.slice(query + 1))
      if (request.url.includes("%00", query)) yield* storableInput(Api.paramFields(pairs))
    }
    if (HttpMethod.hasBody(request.method)) {
      const text = yield* Effect.orElseSucceed(request.text, () => "")
      if (text.includes("\\u0000") || surrogateEscape.test(text)) {
        const parsed = Option.liftThrowable((): unknown => JSON.parse(text))()
        if (Option.isSome(parsed)) yield* storableInput(parsed.value)
      }
    }
    return yield* app
  })

const hopHeaders = new Set(["transfer-encoding", "content-length", "connection", "keep-alive", "host"])

/**
 * The largest body a route without a key takes through this policy (the web library's sign-in and
 * sign-out forms); OAuth's routes read their own, as small (`oauth.ts`).
 */
export const anonymousBodyBytes = 16 * 1024

/**
 * A chunked body (no `Content-Length`), read whole within the limit (`boundedBody`: over it, 413
 * with the error body, not a reset connection); the request handed on carries the body read.
 */
const readChunked = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<HttpServerRequest.HttpServerRequest, Errors.ApiError | HttpServerError.RequestError> =>
  Effect.map(boundedBody(request, limit), (bytes) => {
    const headers = Object.entries(request.headers).filter(([name]) => !hopHeaders.has(name))
    const body = new Request(new URL(request.url, "http://verbatim.invalid"), {
      method: request.method,
      headers,
      body: bytes
    })
    return HttpServerRequest.fromWeb(body).modify({
      url: request.url,
      ...Option.match(request.remoteAddress, {
        onNone: () => ({}),
        onSome: (remoteAddress) => ({ remoteAddress })
      })
    })
  })

/**
 * The body limit: a `Content-Length` above `maxBodyBytes` is refused before the body is read
 * (413 `request_too_large`); a chunked body over the limit gets the same answer (`readChunked`).
 * A method without a body (GET, HEAD, OPTIONS) has no route that reads one, so its request runs as
 * it is: setting the limit would be a fiber-local change on every such request for nothing.
 */
export const limitBodies = <E>(
  app: HttpApp.Default<E>
): HttpApp.Default<E | Errors.ApiError | HttpServerError.RequestError> => {
  const limited = HttpIncomingMessage.withMaxBodySize(app, Option.some(maxBodyBytes))
  const small = HttpIncomingMessage.withMaxBodySize(app, Option.some(anonymousBodyBytes))
  return Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request): HttpApp.Default<E | Errors.ApiError | HttpServerError.RequestError> => {
      if (!HttpMethod.hasBody(request.method)) {
        return declaresTooLarge(request) ? Effect.fail(bodyTooLarge) : app
      }
      const keyed = keyedBody(request)
      const limit = keyed ? maxBodyBytes : anonymousBodyBytes
      if (declaresTooLarge(request, limit)) return Effect.fail(bodyTooLargeFor(limit))
      if (
        request.headers["content-length"] === undefined &&
        request.headers["transfer-encoding"] !== undefined
      ) {
        return Effect.flatMap(readChunked(request, limit), (read) =>
          Effect.provideService(keyed ? limited : small, HttpServerRequest.HttpServerRequest, read)
        )
      }
      return keyed ? limited : small
    }
  )
}

/**
 * Answers every failure with the error body (see `failures.ts`). A 5xx answer's cause is noted on
 * the request (core's `noteRequestFailure`): the access log line writes it, at error level.
 */
export const answerFailures = <E>(app: HttpApp.Default<E>): HttpApp.Default =>
  Effect.catchAllCause(app, (cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
    const error = Option.getOrElse(answerFor(cause), () => internalError)
    return error.status >= 500
      ? Effect.as(noteRequestFailure(cause), errorResponse(error))
      : Effect.succeed(errorResponse(error))
  })

/** Where the server mounts the Streamable HTTP transport of the MCP server (`@verbatim/mcp-tools`). */
export const mcpPath = `${basePath}/gpt/mcp` as const

/** Whether a request goes to the MCP transport, which reads its raw body itself (JSON-RPC, its own limit). */
export const isMcpRequest = (url: string): boolean => url === mcpPath || url.startsWith(`${mcpPath}?`)

/**
 * What every request goes through before and after its route. A signed PUT of upload bytes is
 * streamed to storage: neither read as JSON nor held to the JSON body limit (its signed size is).
 * A request to the MCP transport is not read either: the transport reads its body.
 */
export const requestPolicy =
  (authorizeFirst: ReturnType<typeof authorizeBeforeBody>) =>
  <E>(app: HttpApp.Default<E>): HttpApp.Default => {
    const json = answerFailures(authorizeFirst(limitBodies(readBodiesAsJson(refuseNulInputs(app)))))
    const raw = answerFailures(app)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isSignedPut(request.method, request.url) || isMcpRequest(request.url) || isOAuthRequest(request.url)
        ? raw
        : json
    )
  }

/** Every group's handlers, with the authentication and the readiness probes they need. */
export const HandlersLive = Layer.mergeAll(
  HealthHttp.pipe(Layer.provide(ReadinessFromPorts)),
  CreditsHttp,
  TranscribeHttp,
  JobsHttp,
  TranscriptsHttp,
  TranscriptPagesHttp,
  VideosHttp,
  ThemesHttp,
  UploadsHttp,
  BatchHttp,
  PlaylistsHttp,
  ChannelsHttp,
  RecommendationsHttp
).pipe(Layer.provide(AuthenticationLive))

export const ApiLive = HttpApiBuilder.api(VerbatimApi).pipe(Layer.provide(HandlersLive))

/**
 * The reference page works offline: Scalar's script is bundled, and its default fonts (fetched from
 * fonts.scalar.com) are replaced by the system's.
 */
export const scalarOffline = {
  withDefaultFonts: false,
  customCss:
    ":root { --scalar-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; " +
    "--scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }"
} as const

/** The routes beside the contract's: the OpenAPI document and the reference page. */
export const DocsLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: openApiPath }),
  lazyScalarLayer({ path: docsPath, scalar: scalarOffline }),
  // The GPT Actions document at /api/v2/gpt/openapi.json (`gpt.ts`).
  GptOpenApiRoute,
  // OAuth for hosted assistants, where the server provides core's OAuthServer (`oauth.ts`).
  OAuthRoutes
)

export interface ApiOptions {
  /**
   * Whether GET /transcripts, GET /credits and POST /transcribe skip HttpApi's router for the same
   * answers (`hot-routes.ts`; `pnpm start` serves them). Without, HttpApi answers every request: the
   * hot routes' equivalence test serves both side by side.
   */
  readonly hotRoutes: boolean
}

/**
 * Every request's policy, in front of the hot routes (when on) and of HttpApi's router, inside the
 * server's response handling (so the rate-limit headers reach every answer).
 */
const policyLive = (options: ApiOptions) =>
  HttpApiBuilder.middleware(
    Effect.gen(function* () {
      const access = yield* Access
      const sessions = Option.getOrUndefined(yield* Effect.serviceOption(WebSessions))
      const policy = requestPolicy(authorizeBeforeBody(access, sessions))
      if (!options.hotRoutes) return (app: HttpApp.Default) => gptSurface(policy(app))
      const hotRouteOf = yield* makeHotRoutes
      return (app: HttpApp.Default) =>
        gptSurface(
          policy(Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => hotRouteOf(request) ?? app))
        )
    })
  )

/** The whole application, ready to serve (or to turn into a web handler with `HttpApiBuilder.toWebHandler`). */
export const appLive = (options: ApiOptions) =>
  Layer.mergeAll(
    DocsLive,
    MetricsRouteLive,
    HealthDetailsRoute.pipe(Layer.provide(ReadinessFromPorts)),
    SignedPutRoute,
    policyLive(options)
  ).pipe(Layer.provideMerge(ApiLive))

export const AppLive = appLive({ hotRoutes: true })

/** Serves the API on the `HttpServer` provided, with one log line and the metrics of each request. */
export const serveApi = (options: ApiOptions) =>
  HttpApiBuilder.serve(observeRequests).pipe(Layer.provide(appLive(options)))

/** The API as `pnpm start` serves it: with the hot routes. */
export const HttpLive = serveApi({ hotRoutes: true })
