/**
 * Fuzzing every endpoint over real HTTP with fast-check (bounded runs): schema-violating JSON
 * bodies, wrong types for each field, huge strings, deep nesting and non-JSON text, NUL in strings
 * and keys, numbers and dates past what the database holds; random query strings (random and
 * repeated keys, unicode, huge numbers, NUL, extreme dates, broken percent-encoding); random
 * URL-encoded path segments; random methods and Authorization headers. The server never answers
 * 5xx, every non-2xx answer is the error body with a catalogue code whose status it has, and every
 * 2xx JSON answer matches the endpoint's response schema.
 *
 * Each property spreads its requests over a few business accounts (100 requests a second each),
 * so the rate limit does not interfere; a 429 would still have to carry the error body.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Api, Errors } from "@verbatim/domain"
import { Effect, FastCheck as fc, Schema } from "effect"
import { bodyText, pathSegment, queryString } from "./arbitraries.js"
import { type TestResponse, TestServer, TestServerLive, type TestServerService } from "./server.js"
import { api, oldAccount, transcribe, videos } from "./support.js"

const runs = Number(process.env.VERBATIM_FUZZ_RUNS ?? 150)

/** Time for one property (about a second at 150 runs on PGlite). */
const propertyTimeout = 60_000 + runs * 40

interface Endpoint {
  readonly name: string
  readonly method: "GET" | "POST" | "DELETE"
  /** The path after /api/v2, given a path parameter. */
  readonly path: (param: string) => string
  readonly hasParam: boolean
  readonly params: ReadonlyArray<string>
  readonly hasBody: boolean
  /** Why a 2xx JSON answer breaks the endpoint's response schema, or undefined when it does not. */
  readonly success: (json: unknown) => string | undefined
}

const conforms =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (json: unknown): string | undefined => {
    const decoded = Schema.decodeUnknownEither(schema)(json)
    return decoded._tag === "Left" ? decoded.left.message : undefined
  }

const endpoints: ReadonlyArray<Endpoint> = [
  {
    name: "GET /ping",
    method: "GET",
    path: () => "/ping",
    hasParam: false,
    params: [],
    hasBody: false,
    success: conforms(Api.HealthResponse)
  },
  {
    name: "GET /credits",
    method: "GET",
    path: () => "/credits",
    hasParam: false,
    params: [],
    hasBody: false,
    success: conforms(Api.CreditsResponse)
  },
  {
    name: "POST /transcribe",
    method: "POST",
    path: () => "/transcribe",
    hasParam: false,
    params: [],
    hasBody: true,
    success: conforms(Api.TranscribeResponse)
  },
  {
    name: "POST /transcribe/estimate",
    method: "POST",
    path: () => "/transcribe/estimate",
    hasParam: false,
    params: [],
    hasBody: true,
    success: conforms(Api.EstimateResponse)
  },
  {
    name: "GET /jobs",
    method: "GET",
    path: () => "/jobs",
    hasParam: false,
    params: ["page", "limit", "status"],
    hasBody: false,
    success: conforms(Api.JobList)
  },
  {
    name: "GET /jobs/{job_id}",
    method: "GET",
    path: (id) => `/jobs/${id}`,
    hasParam: true,
    params: ["include_segments", "include_paragraphs", "include_words"],
    hasBody: false,
    success: conforms(Api.Job)
  },
  {
    name: "GET /transcripts",
    method: "GET",
    path: () => "/transcripts",
    hasParam: false,
    params: ["page", "limit", "search", "status", "language", "date_from", "date_to", "include_segments"],
    hasBody: false,
    success: conforms(Api.TranscriptList)
  },
  {
    name: "GET /transcripts/{video_id}",
    method: "GET",
    path: (id) => `/transcripts/${id}`,
    hasParam: true,
    params: ["id", "language", "source", "include_timestamps", "format"],
    hasBody: false,
    success: conforms(Api.StoredTranscript)
  },
  {
    name: "DELETE /transcripts/{video_id}",
    method: "DELETE",
    path: (id) => `/transcripts/${id}`,
    hasParam: true,
    params: ["language", "source"],
    hasBody: false,
    success: conforms(Api.DeleteResponse)
  },
  {
    name: "POST /transcripts/bulk-delete",
    method: "POST",
    path: () => "/transcripts/bulk-delete",
    hasParam: false,
    params: [],
    hasBody: true,
    success: conforms(Api.DeleteResponse)
  },
  {
    name: "POST /uploads",
    method: "POST",
    path: () => "/uploads",
    hasParam: false,
    params: [],
    hasBody: true,
    success: conforms(Api.UploadCreateResponse)
  },
  {
    name: "POST /batch",
    method: "POST",
    path: () => "/batch",
    hasParam: false,
    params: [],
    hasBody: true,
    success: conforms(Api.BatchProcessing)
  },
  {
    name: "POST /batch/estimate",
    method: "POST",
    path: () => "/batch/estimate",
    hasParam: false,
    params: [],
    hasBody: true,
    success: conforms(Api.BatchEstimate)
  },
  {
    name: "GET /transcripts/{video_id}/languages",
    method: "GET",
    path: (id) => `/transcripts/${id}/languages`,
    hasParam: true,
    params: ["include_youtube_default"],
    hasBody: false,
    success: conforms(Api.LanguagesResponse)
  }
]

