/**
 * `GET /metrics` of a real server, as Prometheus scrapes it: request counts and latency histograms
 * per route template and status, the work queue's depth per lane, the ledger's credit totals, and
 * node's process metrics, in the Prometheus text format.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ServerMetricsLive } from "../src/metrics.js"
import { TestServer, TestServerLive } from "./server.js"
import { api, transcribe, videos } from "./support.js"

const MetricsServer = ServerMetricsLive.pipe(Layer.provideMerge(TestServerLive))

/** The value of one series of the scraped text, if present. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(MetricsServer, { timeout: "60 seconds", excludeTestServices: true })("GET /metrics", (it) => {
  it.effect("counts requests per route template and status, with latencies, queue depths and credits", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ credits: 10 })
      expect((yield* server.get(api("/credits"), { key })).status).toBe(200)
      expect((yield* server.get(api("/transcripts/AAAAAAAAAAA"), { key })).status).toBe(404)
      expect((yield* server.get(api("/transcripts/BBBBBBBBBBB"), { key })).status).toBe(404)
      expect(
        (yield* transcribe(server, key, { video: videos.multiLanguage, mode: "captions_only" })).status
      ).toBe(200)

      const response = yield* server.get("/metrics")
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/plain")
      const text = response.text
      expect(text).toContain("# TYPE verbatim_http_requests_total counter")
      expect(
        sample(text, 'verbatim_http_requests_total{method="GET",route="/api/v2/credits",status="200"}')
      ).toBeGreaterThanOrEqual(1)
      expect(
        sample(
          text,
          'verbatim_http_requests_total{method="GET",route="/api/v2/transcripts/:video_id",status="404"}'
        )
      ).toBeGreaterThanOrEqual(2)
      expect(text).not.toContain("AAAAAAAAAAA")
      expect(text).toContain("# TYPE verbatim_http_request_duration_seconds histogram")
      expect(
        sample(
          text,
          'verbatim_http_request_duration_seconds_count{method="POST",route="/api/v2/transcribe",status="200"}'
        )
      ).toBeGreaterThanOrEqual(1)
      expect(sample(text, 'verbatim_queue_jobs{lane="asr",state="waiting"}')).toBe(0)
      expect(sample(text, 'verbatim_queue_jobs{lane="webhook",state="active"}')).toBe(0)
      expect(sample(text, 'verbatim_queue_jobs{lane="batch.item",state="waiting"}')).toBe(0)
      expect(sample(text, 'verbatim_queue_jobs{lane="themes",state="delayed"}')).toBe(0)
      // The lanes of production workers only: the test wiring's lane is not reported.
      expect(text).not.toContain('lane="test.delay"')
      expect(sample(text, 'verbatim_ledger_credits{kind="charge"}')).toBeGreaterThanOrEqual(1)
      expect(sample(text, 'verbatim_ledger_credits{kind="grant"}')).toBeGreaterThanOrEqual(10)
      expect(text).toContain("process_cpu_user_seconds_total")
      expect(text).toContain("nodejs_eventloop_lag_seconds")
    })
  )

  it.effect("needs no key, and is itself counted once scraped again", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      yield* server.get("/metrics")
      const text = (yield* server.get("/metrics")).text
      expect(
        sample(text, 'verbatim_http_requests_total{method="GET",route="/metrics",status="200"}')
      ).toBeGreaterThanOrEqual(1)
    })
  )

  it.effect(
    "labels the GPT, MCP and OAuth routes with their templates; only unknown paths are unmatched",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const calls: ReadonlyArray<readonly [string, string]> = [
          ["GET", "/api/v2/gpt/openapi.json"],
          ["POST", "/api/v2/gpt/mcp"],
          ["GET", "/.well-known/oauth-protected-resource"],
          ["GET", "/.well-known/oauth-protected-resource/api/v2/gpt/mcp"],
          ["GET", "/.well-known/oauth-authorization-server"],
          ["POST", "/oauth/register"],
          ["GET", "/oauth/authorize"],
          ["POST", "/oauth/authorize"],
          ["POST", "/oauth/token"],
          ["POST", "/oauth/revoke"],
          ["OPTIONS", "/oauth/token"]
        ]
        const statuses = new Map<string, number>()
        for (const [method, path] of calls) {
          const response = yield* server.request(method, path, method === "POST" ? { raw: "{}" } : {})
          statuses.set(`${method} ${path}`, response.status)
        }
        yield* server.get("/api/v2/no-such-endpoint/at/all")
        const text = (yield* server.get("/metrics")).text
        for (const [method, path] of calls) {
          const status = statuses.get(`${method} ${path}`)
          expect(
            sample(
              text,
              `verbatim_http_requests_total{method="${method}",route="${path}",status="${status}"}`
            ),
            `${method} ${path} (${status})`
          ).toBeGreaterThanOrEqual(1)
        }
        expect(
          sample(text, 'verbatim_http_requests_total{method="GET",route="unmatched",status="404"}')
        ).toBe(1)
        expect(text).not.toContain("no-such-endpoint")
      })
  )
})
