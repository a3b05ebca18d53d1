/**
 * The MCP server over Streamable HTTP, mounted by the API server at `/api/v2/gpt/mcp`, calling the
 * use cases in process (not over HTTP). The transport is the server's (authentication, rate limit,
 * Origin, body bounds: this package's request policy); the tools it serves are `@verbatim/mcp-tools`'.
 *
 * - Authentication: every request carries `Authorization: Bearer <API key>`, checked as the REST
 *   API checks it, or `Bearer <OAuth access token>` issued by this server's OAuth routes (core's
 *   `OAuthServer`); otherwise 401 `invalid_api_key` with the API's error body and
 *   `WWW-Authenticate: Bearer ... resource_metadata="<service>/.well-known/oauth-protected-resource/api/v2/gpt/mcp"`,
 *   where a hosted assistant starts its sign-in (the MCP authorization spec).
 * - Every JSON-RPC request a POST carries (`initialize`, `tools/list`, a tool call, …; each message
 *   of a batch) takes one request from the account's rate limit, all at once, through core's
 *   `Access.takeRequest` and `admitted` as a REST request does: refused, the POST answers 429
 *   `rate_limit_exceeded` with `Retry-After` and the API's error body, and nothing of it runs; every
 *   answer carries the RateLimit headers. Notifications and responses are answered 202 without
 *   running anything, and take nothing; a body that is not JSON is the transport's parse error,
 *   without running it; any other message counts as a request. A POST carries at most
 *   `maxMessagesPerPost` messages (400 `invalid_request` above), and its answer is at most
 *   `maxAnswerBytes`: a longer one is replaced by a JSON-RPC error for each request, telling to ask
 *   for less.
 * - Stateless: each POST gets a fresh server and transport for the authenticated account (the SDK's
 *   Web-standard transport, JSON responses), so any server of a fleet can answer any request and
 *   nothing is held between requests. GET (a server-to-client event stream) and DELETE (ending a
 *   session) answer 405, which clients take as "not offered".
 * - Origin: a request with an `Origin` header that is neither the service's own nor one of
 *   `McpAllowedOrigins` answers 403 `forbidden`; allowed origins get CORS, including the preflight
 *   (`OPTIONS`); a request without `Origin` passes (`origin.ts`, the transport spec's rule).
 * - The body is read here as every route reads one (`boundedBody`: over `maxBodyBytes`, declared or
 *   chunked, 413 `request_too_large` with the error body; the node server bounds its arrival), and handed to the
 *   transport as it came: the API's JSON body policy does not apply to this path (`isMcpRequest` in
 *   `http.ts`).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  Access,
  type Account,
  admitted,
  answer,
  isAccessToken,
  noteRequestAccount,
  OAuthServer,
  ServiceUrl
} from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { AccountOperations, inProcess, type UseCases } from "@verbatim/mcp-tools"
import { answerStreamable } from "@verbatim/mcp-tools/streamable"
import { Effect, Either, type Layer, Option } from "effect"
import { boundedBody } from "../body.js"
import { errorResponse } from "../errors.js"
import { bodyTooDeep, jsonDepth, maxBodyBytes, maxJsonDepth } from "../failures.js"
import { mcpPath } from "../http.js"
import { mcpChallenge } from "../oauth.js"
import { bearerKey, rateLimitHeaders } from "../security.js"
import { corsHeaders, McpAllowedOrigins, originAllowed, preflightHeaders } from "./origin.js"

/** The most JSON-RPC messages one POST may carry (MCP 2025-06-18 sends one; older clients batch). */
export const maxMessagesPerPost = 10

/** The largest answer one POST may get, as large as the body it may send (one `get_transcript` answer is under 90,000 characters). */
export const maxAnswerBytes = 1024 * 1024

type JsonRpcId = string | number

