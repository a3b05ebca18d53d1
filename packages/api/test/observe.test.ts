/**
 * The request middleware: one log line per request (not one per layer of middleware), the probes at
 * debug level, 5xx answers at error with their cause, the metrics labelled by path template, never
 * by raw path; and every request's id, on its answer, its error body and its log lines.
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { acceptedRequestId, maxRequestIdLength, noteRequestAccount } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Cause, Effect, FastCheck as fc, HashMap, Logger, LogLevel } from "effect"
import { errorResponse } from "../src/errors.js"
import { answerFailures } from "../src/http.js"
import { httpRequests, metricsRegistry, observeRequests, routeTemplate } from "../src/index.js"

interface Line {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

interface CapturedLine extends Line {
  readonly cause: Cause.Cause<unknown>
}

const serve = (method: string, url: string, app: HttpApp.Default, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const lines: Array<CapturedLine> = []
    const capture = Logger.make(({ logLevel, message, annotations, cause }) => {
      lines.push({
        level: logLevel.label,
        message,
        annotations: Object.fromEntries(HashMap.toEntries(annotations)),
        cause
      })
    })
    const request = HttpServerRequest.fromWeb(new Request(`http://verbatim.test${url}`, { method, headers }))
    const response = yield* observeRequests(app).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
      Logger.withMinimumLogLevel(LogLevel.All)
    )
    return { response, lines }
  })

const answer = (method: string, url: string, status: number) =>
  Effect.map(
    serve(method, url, Effect.succeed(HttpServerResponse.empty({ status }))),
    ({ response, lines }) => ({
      response,
      lines: lines.map(({ level, message, annotations }) => ({ level, message, annotations }))
    })
  )

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const bodyOf = (response: HttpServerResponse.HttpServerResponse): unknown =>
  response.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(response.body.body)) : undefined

describe("observeRequests", () => {
  it.effect("writes one line per request: method, path, status and milliseconds, with http.* fields", () =>
    Effect.gen(function* () {
      const { response, lines } = yield* answer("GET", "/api/v2/transcripts/dQw4w9WgXcQ?language=en", 404)
      expect(response.status).toBe(404)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toEqual({
        level: "INFO",
        message: [
          expect.stringMatching(/^GET \/api\/v2\/transcripts\/dQw4w9WgXcQ\?language=en 404 \d+\.\dms$/)
        ],
        annotations: {
          request_id: expect.stringMatching(uuid),
          "http.method": "GET",
          "http.route": "/api/v2/transcripts/:video_id",
          "http.status": 404,
          "http.duration_ms": expect.any(Number)
        }
      })
      expect(response.headers["x-request-id"]).toBe(lines[0]?.annotations.request_id)
    })
  )

  it.effect(
    "every answer, its error body and its log lines carry the request id; the account once known",
    () =>
      Effect.gen(function* () {
        const app = Effect.gen(function* () {
          yield* noteRequestAccount("6f1c7a0e-3333-4a4a-8a8a-000000000001")
          yield* Effect.logWarning("inside the request")
          return errorResponse(Errors.apiError("not_found", "no such transcript"))
        })
        const { response, lines } = yield* serve("GET", "/api/v2/transcripts/aaaaaaaaaaa", app, {
          "x-request-id": "client-trace.42"
        })
        expect(response.headers["x-request-id"]).toBe("client-trace.42")
        expect(bodyOf(response)).toEqual({
          error: "not_found",
          message: "no such transcript",
          details: {},
          request_id: "client-trace.42"
        })
        expect(lines.map((line) => [line.level, line.annotations.request_id])).toEqual([
          ["WARN", "client-trace.42"],
          ["INFO", "client-trace.42"]
        ])
        expect(lines[1]?.annotations).toEqual(
          expect.objectContaining({
            "account.id": "6f1c7a0e-3333-4a4a-8a8a-000000000001",
            "http.route": "/api/v2/transcripts/:video_id",
            "http.status": 404
          })
        )
      })
  )

  it.effect.prop(
    "a client's X-Request-Id is kept when valid and replaced otherwise, never reaching the log unsafe",
    [fc.oneof(fc.string({ maxLength: 200 }), fc.stringMatching(/^[A-Za-z0-9._~:+=/@-]{1,140}$/))],
    ([sent]) =>
      Effect.gen(function* () {
        // A value a fetch Request cannot carry (a line break, a non-Latin-1 character) never arrives.
        const sendable = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(sent)
        const { response, lines } = yield* serve(
          "GET",
          "/api/v2/credits",
          Effect.succeed(HttpServerResponse.empty({ status: 200 })),
          sendable ? { "x-request-id": sent } : {}
        )
        const id = response.headers["x-request-id"] ?? ""
        const valid = sendable && sent.length <= maxRequestIdLength && acceptedRequestId(sent) === sent
        if (valid) expect(id).toBe(sent)
        else expect(id).toMatch(uuid)
        expect(id).toMatch(/^[A-Za-z0-9._~:+=/@-]{1,128}$/)
        expect(lines[0]?.annotations.request_id).toBe(id)
      })
  )

  it.effect("a 5xx answer is logged at error with the cause it was turned into", () =>
    Effect.gen(function* () {
      const failing = answerFailures(Effect.die(new Error("the disk caught fire")))
      const { response, lines } = yield* serve("GET", "/api/v2/credits", failing)
      expect(response.status).toBe(500)
      expect(bodyOf(response)).toEqual(
        expect.objectContaining({ error: "internal_error", request_id: response.headers["x-request-id"] })
      )
      expect(lines).toHaveLength(1)
      expect(lines[0]?.level).toBe("ERROR")
      expect(Cause.pretty(lines[0]?.cause ?? Cause.empty)).toContain("the disk caught fire")
      // A failure that reaches the outermost middleware itself is answered the same way.
      const raw = yield* serve("GET", "/api/v2/credits", Effect.die(new Error("left over")))
      expect([raw.response.status, raw.lines[0]?.level]).toEqual([500, "ERROR"])
      expect(Cause.pretty(raw.lines[0]?.cause ?? Cause.empty)).toContain("left over")
    })
  )

  it.effect("never writes a signed upload URL's token: it is a credential", () =>
    Effect.gen(function* () {
      const token = "eyJ2IjoxfQ.c2lnbmF0dXJl"
      const { lines } = yield* answer("PUT", `/api/v2/uploads/files/${token}`, 200)
      expect(lines).toHaveLength(1)
      expect(JSON.stringify(lines)).not.toContain(token)
      expect(lines[0]?.message).toEqual([
        expect.stringMatching(/^PUT \/api\/v2\/uploads\/files\/<token> 200 /)
      ])
      expect(lines[0]?.annotations["http.route"]).toBe("/api/v2/uploads/files/:token")
    })
  )

  it.effect("never writes a credential put in a query string: its value is <redacted>", () =>
    Effect.gen(function* () {
      const secret = "vbt_0123456789abcdef"
      const query = `video_id=dQw4w9WgXcQ&api_key=${secret}&Token=${secret}&co%64e=${secret}&sig&sig=${secret}&lang=en`
      const { lines } = yield* answer("GET", `/api/v2/transcripts?${query}`, 200)
      expect(JSON.stringify(lines)).not.toContain(secret)
      expect(lines[0]?.message).toEqual([
        expect.stringMatching(
          /^GET \/api\/v2\/transcripts\?video_id=dQw4w9WgXcQ&api_key=<redacted>&Token=<redacted>&co%64e=<redacted>&sig=<redacted>&sig=<redacted>&lang=en 200 /
        )
      ])
    })
  )

  it.effect("logs the probes at debug level", () =>
    Effect.gen(function* () {
      for (const path of ["/api/v2/ping", "/api/v2/health", "/metrics"]) {
        const { lines } = yield* answer("GET", path, 200)
        expect(lines.map((line) => line.level)).toEqual(["DEBUG"])
      }
    })
  )

  it.effect("counts requests by method, route template and status", () =>
    Effect.gen(function* () {
      const labels = { method: "DELETE", route: "/api/v2/transcripts/:video_id", status: "200" }
      const before = (yield* Effect.promise(() => httpRequests.get())).values.find(
        (value) => JSON.stringify(value.labels) === JSON.stringify(labels)
      )?.value
      yield* answer("DELETE", "/api/v2/transcripts/aaaaaaaaaaa", 200)
      yield* answer("DELETE", "/api/v2/transcripts/bbbbbbbbbbb", 200)
      const after = (yield* Effect.promise(() => httpRequests.get())).values.find(
        (value) => JSON.stringify(value.labels) === JSON.stringify(labels)
      )?.value
      expect((after ?? 0) - (before ?? 0)).toBe(2)
      const text = yield* Effect.promise(() => metricsRegistry.metrics())
      expect(text).not.toContain("aaaaaaaaaaa")
      expect(text).toContain('verbatim_http_request_duration_seconds_bucket{le="0.005"')
    })
  )
})

describe("routeTemplate", () => {
  it.each([
    ["GET", "/api/v2/ping", "/api/v2/ping"],
    ["GET", "/api/v2/credits?x=1", "/api/v2/credits"],
    ["POST", "/api/v2/transcripts/bulk-delete", "/api/v2/transcripts/bulk-delete"],
    ["GET", "/api/v2/transcripts/abc/languages", "/api/v2/transcripts/:video_id/languages"],
    ["GET", "/api/v2/jobs/6f1c7a0e-3333-4a4a-8a8a-000000000001", "/api/v2/jobs/:job_id"],
    ["HEAD", "/api/v2/ping", "/api/v2/ping"],
    ["PUT", "/api/v2/uploads/files/a.very.long.token", "/api/v2/uploads/files/:token"],
    ["GET", "/metrics", "/metrics"],
    ["GET", "/docs", "/docs"],
    ["GET", "/wp-admin", "unmatched"],
    ["PATCH", "/api/v2/credits", "unmatched"]
  ])("%s %s is %s", (method, url, template) => {
    expect(routeTemplate(method, url)).toBe(template)
  })
})
