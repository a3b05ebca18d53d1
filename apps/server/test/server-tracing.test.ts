/**
 * Tracing with the standard OTLP settings: a server started with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * exports each request as one trace, from the HTTP span through the repositories into SQL, to an
 * OTLP/HTTP receiver (here a local one that keeps what it gets); without the setting nothing is sent.
 */

import { mkdtempSync } from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { TracingConfig } from "../src/tracing.js"
import { freePort, listeningUrl, printedKey, startServer } from "./server-process.js"

interface Span {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
}

/** An OTLP/HTTP (JSON) trace receiver on a free port; the spans it received so far. */
const receiver = async () => {
  const spans: Array<Span> = []
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = ""
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8")
      })
      request.on("end", () => resolve(body))
    })
  const server = createServer(async (request, response) => {
    const body = await read(request)
    if (request.url === "/v1/traces") {
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Span> }> }>
      }
      for (const resource of payload.resourceSpans) {
        for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      }
    }
    response.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    spans,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

describe("tracing settings", () => {
  const read = (env: Record<string, string>) =>
    Effect.runSync(Effect.either(Effect.withConfigProvider(TracingConfig, ConfigProvider.fromJson(env))))

  it("are off without an OTLP endpoint, on with either standard variable", () => {
    expect(Either.getOrThrow(read({})).endpoint._tag).toBe("None")
    const endpointOf = (env: Record<string, string>) =>
      Option.getOrUndefined(Either.getOrThrow(read(env)).endpoint)
    expect(endpointOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe("http://collector:4318")
    expect(endpointOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(
      "http://collector:4318/v1/traces"
    )
    expect(Either.getOrThrow(read({})).serviceName).toBe("verbatim-server")
  })
})

describe("a server with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports a request as one trace: the HTTP span, the repository's span and the SQL statements", async () => {
    const collector = await receiver()
    const server = startServer({
      VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-tracing-")),
      PORT: String(await freePort()),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "verbatim-test",
      OTEL_BSP_SCHEDULE_DELAY: "100"
    })
    try {
      const output = await server.waitFor(/Seeded a development account/, 90_000)
      const key = printedKey(output) as string
      const response = await fetch(
        `${listeningUrl(await server.waitFor(/Listening on http/, 90_000))}/api/v2/credits`,
        {
          headers: { authorization: `Bearer ${key}` }
        }
      )
      expect(response.status).toBe(200)
      const deadline = Date.now() + 15_000
      const request = () => collector.spans.find((span) => /http\.server GET/.test(span.name))
      while (request() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      const http = request()
      expect(http, JSON.stringify(collector.spans.map((span) => span.name))).toBeDefined()
      const trace = collector.spans.filter((span) => span.traceId === http?.traceId).map((span) => span.name)
      expect(trace).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^http\.server GET/),
          "verbatim.db.Accounts.findByKeyHash",
          "sql.execute"
        ])
      )
    } finally {
      server.child.kill("SIGTERM")
      await server.exited
      await collector.close()
    }
  }, 120_000)
})
