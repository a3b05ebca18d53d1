/**
 * The input bounds every entry point shares, over real HTTP: a NUL character in any string of a
 * body, a query or an OAuth form is 400 naming the field (PostgreSQL text cannot store it), pages
 * and dates outside what the database holds are 400 naming the field, and a chunked body over a
 * limit (the JSON body limit, a signed upload's size) is answered 413 with the error body, as a
 * declared one is, rather than a reset connection.
 */
import { request as httpRequest } from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { paramFieldsRead } from "@verbatim/api"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"
import { api, expectError, expectInvalid, videos } from "./support.js"

interface Answer {
  readonly status: number
  readonly json: unknown
}

/**
 * Sends `total` bytes of `fill` (the first bytes from `prefix`) with `Transfer-Encoding: chunked`,
 * 16 KiB a chunk; the answer, or how the connection ended without one.
 */
const sendChunked = (
  url: string,
  method: string,
  headers: Record<string, string>,
  body: { readonly prefix?: string; readonly total: number }
) =>
  Effect.promise(
    () =>
      new Promise<Answer | string>((resolve) => {
        const req = httpRequest(url, { method, headers, agent: false }, (response) => {
          let text = ""
          response.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8")
          })
          response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }))
          response.on("error", (error) => resolve(`response failed: ${error.message}`))
        })
        req.on("error", (error) => resolve(`request failed: ${error.message}`))
        const whole = Buffer.alloc(body.total, "a")
        if (body.prefix !== undefined) whole.write(body.prefix)
        let sent = 0
        const write = () => {
          while (sent < whole.length) {
            const chunk = whole.subarray(sent, sent + 16_384)
            sent += chunk.length
            if (!req.write(chunk)) return void req.once("drain", write)
          }
          req.end()
        }
        write()
      })
  )

/** The work counter of query and form parsing: fields decoded so far in this process. */
const fieldsRead = Effect.promise(async () =>
  (await paramFieldsRead.get()).values.reduce((sum, v) => sum + v.value, 0)
)

