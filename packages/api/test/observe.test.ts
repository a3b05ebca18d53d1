/**
 * The request middleware: one log line per request (not one per layer of middleware), the probes at
 * debug level, and the metrics labelled by path template, never by raw path.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Logger, LogLevel } from "effect"
import { httpRequests, metricsRegistry, observeRequests, routeTemplate } from "../src/index.js"

interface Line {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

const answer = (method: string, url: string, status: number) =>
  Effect.gen(function* () {
    const lines: Array<Line> = []
    const capture = Logger.make(({ logLevel, message, annotations }) => {
      lines.push({
        level: logLevel.label,
        message,
        annotations: Object.fromEntries(HashMap.toEntries(annotations))
      })
    })
    const request = HttpServerRequest.fromWeb(new Request(`http://verbatim.test${url}`, { method }))
    const response = yield* observeRequests(Effect.succeed(HttpServerResponse.empty({ status }))).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
      Logger.withMinimumLogLevel(LogLevel.All)
    )
    return { response, lines }
  })

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
          "http.method": "GET",
          "http.route": "/api/v2/transcripts/:video_id",
          "http.status": 404,
          "http.duration_ms": expect.any(Number)
        }
      })
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
