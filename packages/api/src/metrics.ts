/**
 * What the server tells Prometheus and its logs about each request, and `GET /metrics`:
 *
 * - `verbatim_http_requests_total{method,route,status}` and
 *   `verbatim_http_request_duration_seconds{method,route,status}` (a histogram), where `route` is
 *   the endpoint's path template (`/api/v2/transcripts/:video_id`), never the raw path, so the
 *   number of series stays bounded; a path the API does not have is `unmatched`;
 * - one log line per request (`observeRequests`): method, path, status and duration, the request's
 *   id, the account (once authenticated) and the route template; at debug level for the probes
 *   (`/ping`, `/health`, `/metrics`), so a load balancer does not fill the log; at error level for
 *   any other 5xx answer, with the cause that was turned into it.
 *
 * Every answer carries `X-Request-Id` (the client's when valid, core's `acceptedRequestId`, else a
 * random UUID made here), every error body `{error, message, details}` gains it as `request_id`, and
 * every log line written while the request runs is annotated with it (`request_id`).
 *
 * The registry is `metricsRegistry` (prom-client); the server adds process metrics, queue depths and
 * credit totals to it (`apps/server/src/metrics.ts`). Recording is synchronous and allocation-light:
 * no stack trace, no extra effect per request beyond the log line.
 */
import { randomUUID } from "node:crypto"
import {
  HttpApi,
  HttpApiBuilder,
  type HttpApp,
  HttpBody,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { basePath, VerbatimApi } from "@verbatim/contract"
import { currentRequest, type RequestRecord, requestRecord } from "@verbatim/core"
import { Cause, Effect, Exit, type Layer, Option } from "effect"
import { Counter, Histogram, Registry } from "prom-client"
import { errorResponse } from "./errors.js"
import { answerFor, internalError } from "./failures.js"
import { gptOpenApiPath } from "./gpt.js"
import { mcpResourceMetadataPath, oauthPaths, oauthPreflightPaths } from "./oauth.js"
import { paramFieldsRead } from "./params.js"
import { webRoutes } from "./web-session.js"

/** Every metric of this process. */
export const metricsRegistry = new Registry()
metricsRegistry.registerMetric(paramFieldsRead)

export const metricsPath = "/metrics" as const

const labelNames = ["method", "route", "status"] as const

export const httpRequests = new Counter({
  name: "verbatim_http_requests_total",
  help: "HTTP requests answered, by method, route (path template) and status",
  labelNames,
  registers: [metricsRegistry]
})

export const httpDuration = new Histogram({
  name: "verbatim_http_request_duration_seconds",
  help: "Time from receiving a request to its response, by method, route (path template) and status",
  labelNames,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
  registers: [metricsRegistry]
})

interface Route {
  readonly template: string
  readonly pattern: RegExp
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const routeOf = (template: string): Route => ({
  template,
  pattern: new RegExp(
    `^${template
      .split("/")
      .map((part) => (part.startsWith(":") ? "[^/]+" : escapeRegExp(part)))
      .join("/")}$`
  )
})

/** The OAuth endpoints of hosted assistants (`oauth.ts`), each also answering CORS preflights. */
const oauthRoutes: ReadonlyArray<readonly [string, string]> = [
  ["GET", oauthPaths.protectedResource],
  ["GET", mcpResourceMetadataPath],
  ["GET", oauthPaths.authorizationServer],
  ["POST", oauthPaths.register],
  ["GET", oauthPaths.authorize],
  ["POST", oauthPaths.authorize],
  ["POST", oauthPaths.token],
  ["POST", oauthPaths.revoke],
  ...oauthPreflightPaths.map((path) => ["OPTIONS", path] as const)
]

/** Routes served beside the contract's endpoints: docs, metrics, uploads, GPT and MCP, OAuth, the web library. */
const extraRoutes: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/docs"],
  ["GET", metricsPath],
  ["GET", "/health/details"],
  ["GET", `${basePath}/openapi.json`],
  ["PUT", `${basePath}/uploads/files/:token`],
  ["GET", gptOpenApiPath],
  ["POST", `${basePath}/gpt/mcp`],
  ["GET", `${basePath}/gpt/mcp`],
  ["DELETE", `${basePath}/gpt/mcp`],
  ["OPTIONS", `${basePath}/gpt/mcp`],
  ...oauthRoutes,
  ...webRoutes
]

const routesByMethod = (() => {
  const routes = new Map<string, Array<Route>>()
  const add = (method: string, path: string) => {
    const list = routes.get(method) ?? []
    list.push(routeOf(path))
    routes.set(method, list)
  }
  HttpApi.reflect(VerbatimApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const [method, path] of extraRoutes) add(method, path)
  // Literal routes first: `/transcripts/bulk-delete` is not `/transcripts/:video_id`.
  for (const list of routes.values()) {
    list.sort((a, b) => Number(a.template.includes(":")) - Number(b.template.includes(":")))
  }
  return routes
})()

/** The path template of a request (`/api/v2/jobs/:job_id`), or `unmatched`. */
export const routeTemplate = (method: string, url: string): string => {
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  const routes = routesByMethod.get(method === "HEAD" ? "GET" : method)
  if (routes !== undefined) for (const route of routes) if (route.pattern.test(path)) return route.template
  return "unmatched"
}

const signedPutPath = `${basePath}/uploads/files/`

/** Query parameters that carry a credential when a client puts one there by mistake. */
const secretParams: ReadonlySet<string> = new Set([
  "api_key",
  "apikey",
  "key",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "code",
  "code_verifier",
  "client_secret",
  "password",
  "sig",
  "signature"
])

const paramName = (part: string): string => {
  const equals = part.indexOf("=")
  const raw = (equals === -1 ? part : part.slice(0, equals)).replaceAll("+", " ")
  try {
    return decodeURIComponent(raw).trim().toLowerCase()
  } catch {
    return raw.toLowerCase()
  }
}

/** The query with every secret parameter's value written as `<redacted>` (linear in its length). */
const loggedQuery = (query: string): string =>
  query
    .split("&")
    .map((part) => {
      if (!secretParams.has(paramName(part))) return part
      const equals = part.indexOf("=")
      return `${equals === -1 ? part : part.slice(0, equals)}=<redacted>`
    })
    .join("&")

/**
 * The request's path as the log shows it: a signed upload URL's token is a credential (it lets
 * anyone PUT the upload's bytes for an hour), so it is written as `<token>`; so is the value of any
 * query parameter that names a credential (`api_key`, `token`, `code`, `sig`, ...: `<redacted>`).
 */
export const loggedUrl = (url: string): string => {
  if (url.startsWith(signedPutPath)) return `${signedPutPath}<token>`
  const query = url.indexOf("?")
  return query === -1 ? url : `${url.slice(0, query)}?${loggedQuery(url.slice(query + 1))}`
}

const probes: ReadonlySet<string> = new Set([
  "/api/v2/ping",
  "/api/v2/health",
  "/health/details",
  metricsPath
])

/** Records one answered request in the metrics. */
export const recordRequest = (method: string, route: string, status: number, seconds: number): void => {
  const labels = { method, route, status: String(status) }
  httpRequests.inc(labels)
  httpDuration.observe(labels, seconds)
}

/** The header that carries a request's id, both ways. */
export const requestIdHeader = "x-request-id" as const

const utf8 = new TextDecoder()

/** Whether a parsed body is the API's error body `{error, message, details}`. */
const isErrorBody = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as Record<string, unknown>).error === "string" &&
  typeof (value as Record<string, unknown>).message === "string" &&
  typeof (value as Record<string, unknown>).details === "object"

