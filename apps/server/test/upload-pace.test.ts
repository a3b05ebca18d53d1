/**
 * A signed PUT over real HTTP is bounded by its signed size at the minimum rate, not by node's
 * 300 s `requestTimeout` (which let a stalled body hold a connection for five minutes): a body that stalls answers 408
 * `request_timeout` with the error body saying so, and nothing is kept. The server runs with a tiny
 * pace so the test is quick; no time is measured.
 */
import { request } from "node:http"
import { expect, it, layer } from "@effect/vitest"
import { defaultUploadPace, longestPutMillis } from "@verbatim/core"
import { Api, Plan } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { makeNodeServer, requestTimeoutMs } from "../src/node-server.js"
import { TestServer, testServerOn } from "./server.js"
import { api, expectError } from "./support.js"

/** 1,000 bytes a second, at least 1.5 s: 3,000 bytes may take 3 s. */
const pace = { minBytesPerSecond: 1_000, floorMillis: 1_500 }
const size = 3_000

/** A PUT that sends `sent` bytes of the `size` it declares, then waits for the answer. */
const stalledPut = (url: string, sent: number) =>
  Effect.async<{ status: number; body: unknown; connection: string | undefined }>((resume) => {
    const put = request(url, {
      method: "PUT",
      headers: { "content-type": "audio/wav", "content-length": String(size) }
    })
    put.on("response", (response) => {
      let text = ""
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8")
      })
      response.on("end", () => {
        put.destroy()
        resume(
          Effect.succeed({
            status: response.statusCode ?? 0,
            body: JSON.parse(text) as unknown,
            connection: response.headers.connection
          })
        )
      })
    })
    put.on("error", (error) => resume(Effect.die(error)))
    put.write(new Uint8Array(sent))
    return Effect.sync(() => put.destroy())
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ uploadPace: pace }), { timeout: "60 seconds", excludeTestServices: true })(
  "signed PUTs bounded by their size",
  (it) => {
    it.effect(
      "a body slower than its size at the minimum rate answers 408 with the error body, keeping nothing",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const created = yield* server.post(api("/uploads"), {
            key,
            json: { filename: "slow.wav", mime_type: "audio/wav", size_bytes: size, duration_sec: 1 }
          })
          expect(created.status, created.text).toBe(200)
          const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(created.json)

          const answer = yield* stalledPut(upload.signed_url, 100)
          expect(answer.status).toBe(408)
          // Cut at the end of the first window (1.5 s) that brought less than the rate's worth,
          // before its deadline (3 s).
          expect(answer.body).toEqual({
            error: "request_timeout",
            message: expect.stringContaining(
              "brought 100 bytes in 1500 ms, under the minimum of 1000 bytes per second"
            ),
            details: { refusal: "too_slow", window_ms: 1_500, min_bytes_per_second: 1_000, size_bytes: 3_000 }
          })
          // Nothing kept: the upload cannot be completed, and a PUT in time is still taken.
          expectError(
            yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key }),
            400,
            "invalid_request"
          )
          const whole = yield* Effect.promise(() =>
            fetch(upload.signed_url, {
              method: "PUT",
              headers: { "content-type": "audio/wav" },
              body: new Uint8Array(size)
            })
          )
          expect(whole.status).toBe(200)
          expect((yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })).status).toBe(200)
        })
    )
  }
)

it("node's requestTimeout outlasts the longest signed PUT, instead of its 300 s default", () => {
  const server = makeNodeServer()
  expect(server.requestTimeout).toBe(requestTimeoutMs())
  expect(server.requestTimeout).toBeGreaterThan(longestPutMillis(defaultUploadPace))
  // The largest upload at the default minimum rate takes more than node's default of 300 s.
  expect(longestPutMillis(defaultUploadPace)).toBe(
    Math.ceil((Plan.maxUploadSizeBytes * 1000) / defaultUploadPace.minBytesPerSecond)
  )
  expect(server.requestTimeout).toBeGreaterThan(300_000)
  expect(makeNodeServer({ uploadPace: pace }).requestTimeout).toBeGreaterThan(longestPutMillis(pace))
})
