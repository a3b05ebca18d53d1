import { request as httpRequest } from "node:http"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"
import { api } from "./support.js"

const chunked = (url: string, method: string, headers: Record<string, string>, total: number) =>
  new Promise<string>((resolve) => {
    const req = httpRequest(url, { method, headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      let text = ""
      res.on("data", (c) => (text += c))
      res.on("end", () => resolve(`${res.statusCode} ${text}`))
      res.on("error", (e) => resolve(`res error ${e.message}`))
    })
    req.on("error", (e) => resolve(`req error ${e.message}`))
    let sent = 0
    const write = () => {
      while (sent < total) {
        sent += 16384
        if (!req.write("a".repeat(16384))) return req.once("drain", write)
      }
      req.end()
    }
    write()
  })

layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("repro", (it) => {
  it.effect("repro", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount()
      const show = (r: { status: number; text: string }) => console.log(r.status, r.text.slice(0, 300))
      show(yield* server.get(api("/transcripts?page=9007199254740991"), { key }))
      show(yield* server.get(api("/transcripts?date_from=-271821-04-20T00:00:00Z"), { key }))
      show(yield* server.get(api("/jobs?page=9007199254740991"), { key }))
      show(yield* server.post(api("/uploads"), { key, json: { filename: "a\u0000b", mime_type: "audio/wav", size_bytes: 10, duration_sec: 1 } }))
      show(yield* server.post(api("/transcribe"), { key, json: { video: "q3Lx8VbT2kA", webhook_url: "https://example.com/\u0000" } }))
      console.log(yield* Effect.promise(() => chunked(server.baseUrl + api("/transcribe"), "POST", { authorization: `Bearer ${key}`, "content-type": "application/json" }, 1_200_000)))
      const up = yield* server.post(api("/uploads"), { key, json: { filename: "a.wav", mime_type: "audio/wav", size_bytes: 1000, duration_sec: 1 } })
      show(up)
      const signed = (up.json as { signed_url: string }).signed_url
      console.log(yield* Effect.promise(() => chunked(signed, "PUT", { "content-type": "audio/wav" }, 200_000)))
    })
  )
})