// ---------------------------------------------------------------------------------------------
// Checks

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Fails (throws, for fast-check) unless the answer is a valid one of the endpoint. */
const checkAnswer = (label: string, response: TestResponse, success?: Endpoint["success"]) => {
  const context = `${label}\n→ ${response.status} ${response.text.slice(0, 500)}`
  expect(response.status, context).toBeLessThan(500)
  if (response.status >= 200 && response.status < 300) {
    const type = response.headers.get("content-type") ?? ""
    if (success !== undefined && type.includes("application/json")) {
      expect(success(response.json), context).toBeUndefined()
    }
    return
  }
  const body = response.json
  expect(isObject(body), context).toBe(true)
  if (!isObject(body)) return
  // `request_id` is stamped on by the outermost layer (and by the socket's own answers such as 431).
  expect(
    Object.keys(body)
      .filter((key) => key !== "request_id")
      .sort(),
    context
  ).toEqual(["details", "error", "message"])
  if ("request_id" in body) expect(typeof body.request_id, context).toBe("string")
  expect(Errors.allErrorCodes, context).toContain(body.error)
  expect(typeof body.message, context).toBe("string")
  expect(isObject(body.details), context).toBe(true)
  expect(Errors.statusOf(body.error as Errors.ErrorCode), context).toBe(response.status)
}

/** Business accounts (100 requests a second each), each owning a transcript and a job, to rotate through. */
const accounts = (server: TestServerService, count: number) =>
  Effect.forEach(Array.from({ length: count }), () =>
    Effect.gen(function* () {
      const { key } = yield* server.newAccount({ plan: "business", credits: 10_000, createdAt: oldAccount })
      const served = yield* transcribe(server, key, { video: videos.manualAndAuto })
      return { key, jobId: (served.json as { job_id: string }).job_id }
    })
  )

