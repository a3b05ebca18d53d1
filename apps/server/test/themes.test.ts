/**
 * Themes over real HTTP on the demo catalogue: GET is free and locked until POST unlocks for exactly
 * 1 credit, once (repeats, GET and concurrent POSTs are free); 402 when short; 404 for what the
 * account does not own; 0 credits and empty themes for a transcript too short to analyse; a failed
 * detection is refunded (a refund entry in the ledger, balance = ledger sum) and the POST that saw
 * it answers 503 `themes_unavailable`; a detection that
 * outruns the wait answers 202 processing and completes later. Every mention and moment points at
 * a segment and time of the transcript the answer names.
 *
 * The failing engine is a test layer that always answers `ThemesEngineError` ("scripted failure");
 * the gated engine runs the local engine once the test opens its gate; the LLM engine runs against
 * the local stand-in of the Responses API (`@verbatim/llm/testing`), scripted to answer 500 first.
 */
import { randomUUID } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import {
  type Account,
  Ledger,
  misplacedAnchors,
  ThemesEngine,
  ThemesEngineError,
  Transcripts
} from "@verbatim/core"
import { Api, Ids, Language, Transcript } from "@verbatim/domain"
import { AiThemes } from "@verbatim/llm"
import { layerWithStandIn, serverError, themeing } from "@verbatim/llm/testing"
import { testThemes, themesEngineFor } from "@verbatim/runtime"
import { eventually } from "@verbatim/runtime/testing"
import { DateTime, Deferred, Effect, Layer, Option } from "effect"
import { TestServer, TestServerLive, type TestServerService, testServerOn } from "./server.js"
import { api, balanceOf, decode, expectError, oldAccount, transcribe, videos } from "./support.js"

const themesOf = (video: string, query = "") => api(`/transcripts/${video}/themes${query}`)

/** The account's ledger: the entries about themes, and whether the balance is their sum. */
const books = (account: Account) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const entries = yield* ledger.entries(account.id)
    const balance = yield* ledger.balance(account.id)
    expect(balance).toBe(entries.reduce((sum, e) => sum + e.amount, 0))
    return { balance, themes: entries.filter((e) => e.key.includes(":themes:")) }
  })

/** An account with `credits` after transcribing `video` (captions, 1 credit). */
const owning = (
  server: TestServerService,
  credits: number,
  video: string = videos.manualAndAuto,
  language?: string
) =>
  Effect.gen(function* () {
    const { account, key } = yield* server.newAccount({ plan: "business", credits, createdAt: oldAccount })
    const response = yield* transcribe(server, key, {
      video,
      ...(language === undefined ? {} : { language })
    })
    expect(response.status, response.text).toBe(200)
    return { account, key }
  })

