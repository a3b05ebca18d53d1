/**
 * The database failing under a running server (PostgreSQL only: `DATABASE_URL`). The server reaches
 * PostgreSQL through a TCP proxy the test breaks:
 *
 * - frozen (as with SIGSTOP: connections open, nothing answers): data requests answer 503
 *   `service_unavailable` with `Retry-After` within the statement and connect timeouts, never hang;
 * - down (connections cut and refused): 503 at once;
 * - `/ping` stays 200 (liveness) while `/health` answers 503 (readiness);
 * - once the proxy forwards again the same server answers 200 again: no restart.
 */
import { describe, expect, layer } from "@effect/vitest"
import { observedPlatform, ServiceUrl, WebhookAllowList } from "@verbatim/core"
import { camelCaseNaming, persistenceLayer, postgresTestLayer } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import {
  demoPlatform,
  NodeServicesLive,
  noSpeechToText,
  noTranslator,
  queuesFor,
  testThemes
} from "@verbatim/runtime"
import { testAllowedHosts, testStorage } from "@verbatim/runtime/testing"
import { Effect, Layer, Option, Redacted } from "effect"
import { TcpProxy, throughProxy, withProxy } from "./outage-proxy.js"
import { type TestResponse, TestServer, testServerOn } from "./server.js"
import { api } from "./support.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

/** The statement timeout of the server under test (its client gives up 2 s later). */
const statementTimeoutMs = 1_000
const connectTimeoutMs = 1_000
/** The longest a request may take while the database is frozen or down. */
const bound = statementTimeoutMs + 2_000 + connectTimeoutMs + 1_500

const target = databaseUrl === "" ? undefined : new URL(databaseUrl)
const proxy = new TcpProxy(Number(target?.port || 5432), target?.hostname || "127.0.0.1")

const ProxiedServer = withProxy(proxy, (port) =>
  testServerOn({
    infrastructure: (publicUrl) =>
      Layer.mergeAll(
        persistenceLayer(
          postgresTestLayer(
            Redacted.make(databaseUrl),
            camelCaseNaming,
            { maxConnections: 4, connectTimeoutMs, statementTimeoutMs },
            Redacted.make(throughProxy(databaseUrl, port))
          )
        ),
        observedPlatform(demoPlatform(shippedCataloguePath)),
        queuesFor({ url: Option.none(), prefix: "unused:" }),
        NodeServicesLive,
        Layer.succeed(WebhookAllowList, testAllowedHosts),
        noSpeechToText("no speech engine in this test"),
        noTranslator("no translation engine in this test"),
        testStorage(publicUrl ?? "http://127.0.0.1:9"),
        Layer.succeed(ServiceUrl, publicUrl ?? "http://127.0.0.1:9"),
        testThemes()
      )
  })
)

const timed = (request: Effect.Effect<TestResponse>) =>
  Effect.gen(function* () {
    const start = Date.now()
    const response = yield* request
    return { response, ms: Date.now() - start }
  })

const expectUnavailable = (response: TestResponse) => {
  expect({ status: response.status, body: response.json }, response.text).toEqual({
    status: 503,
    body: { error: "service_unavailable", message: expect.any(String), details: { retry_after_seconds: 5 } }
  })
  expect(response.headers.get("retry-after")).toBe("5")
}

/** Retries until the server answers 200 again (the pool replaces its broken connections). */
const recovered = (request: Effect.Effect<TestResponse>) =>
  Effect.gen(function* () {
    const start = Date.now()
    for (;;) {
      const response = yield* request
      if (response.status === 200) return Date.now() - start
      if (Date.now() - start > 15_000)
        return yield* Effect.die(`not recovered: ${response.status} ${response.text}`)
      yield* Effect.sleep("100 millis")
    }
  })

describe.runIf(databaseUrl !== "")("database outages (PostgreSQL through a proxy)", () => {
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(ProxiedServer, { timeout: "120 seconds", excludeTestServices: true })("a running server", (it) => {
    it.effect(
      "frozen: 503 with Retry-After within the timeouts; /ping 200, /health 503; thawed: 200 again",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 10 })
          const credits = server.get(api("/credits"), { key })
          expect((yield* credits).status).toBe(200)
          expect((yield* server.get(api("/health"))).status).toBe(200)

          proxy.freeze()
          for (let i = 0; i < 3; i++) {
            const { response, ms } = yield* timed(credits)
            expectUnavailable(response)
            expect(ms).toBeLessThan(bound)
          }
          const ping = yield* timed(server.get(api("/ping")))
          expect(ping.response.status).toBe(200)
          expect(ping.ms).toBeLessThan(1_000)
          const health = yield* timed(server.get(api("/health")))
          expect(health.response.status).toBe(503)
          expect(health.response.json).toMatchObject({ status: "unavailable" })
          expect((yield* server.get("/health/details")).json).toMatchObject({ database: { status: "down" } })
          expect(health.response.headers.get("retry-after")).toBe("5")
          expect(health.ms).toBeLessThan(3_000)

          proxy.thaw()
          yield* recovered(credits)
          expect((yield* server.get(api("/health"))).status).toBe(200)
        }),
      60_000
    )

    it.effect(
      "down: 503 with Retry-After at once; back: 200 again without a restart, prepared statements too",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 10 })
          const credits = server.get(api("/credits"), { key })
          expect((yield* credits).status).toBe(200)
          // An owned transcript is served by prepared (named) statements, which each connection
          // prepares once: the connections opened after the outage must prepare them again.
          const video = { video: "Rt7mN0pWzYe", mode: "captions_only" }
          const owned = server.post(api("/transcribe"), { key, json: video })
          expect((yield* owned).json).toMatchObject({ status: "completed", credits_used: 1 })
          expect((yield* owned).json).toMatchObject({ status: "completed", credits_used: 0 })
          // The list search runs on the repositories' direct lane to the pool (`direct.ts`).
          const search = server.get(api("/transcripts?search=Rt7mN0pWzYe"), { key })
          expect((yield* search).json).toMatchObject({ count: 1 })

          yield* Effect.promise(() => proxy.close())
          for (let i = 0; i < 3; i++) {
            const { response, ms } = yield* timed(credits)
            expectUnavailable(response)
            expect(ms).toBeLessThan(bound)
          }
          expectUnavailable(yield* owned)
          expectUnavailable(yield* search)
          expect((yield* server.get(api("/health"))).status).toBe(503)
          expect((yield* server.get(api("/ping"))).status).toBe(200)

          yield* Effect.promise(() => proxy.open())
          yield* recovered(credits)
          expect((yield* server.get(api("/health"))).status).toBe(200)
          expect((yield* owned).json).toMatchObject({ status: "completed", credits_used: 0 })
          expect((yield* credits).json).toMatchObject({ credits: 9 })
          expect((yield* search).json).toMatchObject({ count: 1 })
        }),
      60_000
    )
  })
})
