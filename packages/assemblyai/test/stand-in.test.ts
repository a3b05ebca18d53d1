import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readWav, type StandIn, standIn, startStandIn, transcodingError, wav } from "../src/testing.js"

const call = (
  server: StandIn,
  method: string,
  path: string,
  body?: unknown,
  key: string | null = server.apiKey
) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(key === null ? {} : { authorization: key }),
        ...(body instanceof Uint8Array ? { "content-type": "application/octet-stream" } : {})
      },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) })
    })
    return {
      status: response.status,
      headers: response.headers,
      json: (await response.json()) as Record<string, unknown>
    }
  })

const minimal = (audioUrl: string) => ({ audio_url: audioUrl, disfluencies: true })

describe("WAV files for tests", () => {
  it("writes a valid 16 kHz mono 16-bit file and reads its duration back", () => {
    const bytes = wav({ durationMs: 2500, noise: true })
    expect(bytes.length).toBe(44 + 2500 * 16 * 2)
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe("RIFF")
    expect(readWav(bytes)).toEqual({ channels: 1, sampleRate: 16000, durationMs: 2500 })
    expect(readWav(wav({ durationMs: 1000, sampleRate: 8000, channels: 2 }))).toEqual({
      channels: 2,
      sampleRate: 8000,
      durationMs: 1000
    })
    expect(
      readWav(new TextEncoder().encode("RIFF but not really a wave file at all........"))
    ).toBeUndefined()
    expect(readWav(new Uint8Array(10))).toBeUndefined()
  })
})