/** Every anchor of a completed answer exists in the transcript it names. */
const expectAnchored = (server: TestServerService, key: string, body: Api.ThemesResponse, query = "") =>
  Effect.gen(function* () {
    const stored = yield* decode(
      Api.StoredTranscript,
      yield* server.get(api(`/transcripts/${body.video_id}${query}`), { key })
    )
    expect(stored.language).toBe(body.language)
    expect(misplacedAnchors(stored.segments, body)).toEqual([])
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("themes", (it) => {
  it.effect("GET is locked and free; POST charges 1 once; repeats and GET are free", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* owning(server, 3)
      const locked = yield* server.get(themesOf(videos.manualAndAuto), { key })
      expect(locked.status).toBe(200)
      expect(locked.json).toEqual({
        status: "locked",
        video_id: videos.manualAndAuto,
        language: "en",
        credits_required: 1
      })
      expect(yield* balanceOf(server, key)).toBe(2)

      const first = yield* server.post(themesOf(videos.manualAndAuto), { key })
      expect(first.status, first.text).toBe(200)
      const body = yield* decode(Api.ThemesResponse, first)
      expect(body).toMatchObject({
        status: "completed",
        video_id: videos.manualAndAuto,
        language: "en",
        credits_used: 1,
        credits_remaining: 1
      })
      expect(body.themes.length).toBeGreaterThan(0)
      expect(body.tldr.length).toBeGreaterThan(0)
      yield* expectAnchored(server, key, body)

      const again = yield* decode(
        Api.ThemesResponse,
        yield* server.post(themesOf(videos.manualAndAuto), { key })
      )
      expect(again).toEqual(new Api.ThemesResponse({ ...body, credits_used: 0, credits_remaining: 1 }))
      const read = yield* server.get(themesOf(videos.manualAndAuto), { key })
      expect(read.status).toBe(200)
      expect(yield* decode(Api.ThemesResponse, read)).toEqual(again)
      const { balance, themes } = yield* books(account)
      expect(balance).toBe(1)
      expect(themes.map((e) => [e.kind, e.amount])).toEqual([["charge", -1]])
    })
  )

  it.effect("charges concurrent POSTs for one transcript once", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* owning(server, 2)
      const responses = yield* Effect.all(
        Array.from({ length: 8 }, () => server.post(themesOf(videos.manualAndAuto), { key })),
        { concurrency: "unbounded" }
      )
      const bodies = yield* Effect.forEach(responses, (r) => decode(Api.ThemesResponse, r))
      expect(bodies.map((b) => b.credits_used).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 1])
      expect(new Set(bodies.map((b) => JSON.stringify(b.themes))).size).toBe(1)
      const { balance, themes } = yield* books(account)
      expect(balance).toBe(0)
      expect(themes).toHaveLength(1)
    })
  )

  it.effect("answers 402 when the balance is short, charging and unlocking nothing", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* owning(server, 1)
      expectError(yield* server.post(themesOf(videos.manualAndAuto), { key }), 402, "payment_required")
      const locked = yield* server.get(themesOf(videos.manualAndAuto), { key })
      expect(locked.json).toMatchObject({ status: "locked", credits_required: 1 })
      const { balance, themes } = yield* books(account)
      expect(balance).toBe(0)
      expect(themes).toEqual([])
    })
  )

  it.effect("answers 404 for a video the account owns nothing of, another account's included", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      yield* owning(server, 2)
      const { account, key } = yield* server.newAccount({
        plan: "business",
        credits: 5,
        createdAt: oldAccount
      })
      for (const video of [videos.manualAndAuto, videos.unknown]) {
        expectError(yield* server.post(themesOf(video), { key }), 404, "not_found")
        expectError(yield* server.get(themesOf(video), { key }), 404, "not_found")
      }
      const { balance } = yield* books(account)
      expect(balance).toBe(5)
    })
  )

  it.effect("unlocks the transcript the query names (language), each once", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* owning(server, 5, videos.multiLanguage, "en")
      expect((yield* transcribe(server, key, { video: videos.multiLanguage, language: "de" })).status).toBe(
        200
      )
      const german = yield* decode(
        Api.ThemesResponse,
        yield* server.post(themesOf(videos.multiLanguage, "?language=de"), { key })
      )
      expect(german).toMatchObject({ language: "de", credits_used: 1 })
      yield* expectAnchored(server, key, german, "?language=de")
      const english = yield* server.get(themesOf(videos.multiLanguage, "?language=en"), { key })
      expect(english.json).toMatchObject({ status: "locked", language: "en", credits_required: 1 })
      const unknownId = yield* server.get(themesOf(videos.multiLanguage, `?id=${randomUUID()}`), { key })
      expectError(unknownId, 404, "not_found")
      expectError(
        yield* server.get(themesOf(videos.multiLanguage, "?source=robot"), { key }),
        400,
        "invalid_request"
      )
      expect((yield* books(account)).balance).toBe(2)
    })
  )

  it.effect("gives a transcript under 50 words empty themes for 0 credits", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* server.newAccount({
        plan: "business",
        credits: 1,
        createdAt: oldAccount
      })
      const transcripts = yield* Transcripts
      const text = "Short words only here"
      yield* transcripts.store({
        id: Ids.TranscriptId.make(randomUUID()),
        accountId: account.id,
        videoId: videos.manualOnly,
        videoTitle: null,
        language: Language.LanguageCode.make("en"),
        sourceKind: "manual",
        status: "succeeded",
        wordCount: 4,
        segmentCount: 1,
        durationSeconds: 2,
        creditsUsed: 0,
        createdAt: yield* DateTime.now,
        channelId: null,
        text,
        segments: [new Transcript.Segment({ text, start: 0, end: 2_000 })],
        hasTimestamps: true,
        summary: null,
        mindMap: null,
        asrIntelligence: null
      })
      const locked = yield* server.get(themesOf(videos.manualOnly), { key })
      expect(locked.json).toMatchObject({ status: "locked", credits_required: 0 })
      const body = yield* decode(Api.ThemesResponse, yield* server.post(themesOf(videos.manualOnly), { key }))
      expect(body).toMatchObject({
        status: "completed",
        credits_used: 0,
        credits_remaining: 1,
        tldr: "",
        themes: [],
        moments: []
      })
      expect((yield* server.get(themesOf(videos.manualOnly), { key })).json).toMatchObject({
        status: "completed",
        themes: []
      })
      const { balance, themes } = yield* books(account)
      expect(balance).toBe(1)
      expect(themes).toEqual([])
    })
  )
})