const isAnswer = (answer: Answer | string): answer is Answer => typeof answer !== "string"

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })("input bounds", (it) => {
  describe("query strings and forms are bounded before any field is decoded", () => {
    it.effect(
      "a 100 KB repeated-field form on /oauth/revoke and /oauth/token, and a 15 KB query, are 4xx without decoding them",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const form = { "content-type": "application/x-www-form-urlencoded" }
          const before = yield* fieldsRead
          // Over the form body limit (16 KiB): 413 before the form is read.
          for (const [path, raw] of [
            ["/oauth/revoke", "x&".repeat(50_000)],
            ["/oauth/token", "refresh_token=a&".repeat(6_250)]
          ] as const) {
            const answer = yield* server.post(path, { raw, headers: form })
            expect(answer.status, `${path} ${answer.text}`).toBe(413)
          }
          // Within it, but past 1,000 fields: 400 invalid_request, no field decoded.
          for (const path of ["/oauth/revoke", "/oauth/token"]) {
            const answer = yield* server.post(path, { raw: "x&".repeat(7_000), headers: form })
            expect(answer.status, answer.text).toBe(400)
            expect(answer.json).toMatchObject({
              error: "invalid_request",
              error_description: expect.stringContaining("more than 1000 fields")
            })
          }
          const query = "x&".repeat(7_500)
          const page = yield* server.get(`/oauth/authorize?${query}`)
          expect(page.status).toBe(400)
          expect(page.text).toContain("more than 1000 fields")
          for (const path of [api(`/ping?${query}`), api(`/jobs?%00&${query}`)]) {
            const answer = yield* server.get(path)
            expectError(answer, 400, "invalid_request")
            expect(answer.json).toMatchObject({ details: { max_fields: 1000 } })
          }
          expect((yield* fieldsRead) - before).toBe(0)
          // The bound itself is read, field by field (the counter counts the work).
          const atBound = yield* server.get(api(`/ping?${"x&".repeat(1000)}`))
          expect(atBound.status, atBound.text).toBe(200)
          expect((yield* fieldsRead) - before).toBe(1000)
        })
    )
  })

  describe("one string rule: NUL is refused wherever a caller sends a string", () => {
    it.effect(
      "a NUL in any body field, nested or a key, is 400 invalid_request naming it; nothing is stored",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 100 })
          const upload = { filename: "talk.wav", mime_type: "audio/wav", size_bytes: 1000, duration_sec: 60 }
          const cases: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string | number>]> = [
            ["/uploads", { ...upload, filename: "a\u0000b.wav" }, ["filename"]],
            ["/uploads", { ...upload, mime_type: "audio/wav\u0000" }, ["mime_type"]],
            [
              "/transcribe",
              { video: videos.manualAndAuto, webhook_url: "https://example.com/\u0000" },
              ["webhook_url"]
            ],
            [
              "/transcribe",
              { video: videos.noCaptions, asr_options: { key_terms: ["ok", "bad\u0000"] } },
              ["asr_options", "key_terms", 1]
            ],
            [
              "/batch",
              { video_ids: [videos.manualAndAuto], webhook_url: "https://example.com/h\u0000ok" },
              ["webhook_url"]
            ],
            ["/batch", { video_ids: [videos.manualAndAuto, `x\u0000`] }, ["video_ids", 1]],
            ["/transcribe/estimate", { video: videos.manualAndAuto, "bad\u0000key": 1 }, ["bad\u0000key"]]
          ]
          for (const [path, json, field] of cases) {
            expectInvalid(yield* server.post(api(path), { key, json }), field)
          }
          // No upload, job or batch was created by any of them.
          const jobs = yield* server.get(api("/jobs"), { key })
          expect(jobs.json).toMatchObject({ count: 0 })
        })
    )

    it.effect(
      "an unpaired surrogate in video_ids or asr_options.keyTerms is 400 naming the field; nothing is stored",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 100 })
          const cases: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string | number>]> = [
            ["/batch", { video_ids: ["\ud800"], mode: "captions_only" }, ["video_ids", 0]],
            [
              "/batch",
              { video_ids: [videos.noCaptions], asr_options: { keyTerms: ["a\ud800"] } },
              ["asr_options", "keyTerms", 0]
            ],
            [
              "/transcribe",
              { video: videos.noCaptions, asr_options: { keyTerms: ["ok", "\udc00b"] } },
              ["asr_options", "keyTerms", 1]
            ]
          ]
          for (const [path, json, field] of cases) {
            const answer = yield* server.post(api(path), { key, json })
            expectInvalid(answer, field)
            expect(answer.text).toContain("unpaired UTF-16 surrogate")
          }
          const jobs = yield* server.get(api("/jobs"), { key })
          expect(jobs.json).toMatchObject({ count: 0 })
          // A surrogate pair (an emoji, escaped or not) is text.
          const pair = yield* server.post(api("/transcribe/estimate"), {
            key,
            raw: '{"video":"' + videos.manualAndAuto + '","asr_options":{"keyTerms":["\\ud83d\\ude00 ok"]}}'
          })
          expect(pair.status, pair.text).toBe(200)
        })
    )

    it.effect("a NUL in any query parameter is 400 invalid_request naming it, on every list", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        for (const [path, field] of [
          ["/transcripts?search=coordination%00", "search"],
          ["/transcripts?language=en%00", "language"],
          ["/jobs?status=%00completed", "status"],
          ["/playlists/history?limit=1%00", "limit"],
          [`/transcripts/${videos.manualAndAuto}?format=srt%00`, "format"],
          ["/jobs?other%00=1", "other\u0000"]
        ] as const) {
          expectInvalid(yield* server.get(api(path), { key }), [field])
        }
        // A repeated parameter names its position.
        expectInvalid(yield* server.get(api("/jobs?status=completed&status=%00"), { key }), ["status", 1])
      })
    )

    it.effect("OAuth registration and forms refuse NUL with 400, naming the field", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const redirect = "http://localhost:8976/callback"
        for (const [json, field] of [
          [{ client_name: "Bad\u0000Name", redirect_uris: [redirect] }, "client_name"],
          [{ client_name: "Fine", redirect_uris: [redirect, `${redirect}\u0000`] }, "redirect_uris.1"]
        ] as const) {
          const response = yield* server.post("/oauth/register", { json })
          expect(response.status, response.text).toBe(400)
          expect(response.json).toMatchObject({ error: "invalid_client_metadata" })
          expect((response.json as { error_description: string }).error_description).toMatch(
            new RegExp(`^${field.replace(".", "\\.")}(: | must )`)
          )
        }
        const token = yield* server.post("/oauth/token", {
          raw: "grant_type=authorization_code&code=a%00b&client_id=x",
          headers: { "content-type": "application/x-www-form-urlencoded" }
        })
        expect(token.status, token.text).toBe(400)
        expect(token.json).toMatchObject({
          error: "invalid_request",
          error_description: expect.stringMatching(/^code must not contain the NUL character/)
        })
        const page = yield* server.get("/oauth/authorize?client_id=%00&response_type=code")
        expect(page.status).toBe(400)
        expect(page.text).toContain("client_id must not contain the NUL character")
        // A clean registration still works.
        const fine = yield* server.post("/oauth/register", {
          json: { client_name: "Fine", redirect_uris: [redirect] }
        })
        expect(fine.status, fine.text).toBe(201)
      })
    )
  })

  describe("numbers and dates within what the database holds", () => {
    it.effect("a page past 10,000,000 is 400 naming page; the largest page is an empty page", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        for (const list of ["/transcripts", "/jobs"]) {
          for (const page of ["9007199254740991", "10000001", "1e300"]) {
            expectInvalid(yield* server.get(api(`${list}?page=${page}`), { key }), ["page"])
          }
          const last = yield* server.get(api(`${list}?page=10000000&limit=100`), { key })
          expect(last.status, last.text).toBe(200)
          expect(last.json).toMatchObject({ count: 0, pagination: { page: 10_000_000, limit: 100 } })
        }
      })
    )

    it.effect("a date outside the years 1 to 9999 is 400 naming it; the bounds themselves are served", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        for (const [query, field] of [
          ["date_from=-271821-04-20T00:00:00Z", "date_from"],
          ["date_to=%2B275760-09-13T00:00:00Z", "date_to"],
          ["date_from=0000-12-31T23:59:59Z", "date_from"],
          ["date_to=%2B010000-01-01T00:00:00Z", "date_to"]
        ] as const) {
          expectInvalid(yield* server.get(api(`/transcripts?${query}`), { key }), [field])
        }
        const bounds = yield* server.get(
          api("/transcripts?date_from=0001-01-01T00:00:00Z&date_to=9999-12-31T23:59:59.999Z"),
          { key }
        )
        expect(bounds.status, bounds.text).toBe(200)
      })
    )
  })

  describe("chunked bodies over a limit answer 413 with the error body", () => {
    it.effect(
      "a 1.2 MB chunked POST /transcribe is 413 request_too_large; a small chunked one is served",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
          const url = `${server.baseUrl}${api("/transcribe")}`
          const over = yield* sendChunked(url, "POST", headers, { total: 1_200_000 })
          expect(over).toEqual({
            status: 413,
            json: {
              error: "request_too_large",
              message: "The request body is larger than 1048576 bytes",
              details: { max_body_bytes: 1048576 }
            }
          })
          const text = JSON.stringify({ video: videos.manualAndAuto })
          const small = yield* sendChunked(url, "POST", headers, { prefix: text, total: text.length })
          expect(isAnswer(small) && small.status).toBe(200)
          expect(small).toMatchObject({ json: { status: "completed" } })
          const nul = JSON.stringify({ video: `${videos.manualAndAuto}\u0000` })
          const refused = yield* sendChunked(url, "POST", headers, { prefix: nul, total: nul.length })
          expect(refused).toMatchObject({ status: 400, json: { error: "invalid_request" } })
          // The server goes on answering.
          expect((yield* server.get(api("/ping"))).status).toBe(200)
        })
    )

    it.effect(
      "the MCP transport and OAuth registration, which read their own bodies, answer 413 the same way",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const tooLarge = (limit: number) => ({
            status: 413,
            json: {
              error: "request_too_large",
              message: expect.any(String),
              details: { max_body_bytes: limit }
            }
          })
          const json = { "content-type": "application/json" }
          // Registration's own limit is 16 KiB (`registrationBodyBytes`), answered the same way.
          for (const [path, headers, limit] of [
            [
              api("/gpt/mcp"),
              { ...json, accept: "application/json, text/event-stream", authorization: `Bearer ${key}` },
              1048576
            ],
            ["/oauth/register", json, 16384]
          ] as const) {
            const url = `${server.baseUrl}${path}`
            expect(yield* sendChunked(url, "POST", headers, { total: 1_200_000 }), path).toMatchObject(
              tooLarge(limit)
            )
            const declared = yield* server.post(path, { raw: "x".repeat(1_100_000), headers })
            expect({ status: declared.status, json: declared.json }, path).toMatchObject(tooLarge(limit))
          }
        })
    )

    it.effect("the MCP transport bounds nesting as every route does: deeper than 64 levels is 400", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        const headers = {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${key}`
        }
        const call = (depth: number) =>
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "get_credits", arguments: {} }
          }).replace('"arguments":{}', `"arguments":{"x":${"[".repeat(depth)}${"]".repeat(depth)}}`)
        // 3 levels of the message itself: 61 more is the deepest accepted, 62 more is refused.
        const refused = yield* server.post(api("/gpt/mcp"), { raw: call(62), headers })
        expect({ status: refused.status, json: refused.json }).toMatchObject({
          status: 400,
          json: { error: "invalid_request", details: { max_depth: 64 } }
        })
        const accepted = yield* server.post(api("/gpt/mcp"), { raw: call(61), headers })
        expect(accepted.status).toBe(200)
        expect(accepted.text).not.toContain("max_depth")
      })
    )

    it.effect(
      "a chunked PUT past the signed size is 413 with the error body; the right bytes are then stored",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const created = yield* server.post(api("/uploads"), {
            key,
            json: { filename: "a.wav", mime_type: "audio/wav", size_bytes: 1000, duration_sec: 1 }
          })
          const { signed_url, upload_id } = created.json as { signed_url: string; upload_id: string }
          const headers = { "content-type": "audio/wav" }
          const over = yield* sendChunked(signed_url, "PUT", headers, { total: 200_000 })
          expect(over).toMatchObject({
            status: 413,
            json: { error: "request_too_large", message: expect.stringContaining("1000 bytes"), details: {} }
          })
          const declared = yield* sendChunked(
            signed_url,
            "PUT",
            { ...headers, "content-length": "1001" },
            { total: 1001 }
          )
          expect(declared).toMatchObject({ status: 413, json: { error: "request_too_large" } })
          // Nothing of it was kept: completing finds no file.
          expectError(
            yield* server.post(api(`/uploads/${upload_id}/complete`), { key }),
            400,
            "invalid_request"
          )
          const exact = yield* sendChunked(signed_url, "PUT", headers, { total: 1000 })
          expect(exact).toMatchObject({ status: 200, json: { status: "stored" } })
        })
    )
  })
})
