/**
 * POST /api/v2/transcripts/{video_id}/translate over real HTTP on the demo catalogue, the AI engine
 * pointed at the local stand-in Responses API (`@verbatim/llm/testing`, translating as
 * `[<lang>] text`): exact charges (1 credit per 2,500 characters of the source), once; concurrent
 * requests for the same translation charged once; a failed translation not charged; the second
 * request free; the translation stored as an owned transcript on the source's times; 400, 402, 404,
 * 503 with the API's error body. With Apertium installed (`scripts/install-translation.sh`, which CI
 * runs), the embedded default's engine over HTTP too.
 */
import { execFileSync } from "node:child_process"
import { describe, expect, layer } from "@effect/vitest"
import { ApertiumTranslator, defaultSettings, parseModes } from "@verbatim/apertium"
import { type Account, Ledger, Transcripts } from "@verbatim/core"
import { Api, type Ids, Pricing, Transcript } from "@verbatim/domain"
import { AiTranslator } from "@verbatim/llm"
import { LlmStandIn, layerWithStandIn, serverError, translating } from "@verbatim/llm/testing"
import { DateTime, Effect, Layer } from "effect"
import { TestServer, type TestServerService, testServerOn } from "./server.js"
import {
  api,
  balanceOf,
  decode,
  expectError,
  expectInvalid,
  oldAccount,
  trackSegments,
  transcribe,
  videos
} from "./support.js"

const translateOf = (server: TestServerService, key: string, video: string, json: unknown) =>
  server.post(api(`/transcripts/${video}/translate`), { key, json })

/** An account that owns the captions of `video` (1 credit spent), `credits` left. */
const owning = (server: TestServerService, credits: number, video: string = videos.manualAndAuto) =>
  Effect.gen(function* () {
    const { account, key } = yield* server.newAccount({
      plan: "business",
      credits: credits + 1,
      createdAt: oldAccount
    })
    const response = yield* transcribe(server, key, { video, mode: "captions_only" })
    expect(response.status, response.text).toBe(200)
    return { account, key }
  })

/** The account's translation charges; fails the test unless the balance is the ledger's sum. */
const translationCharges = (account: Account) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const entries = yield* ledger.entries(account.id)
    expect(yield* ledger.balance(account.id)).toBe(entries.reduce((sum, e) => sum + e.amount, 0))
    return entries.filter((e) => e.key.startsWith("charge:translation:")).map((e) => e.amount)
  })