/** What a POST carries: its messages, and the ids of those that are requests (answered, counted). */
interface Messages {
  readonly count: number
  /** Messages the server must read and answer: everything but notifications and responses. */
  readonly answered: number
  readonly requestIds: ReadonlyArray<JsonRpcId>
  readonly batch: boolean
  /** Only well-formed notifications and responses: nothing to answer (the transport's 202). */
  readonly nothingToAnswer: boolean
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isId = (value: unknown): value is JsonRpcId => typeof value === "string" || typeof value === "number"

const isRequest = (message: unknown): message is { readonly id: JsonRpcId } =>
  isRecord(message) && typeof message.method === "string" && isId(message.id)

const isNotificationOrResponse = (message: unknown): boolean =>
  isRecord(message) &&
  message.jsonrpc === "2.0" &&
  (typeof message.method === "string"
    ? !("id" in message)
    : isId(message.id) && ("result" in message || "error" in message))

/** The messages of a body; none when it is not JSON (the transport answers it a parse error). */
const messagesOf = (text: string): Option.Option<Messages> =>
  Option.map(Option.liftThrowable(() => JSON.parse(text) as unknown)(), (parsed) => {
    const list: ReadonlyArray<unknown> = Array.isArray(parsed) ? parsed : [parsed]
    return {
      count: list.length,
      answered: list.filter((message) => !isNotificationOrResponse(message)).length,
      requestIds: list.flatMap((message) => (isRequest(message) ? [message.id] : [])),
      batch: Array.isArray(parsed),
      nothingToAnswer: list.length > 0 && list.every(isNotificationOrResponse)
    }
  })

/** The JSON-RPC errors that replace an answer over `maxAnswerBytes`, one per request. */
const answerTooLarge = (messages: Messages, bytes: number) => {
  const error = Errors.apiError(
    "invalid_request",
    `the answer would be ${bytes} bytes, over the ${maxAnswerBytes} one POST may get: send fewer requests at once, or ask for less`,
    { answer_bytes: bytes, max_answer_bytes: maxAnswerBytes }
  )
  const responses = messages.requestIds.map((id) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32000, message: error.message, data: error.toBody() }
  }))
  return HttpServerResponse.unsafeJson(messages.batch ? responses : (responses[0] ?? null))
}

/** The JSON-RPC answer to a method the stateless transport does not offer. */
const methodNotAllowed = HttpServerResponse.unsafeJson(
  {
    jsonrpc: "2.0",
    error: { code: -32000, message: "Method not allowed: this server is stateless; POST JSON-RPC messages" },
    id: null
  },
  { status: 405, headers: { allow: "POST" } }
)

/** The JSON-RPC answer to a body that is not JSON, as the transport gives it. */
const parseError = HttpServerResponse.unsafeJson(
  { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON" }, id: null },
  { status: 400 }
)

const unauthorized = (serviceUrl: string) => (error: Errors.ApiError) =>
  error.code === "invalid_api_key"
    ? HttpServerResponse.setHeader(errorResponse(error), "www-authenticate", mcpChallenge(serviceUrl))
    : errorResponse(error)

/**
 * The body of a POST, read as every route reads one (`boundedBody`: over the limit, declared or
 * chunked, 413 `request_too_large` with the error body).
 */
const bodyOf = (request: HttpServerRequest.HttpServerRequest) =>
  boundedBody(request).pipe(
    Effect.mapError((error) =>
      error._tag === "ApiError"
        ? error
        : Errors.apiError(
            "invalid_request",
            `the request body could not be read (at most ${maxBodyBytes} bytes)`
          )
    )
  )

/** The request as a Web `Request` with its body. */
const webRequest = (request: HttpServerRequest.HttpServerRequest, body: Uint8Array) =>
  Effect.sync(() => {
    const url = Option.getOrElse(
      HttpServerRequest.toURL(request),
      () => new URL(request.url, "http://localhost")
    )
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) {
      if (name !== "content-length" && name !== "transfer-encoding") headers.set(name, value)
    }
    return new Request(url, { method: request.method, headers, body })
  })

/** A POST refused before anything runs: the answer, with the RateLimit headers once taken. */
interface Refused {
  readonly error: Errors.ApiError
  readonly headers: Record<string, string>
}

/**
 * Takes the POST's requests from the account's rate limit (core's verdict, as REST takes one), after
 * bounding how many messages it carries: the RateLimit headers for whatever it answers.
 */
const admit = (
  access: Access["Type"],
  account: Account,
  messages: Messages
): Effect.Effect<Record<string, string>, Refused> =>
  Effect.gen(function* () {
    if (messages.count > maxMessagesPerPost) {
      const error = Errors.apiError(
        "invalid_request",
        `a POST carries at most ${maxMessagesPerPost} JSON-RPC messages (this one ${messages.count})`,
        { messages: messages.count, max_messages: maxMessagesPerPost }
      )
      return yield* Effect.fail<Refused>({ error, headers: {} })
    }
    if (messages.answered === 0) return {}
    const verdict = yield* access.takeRequest(account, messages.answered)
    const headers = rateLimitHeaders(verdict)
    yield* admitted(verdict, messages.answered).pipe(Effect.mapError((error) => ({ error, headers })))
    return headers
  })