/**
 * The answer with the request's id: the `X-Request-Id` header, and `request_id` added to an error
 * body `{error, message, details}` (wherever it was made: handlers, the policy, the MCP route).
 */
export const stampRequestId = (
  response: HttpServerResponse.HttpServerResponse,
  id: string
): HttpServerResponse.HttpServerResponse => {
  const stamped = HttpServerResponse.setHeader(response, requestIdHeader, id)
  const body = response.body
  if (response.status < 400 || body._tag !== "Uint8Array" || !body.contentType.startsWith("application/json"))
    return stamped
  const parsed = Option.liftThrowable((): unknown => JSON.parse(utf8.decode(body.body)))()
  return Option.isSome(parsed) && isErrorBody(parsed.value)
    ? HttpServerResponse.setBody(
        stamped,
        HttpBody.unsafeJson({ ...parsed.value, request_id: id }, body.contentType)
      )
    : stamped
}

/**
 * What a failure that reached the outermost middleware answers (the routes' own policy answers
 * nearly all of them first): a known one its error body, anything else 500 `internal_error`, its
 * cause kept on the request for the access log line.
 */
const answerLeftovers = (record: RequestRecord) => (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  const error = Option.getOrElse(answerFor(cause), () => internalError)
  if (error.status >= 500) record.failure = cause
  return Effect.succeed(errorResponse(error))
}

/** The access log line's fields: `http.*` for machines, the request's id and account. */
const accessFields = (record: RequestRecord, method: string, route: string, status: number, ms: number) => ({
  request_id: record.id,
  ...(record.accountId === undefined ? {} : { "account.id": record.accountId }),
  "http.method": method,
  "http.route": route,
  "http.status": status,
  "http.duration_ms": Math.round(ms * 10) / 10
})

/**
 * The server middleware: gives the request its id (kept on every answer, error body and log line),
 * records its metrics and writes its one log line (method, path, status, milliseconds; the request
 * id, account, route and status as fields), at error with the cause for a 5xx answer.
 */
export const observeRequests = (app: HttpApp.Default): HttpApp.Default =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const start = performance.now()
    const record = requestRecord(request.headers[requestIdHeader], randomUUID)
    const answered = app.pipe(
      Effect.catchAllCause(answerLeftovers(record)),
      Effect.map((response) => stampRequestId(response, record.id)),
      Effect.locally(currentRequest, record),
      Effect.annotateLogs("request_id", record.id)
    )
    return Effect.onExit(answered, (exit) => {
      const status = Exit.isSuccess(exit) ? exit.value.status : 499
      const ms = performance.now() - start
      const route = routeTemplate(request.method, request.url)
      recordRequest(request.method, route, status, ms / 1000)
      const line = `${request.method} ${loggedUrl(request.url)} ${status} ${ms.toFixed(1)}ms`
      const written = probes.has(route)
        ? Effect.logDebug(line)
        : status >= 500
          ? record.failure === undefined
            ? Effect.logError(line)
            : Effect.logError(line, record.failure)
          : Effect.logInfo(line)
      return written.pipe(Effect.annotateLogs(accessFields(record, request.method, route, status, ms)))
    })
  })

/** The metrics of this process in Prometheus's text format. */
export const renderMetrics: Effect.Effect<HttpServerResponse.HttpServerResponse> = Effect.map(
  Effect.promise(() => metricsRegistry.metrics()),
  (text) => HttpServerResponse.text(text, { contentType: metricsRegistry.contentType })
)

/** `GET /metrics` for Prometheus (no authentication: bind it to a private network, or filter it). */
export const MetricsRouteLive: Layer.Layer<never> = HttpApiBuilder.Router.use((router) =>
  router.get(metricsPath, renderMetrics)
) as Layer.Layer<never>
