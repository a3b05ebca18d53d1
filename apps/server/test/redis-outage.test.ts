/**
 * Redis failing under a running server (`REDIS_URL`; on PostgreSQL too when `DATABASE_URL` is set).
 * The server reaches Redis through a TCP proxy the test closes (Redis down):
 *
 * - no request answers 500: accepted work is recorded in the database first and the queue offer is
 *   left to the reconciler; the rate limiter fails open; a `QueueError` that reaches a caller is 503
 *   `service_unavailable` with `Retry-After` (core's boundary, `packages/core/test/boundary.test.ts`);
 * - `/health` answers 503 with `Retry-After` (the queue is down), `/ping` 200;
 * - once Redis is back the same server runs the work accepted meanwhile, without a restart.
 *
 * Runs when `REDIS_URL` is set, and always under `CI=true`, where a missing `REDIS_URL` fails it.
 */
import { beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TcpProxy, throughProxy, withProxy } from "./outage-proxy.js"
import { type TestResponse, TestServer, testServerOn } from "./server.js"
import { api } from "./support.js"

const redisUrl = process.env.REDIS_URL?.trim() ?? ""
const inCi = process.env.CI === "true"
const target = redisUrl === "" ? undefined : new URL(redisUrl)
const proxy = new TcpProxy(Number(target?.port || 6379), target?.hostname || "127.0.0.1")

const ProxiedServer = withProxy(proxy, (port) =>
  testServerOn({
    redisPrefix: `${process.env.VERBATIM_REDIS_PREFIX ?? "test:"}redis-outage-${Date.now()}:`,
    redisUrl: throughProxy(redisUrl, port)
  })
)

const noServerError = (response: TestResponse) => {
  expect(response.status, response.text).toBeLessThan(500)
}

describe.runIf(redisUrl !== "" || inCi)("Redis outages (through a proxy)", () => {
  beforeAll(() => {
    if (redisUrl === "")
      throw new Error("REDIS_URL is not set: under CI=true this suite runs (.ci/run starts Redis)")
  })
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(ProxiedServer, { timeout: "120 seconds", excludeTestServices: true })("a running server", (it) => {
    it.effect(
      "down: no 500, /health 503 with Retry-After, work accepted; back: the work runs, without a restart",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 100 })
          expect((yield* server.get(api("/health"))).status).toBe(200)

          yield* Effect.promise(() => proxy.close())
          noServerError(yield* server.get(api("/credits"), { key }))
          noServerError(
            yield* server.post(api("/transcribe"), {
              key,
              json: { video: "Rt7mN0pWzYe", mode: "captions_only" }
            })
          )
          const batch = yield* server.post(api("/batch"), {
            key,
            json: { video_ids: ["q3Lx8VbT2kA", "gT4_hJk9LmQ"], mode: "captions_only" }
          })
          expect(batch.status, batch.text).toBe(202)
          noServerError(yield* server.get(api("/transcripts"), { key }))
          const health = yield* server.get(api("/health"))
          expect(health.status).toBe(503)
          expect(health.json).toMatchObject({ status: "unavailable" })
          expect((yield* server.get("/health/details")).json).toMatchObject({ queue: { status: "down" } })
          expect(health.headers.get("retry-after")).toBe("5")
          expect((yield* server.get(api("/ping"))).status).toBe(200)

          yield* Effect.promise(() => proxy.open())
          const { batch_id } = batch.json as { readonly batch_id: string }
          const start = Date.now()
          for (;;) {
            const polled = yield* server.get(api(`/batch/${batch_id}`), { key })
            noServerError(polled)
            if (polled.status === 200) {
              expect(polled.json).toMatchObject({ summary: { total: 2, succeeded: 2 } })
              break
            }
            if (Date.now() - start > 30_000) return yield* Effect.die(`batch not run: ${polled.text}`)
            yield* Effect.sleep("200 millis")
          }
          expect((yield* server.get(api("/health"))).status).toBe(200)
        }),
      90_000
    )
  })
})