const model = layerWithStandIn({ respond: translating() }, { retries: 1, maxInputCharacters: 1500 })
const withStandIn = Layer.merge(
  testServerOn({ translator: AiTranslator.layer.pipe(Layer.provide(model)) }),
  model
)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(withStandIn, { timeout: "60 seconds", excludeTestServices: true })(
  "translate over HTTP (AI engine on the stand-in)",
  (it) => {
    it.effect(
      "charges the priced credits once, stores the translation on the source's times, and the second request is free",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { account, key } = yield* owning(server, 5)
          const source = trackSegments(videos.manualAndAuto, "en", "manual")
          const price = Pricing.translationCreditsForText(Transcript.textOf(source), false)
          expect(price).toBe(1)

          const response = yield* translateOf(server, key, videos.manualAndAuto, {
            target_language: "es",
            provider: "ai"
          })
          expect(response.status, response.text).toBe(200)
          const body = yield* decode(Api.TranslateResponse, response)
          expect(body).toMatchObject({
            success: true,
            language: "es",
            credits_used: price,
            provider_used: "ai"
          })
          expect(yield* balanceOf(server, key)).toBe(5 - price)

          const stored = yield* server.get(
            api(`/transcripts/${videos.manualAndAuto}?language=es&include_timestamps=true`),
            { key }
          )
          expect(stored.status, stored.text).toBe(200)
          const es = yield* decode(Api.StoredTranscript, stored)
          expect(es.segments.map((s) => [s.start, s.end])).toEqual(source.map((s) => [s.start, s.end]))
          expect(es.segments.map((s) => s.text)).toEqual(source.map((s) => `[es] ${s.text}`))

          const standIn = yield* LlmStandIn
          const asked = standIn.requests.length
          const again = yield* translateOf(server, key, videos.manualAndAuto, {
            target_language: "es",
            provider: "ai"
          })
          expect(again.status, again.text).toBe(200)
          expect(again.json).toMatchObject({ credits_used: 0, provider_used: null, language: "es" })
          expect(standIn.requests.length).toBe(asked)
          expect(yield* balanceOf(server, key)).toBe(5 - price)
          expect(yield* translationCharges(account)).toEqual([-price])
        })
    )

    it.effect(
      "the best transcript over HTTP is the original; the translation is served by language with translated_from",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* owning(server, 5)
          const video = videos.manualAndAuto
          const translated = yield* translateOf(server, key, video, { target_language: "es", provider: "ai" })
          expect(translated.status, translated.text).toBe(200)
          expect(translated.json).toMatchObject({ language: "es", translated_from: "en" })
          const best = yield* server.get(api(`/transcripts/${video}`), { key })
          expect(best.status, best.text).toBe(200)
          expect(best.json).toMatchObject({ language: "en", translated_from: null })
          const spanish = yield* server.get(api(`/transcripts/${video}?language=es`), { key })
          expect(spanish.status, spanish.text).toBe(200)
          expect(spanish.json).toMatchObject({ language: "es", translated_from: "en" })
          const listed = yield* server.get(api(`/transcripts?search=${video}`), { key })
          expect(listed.status, listed.text).toBe(200)
          const list = yield* decode(Api.TranscriptList, listed)
          expect(list.history.map((item) => [item.language, item.translated_from]).sort()).toEqual([
            ["en", null],
            ["es", "en"]
          ])
        })
    )

    it.effect("a long transcript costs 1 credit per 2,500 characters, exactly", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { account, key } = yield* server.newAccount({
          plan: "business",
          credits: 10,
          createdAt: oldAccount
        })
        const segments = Array.from(
          { length: 12 },
          (_, i) =>
            new Transcript.Segment({
              text: `${"abcd ".repeat(100)}part ${i}.`,
              start: i * 5000,
              end: i * 5000 + 4000
            })
        )
        const text = Transcript.textOf(segments)
        const price = Pricing.translationCreditsForText(text, false)
        expect(price).toBe(Math.ceil(Pricing.translationCharacters(text) / 2500))
        expect(price).toBe(3)
        yield* Effect.flatMap(Transcripts, (t) =>
          t.store({
            id: crypto.randomUUID() as Ids.TranscriptId,
            accountId: account.id,
            videoId: videos.autoOnly,
            videoTitle: null,
            channelId: null,
            language: "en" as never,
            sourceKind: "asr",
            status: "succeeded",
            text,
            segments,
            hasTimestamps: true,
            wordCount: text.split(" ").length,
            segmentCount: segments.length,
            durationSeconds: 60,
            creditsUsed: 0,
            summary: null,
            mindMap: null,
            asrIntelligence: null,
            createdAt: DateTime.unsafeMake(Date.now())
          })
        )
        const response = yield* translateOf(server, key, videos.autoOnly, {
          target_language: "fr",
          provider: "ai"
        })
        expect(response.status, response.text).toBe(200)
        expect(response.json).toMatchObject({ credits_used: 3, provider_used: "ai" })
        expect(yield* balanceOf(server, key)).toBe(7)
        expect(yield* translationCharges(account)).toEqual([-3])
      })
    )

    it.effect("concurrent requests for the same translation are charged once", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        // Each request in flight holds the price (1) until one stores it: 8 at once need 8 available.
        const { account, key } = yield* owning(server, 8, videos.manualOnly)
        const responses = yield* Effect.all(
          Array.from({ length: 8 }, () =>
            translateOf(server, key, videos.manualOnly, { target_language: "de", provider: "ai" })
          ),
          { concurrency: "unbounded" }
        )
        expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200))
        const credits = responses.map((r) => (r.json as { credits_used: number }).credits_used)
        expect(credits.filter((c) => c > 0)).toEqual([1])
        expect(yield* balanceOf(server, key)).toBe(7)
        expect(yield* translationCharges(account)).toEqual([-1])
        const languages = yield* server.get(
          api(`/transcripts/${videos.manualOnly}/languages?include_youtube_default=false`),
          { key }
        )
        expect(
          (languages.json as { languages: ReadonlyArray<string> }).languages.filter((l) => l === "de")
        ).toHaveLength(1)
      })
    )

    it.effect(
      "a translation that fails answers 503 translation_unavailable, charges nothing and stores nothing",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { account, key } = yield* owning(server, 5, videos.germanOnly)
          const standIn = yield* LlmStandIn
          // one chunk: two requests per attempt (Llm retries once), two attempts of the chunk
          standIn.inject(4, serverError)
          const response = yield* translateOf(server, key, videos.germanOnly, {
            target_language: "en",
            provider: "ai"
          })
          expectError(response, 503, "translation_unavailable")
          expect(yield* balanceOf(server, key)).toBe(5)
          expect(yield* translationCharges(account)).toEqual([])
          const stored = yield* server.get(api(`/transcripts/${videos.germanOnly}?language=en`), { key })
          expectError(stored, 403, "forbidden")
        })
    )

    it.effect(
      "400 for a target no provider supports (naming target_language), 402 when short, 404 when nothing is owned",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* owning(server, 0)
          const short = yield* translateOf(server, key, videos.manualAndAuto, {
            target_language: "fr",
            provider: "ai"
          })
          expectError(short, 402, "payment_required")

          const rich = yield* owning(server, 5)
          const unknown = yield* translateOf(server, rich.key, videos.manualAndAuto, {
            target_language: "zz",
            provider: "ai"
          })
          expectError(unknown, 400, "unsupported_language")
          expect((unknown.json as { message: string }).message).toContain("target_language zz")
          // the platform does not offer ko for this video, and the AI fallback was not allowed
          const platform = yield* translateOf(server, rich.key, videos.manualAndAuto, {
            target_language: "ko"
          })
          expectError(platform, 400, "unsupported_language")
          expect((platform.json as { details: unknown }).details).toMatchObject({ target_language: "ko" })
          expect(yield* balanceOf(server, rich.key)).toBe(5)

          const none = yield* translateOf(server, rich.key, videos.portuguese, {
            target_language: "fr",
            provider: "ai"
          })
          expectError(none, 404, "not_found")
          expectInvalid(yield* translateOf(server, rich.key, videos.manualAndAuto, { provider: "ai" }), [
            "target_language"
          ])
          expectInvalid(
            yield* translateOf(server, rich.key, videos.manualAndAuto, {
              target_language: "es",
              provider: "deepl"
            }),
            ["provider"]
          )
          expect(yield* balanceOf(server, rich.key)).toBe(5)
        })
    )
  }
)

