/**
 * Request bodies carrying `__proto__`, `constructor` or `prototype` keys, at the top and nested in
 * the objects the server reads (format, asr_options, ids), are answered like any other body
 * (never 5xx, the error body on refusal), and never change a prototype of this process.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"

const hostile = [
  '{"__proto__":{"polluted":true},"video":"Rt7mN0pWzYe","mode":"captions_only"}',
  '{"video":"Rt7mN0pWzYe","mode":"captions_only","format":{"__proto__":{"polluted":true},"timestamp":true}}',
  '{"video":"Pz8QeL1uWfH","asr_options":{"constructor":{"prototype":{"polluted":true}},"speakerLabels":true}}',
  '{"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true},"video":"Rt7mN0pWzYe"}',
  '{"ids":[{"__proto__":{"polluted":true}}]}'
]

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "prototype keys in bodies",
  (it) => {
    it.effect("are answered as any body, and pollute nothing", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount()
        for (const path of [
          "/api/v2/transcribe",
          "/api/v2/transcribe/estimate",
          "/api/v2/transcripts/bulk-delete"
        ]) {
          for (const raw of hostile) {
            const response = yield* server.post(path, { key, raw })
            expect(response.status, `${path} ${raw}`).toBeLessThan(500)
            if (response.status >= 400) {
              expect(Object.keys(response.json as object)).toEqual(["error", "message", "details"])
            }
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
        expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined()
      })
    )
  }
)
