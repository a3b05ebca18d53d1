/**
 * The MCP server over Streamable HTTP, mounted by the API server at `/api/v2/gpt/mcp`, calling the
 * use cases in process (not over HTTP).
 *
 * - Authentication: every request carries `Authorization: Bearer <API key>`, checked as the REST
 *   API checks it, or `Bearer <OAuth access token>` issued by this server's OAuth routes (core's
 *   `OAuthServer`); otherwise 401 `invalid_api_key` with the API's error body and
 *   `WWW-Authenticate: Bearer ... resource_metadata="<service>/.well-known/oauth-protected-resource/api/v2/gpt/mcp"`,
 *   where a hosted assistant starts its sign-in (the MCP authorization spec). Each tool call and resource read then takes one request from the account's rate
 *   limit, like the REST call it mirrors.
 * - Stateless: each POST gets a fresh server and transport for the authenticated account (the SDK's
 *   Web-standard transport, JSON responses), so any server of a fleet can answer any request and
 *   nothing is held between requests. GET (a server-to-client event stream) and DELETE (ending a
 *   session) answer 405, which clients take as "not offered".
 * - The body is read here, at most `maxBodyBytes` (over it, declared or chunked, 413
 *   `request_too_large` with the error body), and handed to the transport as it came: the
 *   API's JSON body policy does not apply to this path (`isMcpRequest` in `@verbatim/api`).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { bearerKey, boundedBody, errorResponse, maxBodyBytes, mcpChallenge, mcpPath } from "@verbatim/api"
import { Access, answer, isAccessToken, OAuthServer, ServiceUrl } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Effect, type Layer, Option } from "effect"
import { AccountOperations, inProcess, type UseCases } from "./operations.js"

/** The JSON-RPC answer to a method the stateless transport does not offer. */
const methodNotAllowed = HttpServerResponse.unsafeJson(
  {
    jsonrpc: "2.0",
    error: { code: -32000, message: "Method not allowed: this server is stateless; POST JSON-RPC messages" },
    id: null
  },
  { status: 405, headers: { allow: "POST" } }
)

const unauthorized = (serviceUrl: string) => (error: Errors.ApiError) =>
  error.code === "invalid_api_key"
    ? HttpServerResponse.setHeader(errorResponse(error), "www-authenticate", mcpChallenge(serviceUrl))
    : errorResponse(error)

/**
 * The request as a Web `Request`, its body read as every route reads one (`boundedBody`: over the
 * limit, declared or chunked, 413 `request_too_large` with the error body).
 */
const webRequest = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const body = yield* boundedBody(request)
    const url = Option.getOrElse(
      HttpServerRequest.toURL(request),
      () => new URL(request.url, "http://localhost")
    )
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) {
      if (name !== "content-length" && name !== "transfer-encoding") headers.set(name, value)
    }
    return new Request(url, { method: request.method, headers, body })
  }).pipe(
    Effect.mapError((error) =>
      error._tag === "ApiError"
        ? error
        : Errors.apiError(
            "invalid_request",
            `the request body could not be read (at most ${maxBodyBytes} bytes)`
          )
    )
  )

/**
 * Answers one MCP POST with a fresh server and transport on `operations`: the SDK is loaded at the
 * first MCP request (`./session.js`), not when the server starts.
 */
const handle = (request: Request) =>
  Effect.promise(() => import("./session.js")).pipe(Effect.flatMap((session) => session.handle(request)))

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
        const operations = yield* inProcess(Effect.succeed(account)).pipe(Effect.provide(useCases))
        const response = yield* webRequest(request).pipe(
          Effect.flatMap(handle),
          Effect.provideService(AccountOperations, operations),
          Effect.annotateLogs({ account: account.id })
        )
        return HttpServerResponse.fromWeb(response)
      }).pipe(
        Effect.catchAll((error) => Effect.succeed(unauthorized(serviceUrl)(error))),
        Effect.withSpan("mcp.http", { captureStackTrace: false })
      )
      yield* router.post(mcpPath, post)
      yield* router.get(mcpPath, Effect.succeed(methodNotAllowed))
      yield* router.del(mcpPath, Effect.succeed(methodNotAllowed))
    })
  )