const apertiumInstalled = (() => {
  try {
    return parseModes(execFileSync("apertium", ["-l"], { encoding: "utf8" })).includes("eng-spa")
  } catch {
    return false
  }
})()

describe.runIf(apertiumInstalled)("translate over HTTP with Apertium (the embedded default)", () => {
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(testServerOn({ translator: ApertiumTranslator.layer(defaultSettings) }), {
    timeout: "60 seconds",
    excludeTestServices: true
  })("apertium", (it) => {
    it.effect(
      "translates English into Spanish for the priced credits, and refuses a pair it lacks by name",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { account, key } = yield* owning(server, 5)
          const response = yield* translateOf(server, key, videos.manualAndAuto, {
            target_language: "es",
            provider: "ai"
          })
          expect(response.status, response.text).toBe(200)
          const body = yield* decode(Api.TranslateResponse, response)
          expect(body).toMatchObject({ credits_used: 1, provider_used: "ai", language: "es" })
          const source = trackSegments(videos.manualAndAuto, "en", "manual")
          expect(body.transcript.segments.map((s) => [s.start, s.end])).toEqual(
            source.map((s) => [s.start, s.end])
          )
          expect(body.transcript.text.toLowerCase()).toMatch(/\b(el|la|los|las|de|que)\b/)
          expect(yield* translationCharges(account)).toEqual([-1])

          const german = yield* translateOf(server, key, videos.manualAndAuto, {
            target_language: "de",
            provider: "ai"
          })
          expectError(german, 400, "unsupported_language")
          expect((german.json as { message: string }).message).toContain("apertium")
          expect((german.json as { message: string }).message).toContain("en-de")
          expect(yield* balanceOf(server, key)).toBe(4)
        })
    )
  })
})