// Live clock: the stand-in is a real HTTP server on a local port.
describe("the AssemblyAI stand-in", () => {
  it.live("refuses a request without the key, or with a Bearer key", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* standIn()
        expect((yield* call(server, "GET", "/v2/transcript/x", undefined, null)).status).toBe(401)
        const bearer = yield* call(server, "GET", "/v2/transcript/x", undefined, `Bearer ${server.apiKey}`)
        expect(bearer.status).toBe(401)
        expect(bearer.json.error).toContain("Authentication error")
        expect((yield* call(server, "GET", "/v2/transcript/x")).status).toBe(404)
      })
    )
  )

  it.live("goes queued → processing → completed, with words spread over the WAV's duration", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* standIn({ recognise: () => "one two three four", pollsUntilDone: 2 })
        const upload = yield* call(server, "POST", "/v2/upload", wav({ durationMs: 2000 }))
        const created = yield* call(server, "POST", "/v2/transcript", minimal(String(upload.json.upload_url)))
        expect(created.json.status).toBe("queued")
        const id = String(created.json.id)
        const statuses: Array<unknown> = []
        for (let i = 0; i < 3; i++)
          statuses.push((yield* call(server, "GET", `/v2/transcript/${id}`)).json.status)
        expect(statuses).toEqual(["queued", "processing", "completed"])
        const done = (yield* call(server, "GET", `/v2/transcript/${id}`)).json
        expect(done.text).toBe("one two three four")
        expect(done.audio_duration).toBe(2)
        expect(done.words).toEqual([
          { text: "one", start: 0, end: 450, confidence: 0.95, speaker: null, channel: null },
          { text: "two", start: 500, end: 950, confidence: 0.95, speaker: null, channel: null },
          { text: "three", start: 1000, end: 1450, confidence: 0.95, speaker: null, channel: null },
          { text: "four", start: 1500, end: 1950, confidence: 0.95, speaker: null, channel: null }
        ])
        const sentences = yield* call(server, "GET", `/v2/transcript/${id}/sentences`)
        expect((sentences.json.sentences as Array<{ text: string }>).map((s) => s.text)).toEqual([
          "one two three four"
        ])
        const deleted = yield* call(server, "DELETE", `/v2/transcript/${id}`)
        expect(deleted.json.text).toBe("Deleted by user.")
        expect(server.deleted).toEqual([id])
      })
    )
  )

  it.live("ends bytes that are not WAV in error, and unknown audio URLs too", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* standIn({ pollsUntilDone: 0 })
        const upload = yield* call(
          server,
          "POST",
          "/v2/upload",
          new TextEncoder().encode("<html>nope</html>")
        )
        const created = yield* call(server, "POST", "/v2/transcript", minimal(String(upload.json.upload_url)))
        const done = yield* call(server, "GET", `/v2/transcript/${String(created.json.id)}`)
        expect(done.json).toMatchObject({ status: "error", error: transcodingError })
        const missing = yield* call(
          server,
          "POST",
          "/v2/transcript",
          minimal("https://nowhere.example/a.mp3")
        )
        const failed = yield* call(server, "GET", `/v2/transcript/${String(missing.json.id)}`)
        expect(failed.json.status).toBe("error")
        expect(String(failed.json.error)).toContain("Download error")
      })
    )
  )

  it.live("refuses a body with a field AssemblyAI does not know", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* standIn()
        const refused = yield* call(server, "POST", "/v2/transcript", { ...minimal("x"), fillerWords: true })
        expect(refused.status).toBe(400)
        expect(String(refused.json.error)).toContain("fillerWords")
        expect(server.transcriptRequests).toEqual([])
      })
    )
  )

  it.live("fills what the body asks for: speakers, names, channels, intelligence, translation", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* standIn({ recognise: () => "Hi Ada. Hello Grace. Bye now.", pollsUntilDone: 0 })
        const upload = yield* call(server, "POST", "/v2/upload", wav({ durationMs: 3000, channels: 2 }))
        const created = yield* call(server, "POST", "/v2/transcript", {
          ...minimal(String(upload.json.upload_url)),
          speaker_labels: true,
          speakers_expected: 2,
          summarization: true,
          iab_categories: true,
          content_safety: true,
          sentiment_analysis: true,
          entity_detection: true,
          auto_highlights: true,
          auto_chapters: true,
          speech_understanding: {
            request: {
              translation: { target_languages: ["fr"] },
              speaker_identification: { speaker_type: "name", known_values: ["Ada", "Grace"] }
            }
          }
        })
        const done = (yield* call(server, "GET", `/v2/transcript/${String(created.json.id)}`)).json
        expect((done.utterances as Array<{ speaker: string }>).map((u) => u.speaker)).toEqual([
          "Ada",
          "Grace",
          "Ada"
        ])
        for (const field of [
          "summary",
          "iab_categories_result",
          "content_safety_labels",
          "sentiment_analysis_results",
          "entities",
          "auto_highlights_result",
          "chapters"
        ]) {
          expect(done[field], field).not.toBeNull()
        }
        expect(done.translated_texts).toEqual({ fr: "[fr] Hi Ada. Hello Grace. Bye now." })
        expect(done.speech_understanding).toMatchObject({
          response: { speaker_identification: { mapping: { A: "Ada", B: "Grace" } } }
        })
      })
    )
  )

  it.live("injects faults in order, with Retry-After, on one route", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* standIn()
        server.inject({ kind: "status", status: 429, retryAfterSeconds: 7, times: 2, on: "get" })
        const first = yield* call(server, "GET", "/v2/transcript/x")
        expect([first.status, first.headers.get("retry-after")]).toEqual([429, "7"])
        expect((yield* call(server, "POST", "/v2/upload", new Uint8Array(4))).status).toBe(200)
        expect((yield* call(server, "GET", "/v2/transcript/x")).status).toBe(429)
        expect((yield* call(server, "GET", "/v2/transcript/x")).status).toBe(404)
        expect(server.requests.map((r) => [r.route, r.status])).toEqual([
          ["get", 429],
          ["upload", 200],
          ["get", 429],
          ["get", 404]
        ])
      })
    )
  )

  it("starts and closes outside Effect too", async () => {
    const server = await startStandIn({ apiKey: "k" })
    const response = await fetch(`${server.url}/v2/upload`, {
      method: "POST",
      headers: { authorization: "k" },
      body: new Uint8Array([1, 2, 3])
    })
    expect(((await response.json()) as { upload_url: string }).upload_url).toContain(server.url)
    await server.close()
  })
})