/** Accounts a property rotates through: fewer than 100 requests each, within one bucket's burst. */
const accountsPerProperty = Math.ceil(runs / 60)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "120 seconds", excludeTestServices: true })(
  "fuzzing every endpoint",
  (it) => {
    describe("random query strings, path segments and bodies", () => {
      for (const endpoint of endpoints) {
        it.effect(
          `${endpoint.name}: never 5xx, always the error body`,
          () =>
            Effect.gen(function* () {
              const server = yield* TestServer
              const owners = yield* accounts(server, accountsPerProperty)
              let turn = 0
              const param = endpoint.hasParam
                ? fc.oneof(
                    { weight: 1, arbitrary: fc.constantFrom(...owners.map((owner) => owner.jobId)) },
                    { weight: 4, arbitrary: pathSegment(false) }
                  )
                : fc.constant("")
              const body = endpoint.hasBody
                ? bodyText.map((text): string | undefined => text)
                : fc.constant(undefined)
              yield* Effect.promise(() =>
                fc.assert(
                  fc.asyncProperty(param, queryString(endpoint.params), body, async (segment, query, raw) => {
                    const owner = owners[turn++ % owners.length]
                    const path = api(endpoint.path(segment)) + (query.length > 0 ? `?${query}` : "")
                    const response = await Effect.runPromise(
                      server.request(endpoint.method, path, { key: owner?.key, raw })
                    )
                    checkAnswer(
                      `${endpoint.method} ${path}\n${raw?.slice(0, 300) ?? ""}`,
                      response,
                      endpoint.success
                    )
                  }),
                  { numRuns: runs }
                )
              )
            }),
          propertyTimeout
        )
      }
    })

    describe("cases fuzzing found", () => {
      it.effect("a NUL character in a video id or a search answers 4xx with the error body, never 500", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const [owner] = yield* accounts(server, 1)
          for (const [method, path] of [
            ["GET", "/transcripts/%00"],
            ["GET", "/transcripts/a%00b?format=srt"],
            ["DELETE", "/transcripts/%00"],
            ["GET", "/transcripts/%00/languages"],
            ["GET", "/transcripts?search=%00"],
            ["GET", "/transcripts?search=coordination%00"]
          ] as const) {
            checkAnswer(`${method} ${path}`, yield* server.request(method, api(path), { key: owner?.key }))
          }
        })
      )

      it.effect(
        "a NUL in a filename, a webhook_url or a query, a huge page or an extreme date answers 400, never 500",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const [owner] = yield* accounts(server, 1)
            const upload = {
              filename: "a\u0000.wav",
              mime_type: "audio/wav",
              size_bytes: 10,
              duration_sec: 1
            }
            for (const [method, path, json] of [
              ["POST", "/uploads", upload],
              [
                "POST",
                "/transcribe",
                { video: videos.noCaptions, webhook_url: "https://example.com/\u0000" }
              ],
              [
                "POST",
                "/batch",
                { video_ids: [videos.noCaptions], webhook_url: "https://example.com/\u0000" }
              ],
              ["GET", "/transcripts?page=9007199254740991", undefined],
              ["GET", "/jobs?page=9007199254740991", undefined],
              ["GET", "/transcripts?date_from=-271821-04-20T00:00:00Z", undefined],
              ["GET", "/transcripts?language=%00", undefined]
            ] as const) {
              const response = yield* server.request(method, api(path), { key: owner?.key, json })
              checkAnswer(`${method} ${path}`, response)
              expect(response.status, response.text).toBe(400)
            }
          })
      )

      it.effect(
        "a request head over Node's 16 KiB limit answers 431 request_header_too_large, with the error body",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const [owner] = yield* accounts(server, 1)
            const path = api(`/transcripts?search=${"a".repeat(20_000)}`)
            const response = yield* server.get(path, { key: owner?.key })
            checkAnswer(`GET ${path.slice(0, 60)}...`, response)
            expect(response.json).toMatchObject({ error: "request_header_too_large" })
          })
      )
    })

    describe("other methods and credentials", () => {
      it.effect(
        "any method on any path: never 5xx, always the error body",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const owners = yield* accounts(server, accountsPerProperty)
            let turn = 0
            const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
            const endpoint = fc.constantFrom(...endpoints)
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(
                  method,
                  endpoint,
                  pathSegment(true),
                  fc.option(bodyText),
                  async (m, e, segment, raw) => {
                    const owner = owners[turn++ % owners.length]
                    const path = api(e.path(segment))
                    const response = await Effect.runPromise(
                      server.request(m, path, {
                        key: owner?.key,
                        raw: m === "GET" ? undefined : (raw ?? undefined)
                      })
                    )
                    checkAnswer(`${m} ${path}`, response)
                  }
                ),
                { numRuns: runs }
              )
            )
          }),
        propertyTimeout
      )

      it.effect(
        "any Authorization header: 401 invalid_api_key with the error body, or the answer",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const header = fc.oneof(
              fc.string({ maxLength: 80 }).map((s) => `Bearer ${s}`),
              fc.string({ maxLength: 80 }),
              fc.constantFrom(
                "Bearer",
                "Bearer ",
                "bearer vbt_x",
                "Basic dXNlcjpwYXNz",
                `Bearer vbt_${"A".repeat(43)}`
              )
            )
            const endpoint = fc.constantFrom(...endpoints.filter((e) => e.name !== "GET /ping"))
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(header, endpoint, async (authorization, e) => {
                  const headers = /^[\t\x20-\x7e]*$/.test(authorization) ? { authorization } : {}
                  const path = api(e.path(videos.manualAndAuto))
                  const response = await Effect.runPromise(
                    server.request(e.method, path, {
                      headers,
                      raw: e.method === "POST" ? "{}" : undefined
                    })
                  )
                  checkAnswer(`${e.method} ${path} with ${JSON.stringify(authorization)}`, response)
                  expect(response.status).toBe(401)
                }),
                { numRuns: runs }
              )
            )
          }),
        propertyTimeout
      )
    })
  }
)