/** An engine that always fails (the scripted fault of this suite). */
const failingEngine = Layer.succeed(ThemesEngine, {
  name: "failing",
  detect: () => Effect.fail(new ThemesEngineError({ engine: "failing", reason: "scripted failure" }))
})

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ themes: testThemes(failingEngine) }), {
  timeout: "60 seconds",
  excludeTestServices: true
})("themes when detection fails", (it) => {
  it.effect(
    "refunds the credit with a refund entry, answers 503 themes_unavailable, and shows the themes locked again",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { account, key } = yield* owning(server, 2)
        for (const round of [1, 2]) {
          const failed = yield* server.post(themesOf(videos.manualAndAuto), { key })
          // The engine failed, not the server: 503 with the error body, and no time to retry at.
          expectError(failed, 503, "themes_unavailable")
          expect(failed.json).toMatchObject({
            details: {
              video_id: videos.manualAndAuto,
              refunded: 1,
              reason: expect.stringContaining("scripted failure")
            }
          })
          expect(failed.headers.get("retry-after")).toBeNull()
          const locked = yield* server.get(themesOf(videos.manualAndAuto), { key })
          expect(locked.json).toMatchObject({ status: "locked", credits_required: 1 })
          const { balance, themes } = yield* books(account)
          expect(balance).toBe(1)
          expect(themes.map((e) => [e.kind, e.amount])).toHaveLength(round * 2)
          expect(themes.reduce((sum, e) => sum + e.amount, 0)).toBe(0)
        }
      })
  )
})

/** The local engine, held until the test opens the gate. */
const gate = Effect.runSync(Deferred.make<void>())
const gatedEngine = Layer.effect(
  ThemesEngine,
  Effect.gen(function* () {
    const local = yield* ThemesEngine
    return { name: "gated", detect: (input) => Effect.zipRight(Deferred.await(gate), local.detect(input)) }
  })
).pipe(Layer.provide(themesEngineFor("local")))

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ themes: testThemes(gatedEngine, { waitMs: 300 }) }), {
  timeout: "60 seconds",
  excludeTestServices: true
})("themes when detection outruns the wait", (it) => {
  it.effect("answers 202 processing (paid once), then GET completes once detection ends", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* owning(server, 3)
      const posted = yield* Effect.all(
        Array.from({ length: 3 }, () => server.post(themesOf(videos.manualAndAuto), { key })),
        { concurrency: "unbounded" }
      )
      for (const response of posted) {
        expect(response.status, response.text).toBe(202)
        expect(response.json).toEqual({
          status: "processing",
          video_id: videos.manualAndAuto,
          language: "en"
        })
      }
      const polled = yield* server.get(themesOf(videos.manualAndAuto), { key })
      expect(polled.status).toBe(202)
      expect((yield* books(account)).balance).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      const done = yield* eventually(
        "themes completed",
        Effect.map(server.get(themesOf(videos.manualAndAuto), { key }), (r) =>
          r.status === 200 ? Option.some(r) : Option.none()
        )
      )
      const body = yield* decode(Api.ThemesResponse, done)
      expect(body).toMatchObject({ status: "completed", credits_used: 0, credits_remaining: 1 })
      yield* expectAnchored(server, key, body)
      const { balance, themes } = yield* books(account)
      expect(balance).toBe(1)
      expect(themes).toHaveLength(1)
    })
  )
})

/** What the stand-in model answers: 500s while `failing`, else themes that fit the transcript. */
let failing = true
const llmEngine = AiThemes.layer.pipe(
  Layer.provide(
    layerWithStandIn({ respond: (request) => (failing ? serverError : themeing()(request)) }, { retries: 1 })
  )
)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ themes: testThemes(llmEngine) }), { timeout: "60 seconds", excludeTestServices: true })(
  "themes on the LLM engine (a local stand-in of the Responses API)",
  (it) => {
    it.effect("refunds while the model fails, then charges once for the themes it answers", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { account, key } = yield* owning(server, 2)
        expectError(yield* server.post(themesOf(videos.manualAndAuto), { key }), 503, "themes_unavailable")
        expect((yield* books(account)).balance).toBe(1)
        failing = false
        const body = yield* decode(
          Api.ThemesResponse,
          yield* server.post(themesOf(videos.manualAndAuto), { key })
        )
        expect(body).toMatchObject({ status: "completed", credits_used: 1, credits_remaining: 0 })
        expect(body.themes.length).toBe(1)
        yield* expectAnchored(server, key, body)
        const { balance, themes } = yield* books(account)
        expect(balance).toBe(0)
        expect(themes.map((e) => [e.kind, e.amount])).toEqual([
          ["charge", -1],
          ["refund", 1],
          ["charge", -1]
        ])
      })
    )
  }
)
