/**
 * The hot routes (`packages/api/src/hot-routes.ts`: GET /transcripts, GET /credits and
 * POST /transcribe without HttpApi's router) answer exactly what HttpApi answers. The test server
 * (production wiring) serves them; a second server on the same use cases, database and rate limiter
 * serves every request through HttpApi (`serveApi({ hotRoutes: false })`). The same requests go to
 * both, and the answers must match: status, body, and headers but the clock's (`date`, the rate
 * limit's remaining and reset, `retry-after`, whose presence must still match).
 *
 * Random query strings and bodies come from the fuzz test's arbitraries. A request that changes
 * state (a transcribe that charges) is sent once before the comparison, so both paths answer it in
 * the same steady state; ids a request mints (`request_id`, `job_id`) are compared by presence.
 */
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { McpHttpLive, serveApi } from "@verbatim/api"
import { AccountAdmin } from "@verbatim/core"
import { Context, Effect, FastCheck as fc, Layer } from "effect"
import { makeNodeServer } from "../src/node-server.js"
import { bodyText, queryString } from "./arbitraries.js"
import {
  type RequestOptions,
  requestTo,
  type TestResponse,
  TestServer,
  TestServerLive,
  type TestServerService
} from "./server.js"
import { api, oldAccount, transcribe, videos } from "./support.js"

const runs = Number(process.env.VERBATIM_FUZZ_RUNS ?? 150)

/** Headers that follow the clock or the bucket's state, not the path taken. */
const volatileHeaders = new Set(["date", "ratelimit-remaining", "ratelimit-reset", "retry-after"])

/** Values a request mints. */
const mintedFields = new Set(["request_id", "job_id"])

const normalized = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(normalized)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value).map(([key, field]) => [
            key,
            mintedFields.has(key) ? "<minted>" : normalized(field)
          ])
        )
      : value

/** What must match between the two paths. */
const comparable = (response: TestResponse) => ({
  status: response.status,
  headers: Object.fromEntries(
    [...response.headers].map(([name, value]) => [name, volatileHeaders.has(name) ? "<present>" : value])
  ),
  body: response.json === undefined ? response.text : normalized(response.json)
})

