import { describe, expect, layer } from "@effect/vitest"
import { AccountAdmin } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Effect, Exit } from "effect"
import { TestServer, TestServerLive } from "./server.js"

const expectErrorBody = (body: unknown, code: Errors.ErrorCode) => {
  expect(body).toEqual({ error: code, message: expect.any(String), details: expect.any(Object) })
}

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the server over real HTTP",
  (it) => {
    describe("GET /ping", () => {
      it.effect("answers without authentication", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const response = yield* server.get("/api/v2/ping")
          expect(response.status).toBe(200)
          expect(response.json).toEqual({ status: "ok", timestamp: expect.any(String) })
          expect(Number.isNaN(Date.parse((response.json as { timestamp: string }).timestamp))).toBe(false)
        })
      )
    })

    describe("authentication", () => {
      it.effect("a missing, malformed, unknown or revoked key answers 401 invalid_api_key", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { account, key } = yield* server.newAccount()
          const admin = yield* AccountAdmin
          const [revoked] = yield* Effect.orDie(admin.listKeys(account.id))
          const revokedKey = yield* server.issueKey(account)
          const keys = yield* Effect.orDie(admin.listKeys(account.id))
          const toRevoke = keys.find((k) => revokedKey.startsWith(k.prefix) && k.id !== revoked?.id)
          expect(toRevoke).toBeDefined()
          yield* Effect.orDie(admin.revokeKey(toRevoke?.id ?? ""))

          const attempts: ReadonlyArray<Record<string, string>> = [
            {},
            { authorization: "Bearer" },
            { authorization: "Bearer not-a-key" },
            { authorization: `Token ${key}` },
            { authorization: `Bearer vbt_${"Z".repeat(43)}` },
            { authorization: `Bearer ${revokedKey}` }
          ]
          for (const headers of attempts) {
            const response = yield* server.get("/api/v2/credits", { headers })
            expect(response.status).toBe(401)
            expectErrorBody(response.json, "invalid_api_key")
          }
          expect((yield* server.get("/api/v2/credits", { key })).status).toBe(200)
        })
      )
    })

    describe("GET /credits", () => {
      it.effect("answers the balance and plan of the key's account", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "basic", credits: 37 })
          const response = yield* server.get("/api/v2/credits", { key })
          expect(response.status).toBe(200)
          expect(response.json).toEqual({
            credits: 37,
            plan: "basic",
            thumbnail_credits: 0,
            held_credits: 0,
            onboarding_completed: false
          })
        })
      )

      it.effect("the typed client reads it too, and gets ApiError back for a bad key", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 12 })
          const client = yield* server.client(key)
          const credits = yield* client.credits.credits()
          expect(credits.credits).toBe(12)
          const anonymous = yield* server.client()
          const refused = yield* Effect.exit(anonymous.credits.credits())
          expect(Exit.isFailure(refused)).toBe(true)
          if (Exit.isFailure(refused)) {
            const error = refused.cause._tag === "Fail" ? refused.cause.error : undefined
            expect(error).toBeInstanceOf(Errors.ApiError)
            expect(error instanceof Errors.ApiError ? error.code : undefined).toBe("invalid_api_key")
          }
          const ping = yield* anonymous.health.ping()
          expect(ping.status).toBe("ok")
        })
      )
    })

    describe("errors", () => {
      it.effect("unknown paths answer a JSON 404 not_found", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          for (const path of ["/", "/api/v2", "/api/v2/nothing", "/api/v3/ping", "/favicon.ico"]) {
            const response = yield* server.get(path, { key })
            expect(response.status).toBe(404)
            expect(response.headers.get("content-type")).toContain("application/json")
            expectErrorBody(response.json, "not_found")
          }
        })
      )

      it.effect("malformed JSON answers 400 invalid_request with the error body", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          for (const raw of ['{"video": ', "{video: 1}", "[1,", "\u0000"]) {
            const response = yield* server.post("/api/v2/transcribe", { key, raw })
            expect(response.status).toBe(400)
            expect(response.json).toEqual({
              error: "invalid_request",
              message: "The request body is not valid JSON",
              details: {}
            })
          }
        })
      )

      it.effect("a body over 1 MiB answers 413 request_too_large", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const raw = JSON.stringify({ video: "x".repeat(1024 * 1024) })
          const response = yield* server.post("/api/v2/transcribe", { key, raw })
          expect(response.status).toBe(413)
          expect(response.json).toMatchObject({
            error: "request_too_large",
            details: { max_body_bytes: 1048576 }
          })
          // The connection stays usable.
          expect((yield* server.get("/api/v2/ping")).status).toBe(200)
        })
      )

      it.effect("a wrong type names the field", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const response = yield* server.post("/api/v2/transcribe", { key, json: { video: ["dQw4w9WgXcQ"] } })
          expect(response.status).toBe(400)
          expect((response.json as { message: string }).message).toMatch(/^video must be /)
        })
      )
    })

    describe("OpenAPI and reference page", () => {
      it.effect("/api/v2/openapi.json is valid JSON naming every endpoint; /docs serves the reference", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const document = yield* server.get("/api/v2/openapi.json")
          expect(document.status).toBe(200)
          const spec = document.json as {
            info: { title: string; version: string }
            paths: Record<string, unknown>
          }
          expect(spec.info).toMatchObject({ title: "Transcript Service API", version: "2.1.0" })
          expect(Object.keys(spec.paths)).toEqual(
            expect.arrayContaining([
              "/ping",
              "/credits",
              "/transcribe",
              "/transcribe/estimate",
              "/jobs/{job_id}",
              "/jobs",
              "/transcripts",
              "/transcripts/{video_id}",
              "/transcripts/bulk-delete",
              "/transcripts/{video_id}/languages"
            ])
          )
          const docs = yield* server.get("/docs")
          expect(docs.status).toBe(200)
          expect(docs.headers.get("content-type")).toContain("text/html")
          expect(docs.text).toContain("Transcript Service API")
          // The reference script is inlined, not loaded from a CDN.
          expect(/<script[^>]+src=/.test(docs.text)).toBe(false)
        })
      )
    })

    describe("rate limits", () => {
      it.effect("every authenticated response carries RateLimit-* headers", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "basic" })
          for (const [method, path] of [
            ["GET", "/api/v2/credits"],
            ["GET", "/api/v2/jobs"],
            ["GET", "/api/v2/jobs?limit=1000"],
            ["GET", "/api/v2/transcripts/dQw4w9WgXcQ"]
          ] as const) {
            const response = yield* server.request(method, path, { key })
            expect(response.headers.get("ratelimit-limit")).toBe("25")
            expect(Number(response.headers.get("ratelimit-remaining"))).toBeGreaterThanOrEqual(0)
            expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(0)
          }
        })
      )

      it.effect("a free account hammering gets 429 rate_limit_exceeded with Retry-After", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "free" })
          const responses = yield* Effect.all(
            Array.from({ length: 8 }, () => server.get("/api/v2/credits", { key })),
            { concurrency: "unbounded" }
          )
          const ok = responses.filter((r) => r.status === 200)
          const refused = responses.filter((r) => r.status === 429)
          // The free bucket holds 2 requests and refills 1 per second.
          expect(ok.length).toBeGreaterThanOrEqual(2)
          expect(ok.length).toBeLessThanOrEqual(3)
          expect(refused.length).toBe(responses.length - ok.length)
          for (const response of refused) {
            expectErrorBody(response.json, "rate_limit_exceeded")
            expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
            expect(response.headers.get("ratelimit-limit")).toBe("2")
            expect(response.headers.get("ratelimit-remaining")).toBe("0")
          }
        })
      )

      it.effect("accounts do not share buckets", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const first = yield* server.newAccount({ plan: "free" })
          const second = yield* server.newAccount({ plan: "free" })
          for (let i = 0; i < 4; i++) yield* server.get("/api/v2/credits", { key: first.key })
          expect((yield* server.get("/api/v2/credits", { key: first.key })).status).toBe(429)
          expect((yield* server.get("/api/v2/credits", { key: second.key })).status).toBe(200)
        })
      )
    })
  }
)