/** Answers one MCP POST with a fresh server and transport (`@verbatim/mcp-tools`' `answerStreamable`). */
const handle = answerStreamable

/**
 * The MCP route (POST answers, GET and DELETE 405), registered on the API's router: provide this
 * layer to `HttpLive` of `@verbatim/api`, with the use cases, where the server is assembled.
 */
export const McpHttpLive: Layer.Layer<never, never, UseCases | OAuthServer | ServiceUrl> =
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const access = yield* Access
      const oauth = yield* OAuthServer
      const serviceUrl = yield* ServiceUrl
      const useCases = yield* Effect.context<UseCases>()
      const post = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = yield* bearerKey(request.headers.authorization)
        const account = yield* answer(
          key !== undefined && isAccessToken(key) ? oauth.authenticate(key) : access.authenticate(key)
        )
        yield* noteRequestAccount(account.id)
        const body = yield* bodyOf(request)
        // Nesting is bounded before the body is parsed, as on every route (400 with the error body).
        const sent = new TextDecoder().decode(body)
        if (jsonDepth(sent) > maxJsonDepth) return errorResponse(bodyTooDeep)
        const messages = messagesOf(sent)
        // Not JSON: the transport's parse error, without starting it.
        if (Option.isNone(messages)) return parseError
        const admission = yield* Effect.either(admit(access, account, messages.value))
        if (Either.isLeft(admission))
          return HttpServerResponse.setHeaders(errorResponse(admission.left.error), admission.left.headers)
        const headers = admission.right
        if (messages.value.nothingToAnswer) return HttpServerResponse.empty({ status: 202, headers })
        const operations = yield* inProcess(Effect.succeed(account)).pipe(Effect.provide(useCases))
        const response = yield* webRequest(request, body).pipe(
          Effect.flatMap(handle),
          Effect.provideService(AccountOperations, operations),
          Effect.annotateLogs({ account: account.id })
        )
        const text = response.body === null ? undefined : yield* Effect.promise(() => response.text())
        const bytes = text === undefined ? 0 : new TextEncoder().encode(text).byteLength
        if (bytes > maxAnswerBytes)
          return HttpServerResponse.setHeaders(answerTooLarge(messages.value, bytes), headers)
        return HttpServerResponse.setHeaders(
          HttpServerResponse.fromWeb(
            new Response(text ?? null, { status: response.status, headers: response.headers })
          ),
          headers
        )
      }).pipe(
        Effect.catchAll((error) => Effect.succeed(unauthorized(serviceUrl)(error))),
        Effect.withSpan("mcp.http", { captureStackTrace: false })
      )
      const allowed = Option.getOrElse(yield* Effect.serviceOption(McpAllowedOrigins), () => [])
      /**
       * The answer of `handler` when the request's `Origin` may call this endpoint (with its CORS
       * headers), or none; 403 `forbidden` with the error body for any other origin.
       */
      const checkingOrigin = <E, R>(
        handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const origin = request.headers.origin
          if (origin === undefined) return handler
          if (!originAllowed(origin, allowed, serviceUrl)) {
            return Effect.succeed(
              HttpServerResponse.setHeader(
                errorResponse(
                  Errors.apiError(
                    "forbidden",
                    `the origin ${origin} may not call this endpoint from a browser (VERBATIM_MCP_ALLOWED_ORIGINS lists the origins that may)`
                  )
                ),
                "vary",
                "Origin"
              )
            )
          }
          return Effect.map(handler, HttpServerResponse.setHeaders(corsHeaders(origin)))
        })
      const preflight = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.succeed(
          HttpServerResponse.empty({
            status: 204,
            headers: request.headers.origin === undefined ? {} : preflightHeaders(request.headers.origin)
          })
        )
      )
      yield* router.post(mcpPath, checkingOrigin(post))
      yield* router.get(mcpPath, checkingOrigin(Effect.succeed(methodNotAllowed)))
      yield* router.del(mcpPath, checkingOrigin(Effect.succeed(methodNotAllowed)))
      yield* router.options(mcpPath, checkingOrigin(preflight))
    })
  )