/** A server of the same use cases on which HttpApi answers every request; its request function. */
const apiOnlyServer = Effect.gen(function* () {
  const context = yield* Layer.build(
    serveApi({ hotRoutes: false }).pipe(
      Layer.provide(McpHttpLive),
      Layer.provideMerge(NodeHttpServer.layer(makeNodeServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the second server has no TCP address")
  return requestTo(`http://127.0.0.1:${address.port}`)
})

type Send = ReturnType<typeof requestTo>

/** Sends a request to both servers and requires the same answer; returns the hot one. */
const same = (hot: TestServerService, apiOnly: Send, method: string, path: string, options: RequestOptions) =>
  Effect.gen(function* () {
    const viaApi = yield* apiOnly(method, path, options)
    const viaHot = yield* hot.request(method, path, options)
    expect(comparable(viaHot), `${method} ${path} ${String(options.raw ?? "").slice(0, 300)}`).toEqual(
      comparable(viaApi)
    )
    return viaHot
  })

/** Business accounts (100 requests a second each) owning two transcripts, to rotate through. */
const owners = (server: TestServerService, count: number) =>
  Effect.forEach(Array.from({ length: count }), () =>
    Effect.gen(function* () {
      const { key } = yield* server.newAccount({ plan: "business", credits: 10_000, createdAt: oldAccount })
      yield* transcribe(server, key, { video: videos.manualAndAuto })
      yield* transcribe(server, key, { video: videos.multiLanguage, language: "de" })
      return key
    })
  )

/** Accounts a property rotates through: each sees fewer requests than one bucket's burst. */
const accountsPerProperty = Math.ceil((runs * 3) / 60)

const listParams = [
  "page",
  "limit",
  "search",
  "status",
  "language",
  "date_from",
  "date_to",
  "include_segments"
]

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "120 seconds", excludeTestServices: true })(
  "the hot routes answer what HttpApi answers",
  (it) => {
    describe("GET /transcripts", () => {
      it.scoped(
        "random query strings: the same status, headers and body on both paths",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const apiOnly = yield* apiOnlyServer
            const keys = yield* owners(server, accountsPerProperty)
            let turn = 0
            const fixed = ["", "search=coordination", "include_segments=true&limit=1", "page=2&limit=1"]
            for (const query of fixed) {
              const response = yield* same(server, apiOnly, "GET", api(`/transcripts?${query}`), {
                key: keys[0]
              })
              expect(response.status).toBe(200)
            }
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(queryString(listParams), async (query) => {
                  const key = keys[turn++ % keys.length]
                  await Effect.runPromise(
                    same(server, apiOnly, "GET", api(`/transcripts${query.length > 0 ? `?${query}` : ""}`), {
                      key
                    })
                  )
                }),
                { numRuns: runs }
              )
            )
          }),
        60_000 + runs * 100
      )
    })

    describe("every hot route", () => {
      it.scoped("authentication: missing, malformed, unknown and revoked keys, and a good one", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const apiOnly = yield* apiOnlyServer
          const admin = yield* AccountAdmin
          const { account, key } = yield* server.newAccount({ plan: "business", createdAt: oldAccount })
          const revoked = yield* admin.issueKey(account.id).pipe(Effect.orDie)
          yield* admin.revokeKey(revoked.record.id).pipe(Effect.orDie)
          // Owned before the comparison: both paths then answer it for 0 credits.
          yield* transcribe(server, key, { video: videos.manualAndAuto })
          const authorizations: ReadonlyArray<Record<string, string>> = [
            {},
            { authorization: "" },
            { authorization: "Basic dXNlcjpwYXNz" },
            { authorization: "Bearer" },
            { authorization: "Bearer not-a-key" },
            { authorization: `Bearer vbt_${"A".repeat(43)}` },
            { authorization: `Bearer ${revoked.key}` },
            { authorization: `bearer   ${key}  ` }
          ]
          for (const headers of authorizations) {
            yield* same(server, apiOnly, "GET", api("/credits"), { headers })
            yield* same(server, apiOnly, "GET", api("/transcripts?limit=5"), { headers })
            yield* same(server, apiOnly, "POST", api("/transcribe"), {
              headers,
              json: { video: videos.manualAndAuto }
            })
          }
        })
      )

      it.scoped("the rate limit's 429, with its headers, on both paths", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const apiOnly = yield* apiOnlyServer
          const { key } = yield* server.newAccount({ plan: "free", createdAt: oldAccount })
          for (const [method, path] of [
            ["GET", api("/credits")],
            ["GET", api("/transcripts")],
            ["POST", api("/transcribe")]
          ] as const) {
            // Empty the bucket (burst 2), then both paths are refused.
            yield* Effect.forEach([1, 2, 3], () => server.request(method, path, { key }))
            const refused = yield* same(
              server,
              apiOnly,
              method,
              path,
              method === "POST" ? { key, json: {} } : { key }
            )
            expect(refused.status).toBe(429)
          }
        })
      )

      it.scoped(
        "GET /credits, and a body over the limit (401 without a key, before the body; 413 with one)",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const apiOnly = yield* apiOnlyServer
            const { key } = yield* server.newAccount({ plan: "basic", credits: 37, createdAt: oldAccount })
            expect((yield* same(server, apiOnly, "GET", api("/credits"), { key })).status).toBe(200)
            const huge = JSON.stringify({ video: videos.manualAndAuto, padding: "x".repeat(1024 * 1024) })
            expect(
              (yield* same(server, apiOnly, "POST", api("/transcribe"), { key, raw: huge })).status
            ).toBe(413)
            expect((yield* same(server, apiOnly, "POST", api("/transcribe"), { raw: huge })).status).toBe(401)
          })
      )
    })

    describe("POST /transcribe", () => {
      it.scoped(
        "random bodies, in the steady state: the same answers on both paths",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const apiOnly = yield* apiOnlyServer
            const keys = yield* owners(server, accountsPerProperty)
            let turn = 0
            const fixed: ReadonlyArray<unknown> = [
              { video: videos.manualAndAuto },
              { video: videos.manualAndAuto, format: { timestamp: true, paragraphs: true, words: true } },
              { video: videos.multiLanguage, language: "de", source: "manual" },
              { video: videos.noCaptions },
              { video: videos.unknown },
              { video: videos.unavailable },
              { upload_id: "00000000-0000-4000-8000-000000000000" }
            ]
            for (const body of fixed) {
              yield* transcribe(server, keys[0] ?? "", body)
              yield* same(server, apiOnly, "POST", api("/transcribe"), { key: keys[0], json: body })
            }
            yield* same(server, apiOnly, "POST", api("/transcribe"), {
              key: keys[0],
              json: { video: videos.manualAndAuto },
              headers: { "idempotency-key": "hot-routes-1" }
            })
            yield* same(server, apiOnly, "POST", api("/transcribe"), {
              key: keys[0],
              raw: JSON.stringify({ video: videos.manualAndAuto }),
              headers: { "content-type": "text/plain" }
            })
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(bodyText, async (raw) => {
                  const key = keys[turn++ % keys.length]
                  const first = await Effect.runPromise(
                    server.request("POST", api("/transcribe"), { key, raw })
                  )
                  // A job in flight may finish between the two requests: only settled answers compare.
                  if (first.status === 202) return
                  await Effect.runPromise(same(server, apiOnly, "POST", api("/transcribe"), { key, raw }))
                }),
                { numRuns: runs }
              )
            )
          }),
        60_000 + runs * 150
      )
    })
  }
)
