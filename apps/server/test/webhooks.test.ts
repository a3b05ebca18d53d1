/**
 * Webhooks end to end on the production wiring with the embedded worker: a job's result reaches a
 * local receiver once, signed so that `standardwebhooks` verifies it, after the receiver was down
 * or failing for a while, with every attempt in the delivery log; final answers are not retried;
 * private addresses are refused at request time (400 naming `webhook_url`) and again at delivery.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, layer } from "@effect/vitest"
import { AccountAdmin, JobLifecycle, Jobs, Ledger, WebhookDeliveries } from "@verbatim/core"
import { eventually, testJob } from "@verbatim/runtime/testing"
import { Effect, Option, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import { TestServer, TestServerLive } from "./server.js"

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A receiver on 127.0.0.1 answering each request with the next status of `statuses` (then the last). */
const receiver = (statuses: ReadonlyArray<number>, port = 0) =>
  Effect.acquireRelease(
    Effect.async<{ server: Server; port: number; received: Array<Received> }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
          response.statusCode = statuses[Math.min(received.length, statuses.length) - 1] ?? 200
          response.end()
        })
      })
      server.listen(port, "127.0.0.1", () =>
        resume(Effect.succeed({ server, port: (server.address() as AddressInfo).port, received }))
      )
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** A port on 127.0.0.1 that nothing listens on (until someone does). */
const freePort = Effect.scoped(Effect.map(receiver([200]), ({ port }) => port))

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("webhooks", (it) => {
  const setUp = (credits = 10) =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const account = yield* server.createAccount({ credits })
      const secret = yield* (yield* AccountAdmin).webhookSecret(account.id, false).pipe(Effect.orDie)
      return { account, secret: Redacted.value(secret) }
    })

  const deliveriesOf = (jobId: Parameters<WebhookDeliveries["Type"]["ofJob"]>[0]) =>
    Effect.flatMap(WebhookDeliveries, (deliveries) => deliveries.ofJob(jobId))

  const finished = (jobId: Parameters<WebhookDeliveries["Type"]["ofJob"]>[0]) =>
    eventually(
      "the delivery to finish",
      Effect.map(deliveriesOf(jobId), (rows) =>
        Option.fromNullable(rows.find((row) => row.status !== "pending"))
      )
    )

  describe("delivery", () => {
    it.scoped(
      "arrives once, signed, after the receiver was down for a while; every attempt is logged",
      () =>
        Effect.gen(function* () {
          const { account, secret } = yield* setUp()
          const port = yield* freePort
          const job = yield* testJob({
            accountId: account.id,
            payload: { credits: 2 },
            webhookUrl: `http://127.0.0.1:${port}/hooks/verbatim`
          })
          yield* (yield* JobLifecycle).create(job)
          // Down: the first attempts find nothing listening.
          yield* eventually(
            "two failed attempts",
            Effect.map(deliveriesOf(job.id), (rows) =>
              Option.liftPredicate(rows, (r) => (r[0]?.attempts ?? 0) >= 2)
            )
          )
          const hooks = yield* receiver([200], port)
          const delivery = yield* finished(job.id)
          expect(delivery.status).toBe("delivered")
          expect(hooks.received).toHaveLength(1)
          const [request] = hooks.received
          if (request === undefined) return
          // The body is the job object of GET /jobs/{job_id}, and it verifies with the account's secret.
          const verified = new Webhook(secret).verify(request.body, {
            "webhook-id": String(request.headers["webhook-id"]),
            "webhook-timestamp": String(request.headers["webhook-timestamp"]),
            "webhook-signature": String(request.headers["webhook-signature"])
          })
          expect(verified).toMatchObject({ job_id: job.id, status: "completed", credits_used: 2 })
          expect(request.headers["webhook-id"]).toBe(delivery.id)
          const attempts = yield* (yield* WebhookDeliveries).attempts(delivery.id)
          expect(attempts.length).toBe(delivery.attempts)
          expect(attempts.length).toBeGreaterThanOrEqual(3)
          expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1))
          expect(attempts.slice(0, -1).every((a) => a.statusCode === null && a.error !== null)).toBe(true)
          expect(attempts.at(-1)).toMatchObject({ statusCode: 200, error: null })
          // Nothing arrives twice, and the job was charged once.
          yield* Effect.sleep("300 millis")
          expect(hooks.received).toHaveLength(1)
          const charges = (yield* (yield* Ledger).entries(account.id)).filter((e) => e.jobId === job.id)
          expect(charges.map((e) => e.amount)).toEqual([-2])
        }),
      { timeout: 30_000 }
    )

    it.scoped(
      "a 5xx is retried until the receiver takes it; a 410 is final",
      () =>
        Effect.gen(function* () {
          const { account } = yield* setUp()
          const flaky = yield* receiver([503, 500, 204])
          const retried = yield* testJob({
            accountId: account.id,
            webhookUrl: `http://127.0.0.1:${flaky.port}/h`
          })
          yield* (yield* JobLifecycle).create(retried)
          expect(yield* finished(retried.id)).toMatchObject({
            status: "delivered",
            attempts: 3,
            lastStatus: 204
          })
          expect(flaky.received).toHaveLength(3)
          // Every attempt carries the same webhook-id (receivers drop duplicates by it).
          expect(new Set(flaky.received.map((r) => r.headers["webhook-id"])).size).toBe(1)

          const gone = yield* receiver([410])
          const refused = yield* testJob({
            accountId: account.id,
            webhookUrl: `http://127.0.0.1:${gone.port}/h`
          })
          yield* (yield* JobLifecycle).create(refused)
          expect(yield* finished(refused.id)).toMatchObject({
            status: "failed",
            attempts: 1,
            lastStatus: 410
          })
          yield* Effect.sleep("300 millis")
          expect(gone.received).toHaveLength(1)
        }),
      { timeout: 30_000 }
    )

    it.scoped(
      "a failed job is delivered too, and charges nothing",
      () =>
        Effect.gen(function* () {
          const { account } = yield* setUp(5)
          const hooks = yield* receiver([200])
          const job = yield* testJob({
            accountId: account.id,
            payload: { credits: 3, fail: "the engine gave up" },
            webhookUrl: `http://127.0.0.1:${hooks.port}/h`
          })
          yield* (yield* JobLifecycle).create(job)
          yield* finished(job.id)
          expect(JSON.parse(hooks.received[0]?.body ?? "{}")).toMatchObject({
            job_id: job.id,
            status: "failed",
            error: "the engine gave up",
            credits_used: 0
          })
          expect((yield* (yield* Ledger).entries(account.id)).filter((e) => e.jobId === job.id)).toEqual([])
          const stored = yield* (yield* Jobs).get(account.id, job.id)
          expect(Option.map(stored, (j) => j.status)).toEqual(Option.some("failed"))
        }),
      { timeout: 30_000 }
    )

    it.scoped(
      "a private address is refused again at delivery, without a connection",
      () =>
        Effect.gen(function* () {
          const { account } = yield* setUp()
          // Created directly (the request-time check is skipped), as if DNS had changed since.
          const job = yield* testJob({ accountId: account.id, webhookUrl: "http://10.1.2.3:9/h" })
          yield* (yield* JobLifecycle).create(job)
          const delivery = yield* finished(job.id)
          expect(delivery).toMatchObject({ status: "failed", attempts: 1, lastStatus: null })
          expect(delivery.lastError).toMatch(/10\.1\.2\.3|private|not allowed|refused/i)
        }),
      { timeout: 30_000 }
    )
  })

  describe("POST /transcribe refuses a webhook_url that would reach a private address", () => {
    it.effect.each([
      ["http://10.0.0.1/hook", "a private literal"],
      ["http://192.168.1.10/hook", "a private literal of another range"],
      ["http://169.254.169.254/latest/meta-data", "the metadata address"],
      ["http://[::ffff:192.168.0.1]/hook", "a mapped private address"],
      ["http://0x0a.0.0.1/hook", "a private address in hex notation"],
      ["https://internal.example.com/hook", "a name that resolves to a private address"],
      ["https://no-such-host.example.net/hook", "a name that does not resolve"]
    ])("%s (%s): 400 naming webhook_url", ([url]) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        const response = yield* server.post("/api/v2/transcribe", {
          key,
          json: { video: "Pz8QeL1uWfH", mode: "auto", webhook_url: url }
        })
        expect(response.status).toBe(400)
        expect(response.json).toMatchObject({
          error: "invalid_request",
          details: { issues: [{ path: ["webhook_url"] }] }
        })
      })
    )

    it.effect("captions modes ignore webhook_url without checking it (DESIGN decision 11)", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        const response = yield* server.post("/api/v2/transcribe", {
          key,
          json: { video: "Rt7mN0pWzYe", mode: "captions_only", webhook_url: "http://10.0.0.1/hook" }
        })
        expect(response.status).toBe(200)
      })
    )
  })
})
