/**
 * Translate on the production wiring (PGlite, or PostgreSQL with DATABASE_URL), the AI engine
 * pointed at the local stand-in Responses API (`@verbatim/llm/testing`) and the demo platform
 * wrapped so that its listed translation languages really translate (`[<lang>] text`): what is
 * charged (1 credit per 2,500 characters of the source text, once, after success, in the
 * transaction that stores the translation), what is stored (an owned transcript in the target
 * language on the source's times), the owned translation returned free, the provider order
 * (`provider`, `allow_ai_fallback`, `source_language`) and the refusals (400, 402, 403, 404, 503).
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  type Account,
  Ledger,
  StoredTranscripts,
  Transcribe,
  Transcripts,
  Translate,
  VideoPlatform
} from "@verbatim/core"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Api, Pricing, Transcript } from "@verbatim/domain"
import { AiTranslator } from "@verbatim/llm"
import { LlmStandIn, layerWithStandIn, serverError, translating } from "@verbatim/llm/testing"
import { DateTime, Effect, Layer, Schema } from "effect"
import { demoPlatform, servicesOn } from "../../src/index.js"
import { testInfrastructure } from "../../src/testing.js"
import {
  createAccount,
  expectApiError,
  expectBalancedBooks,
  liveSuiteOptions,
  ownedOf,
  transcribeRequest,
  transcriptRecord,
  videos
} from "./support.js"

/** The demo platform, except that a listed translation language really translates: `[<lang>] text`. */
const translatingPlatform = Layer.effect(
  VideoPlatform,
  Effect.map(VideoPlatform, (demo) =>
    VideoPlatform.of({
      ...demo,
      captions: (id, track, options) =>
        options?.translateTo === undefined
          ? demo.captions(id, track)
          : Effect.map(demo.captions(id, track), (segments) =>
              segments.map(
                (s) =>
                  new Transcript.Segment({
                    text: `[${options.translateTo}] ${s.text}`,
                    start: s.start,
                    end: s.end
                  })
              )
            )
    })
  )
).pipe(Layer.provide(demoPlatform(shippedCataloguePath)))

const model = layerWithStandIn({ respond: translating() }, { retries: 1, maxInputCharacters: 1500 })
const wiring = Layer.merge(
  servicesOn(
    testInfrastructure({
      platform: translatingPlatform,
      translator: AiTranslator.layer.pipe(Layer.provide(model))
    })
  ),
  model
)

const request = (body: Record<string, unknown>) => Schema.decodeUnknownSync(Api.TranslateRequest)(body)

const translate = (account: Account, videoId: string, body: Record<string, unknown>) =>
  Effect.flatMap(Translate, (t) => t.translate(account, videoId, request(body)))

const storeOwned = (account: Account, fields: Parameters<typeof transcriptRecord>[1] = {}) =>
  Effect.flatMap(Transcripts, (t) => t.store(transcriptRecord(account, fields))).pipe(
    Effect.map((stored) => stored.record)
  )

const requestsMade = Effect.map(LlmStandIn, (server) => server.requests.length)

/** Segments of about 1,000 characters each: `n` of them cost `ceil(n * 1000 / 2500)` credits. */
const longSegments = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      new Transcript.Segment({
        text: `${"word ".repeat(199)}end${i}.`,
        start: i * 10_000,
        end: i * 10_000 + 9_000
      })
  )

// Live clock: the AI translator calls the LLM stand-in, a real HTTP server, with its time limit and retries.
layer(wiring, liveSuiteOptions)("Translate on the production wiring", (it) => {
  describe("charging", () => {
    it.effect(
      "charges 1 credit per 2,500 characters once, after success, and stores the translation on the source's times",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 10 })
          const segments = longSegments(6)
          const source = yield* storeOwned(account, { segments, text: Transcript.textOf(segments) })
          const price = Pricing.translationCreditsForText(source.text, false)
          expect(price).toBe(3)

          const answer = yield* translate(account, source.videoId, { target_language: "es", provider: "ai" })
          expect(answer).toMatchObject({
            success: true,
            language: "es",
            credits_used: 3,
            provider_used: "ai"
          })
          expect(answer.transcript.segments.map((s) => [s.start, s.end])).toEqual(
            segments.map((s) => [s.start, s.end])
          )
          expect(answer.transcript.segments.map((s) => s.text)).toEqual(segments.map((s) => `[es] ${s.text}`))
          expect(answer.transcript).toMatchObject({ language: "es", source: "manual" })

          const owned = yield* ownedOf(account, source.videoId)
          const stored = owned.find((r) => r.language === "es")
          expect(stored).toMatchObject({ creditsUsed: 3, sourceKind: "manual", segmentCount: 6 })
          const found = yield* expectBalancedBooks(account)
          expect(found.balance).toBe(7)
          expect(found.charges.map((c) => [c.amount, c.key])).toEqual([
            [-3, `charge:translation:${stored?.id}`]
          ])
        })
    )

    it.effect("an owned translation is returned free, without asking the model", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const source = yield* storeOwned(account)
        const first = yield* translate(account, source.videoId, { target_language: "fr", provider: "ai" })
        expect(first.credits_used).toBe(1)
        const before = yield* requestsMade
        const again = yield* translate(account, source.videoId, { target_language: "fr", provider: "ai" })
        expect(again).toMatchObject({ success: true, credits_used: 0, provider_used: null, language: "fr" })
        expect(again.transcript.text).toBe(first.transcript.text)
        expect(yield* requestsMade).toBe(before)
        expect((yield* expectBalancedBooks(account)).balance).toBe(4)
      })
    )

    it.effect("concurrent requests for the same translation store it once and charge it once", () =>
      Effect.gen(function* () {
        // Each request in flight holds the price (2) until the first stores it: 6 of them need 12.
        const account = yield* createAccount({ credits: 12 })
        const segments = longSegments(3)
        const source = yield* storeOwned(account, { segments, text: Transcript.textOf(segments) })
        const answers = yield* Effect.all(
          Array.from({ length: 6 }, () =>
            translate(account, source.videoId, { target_language: "it", provider: "ai" })
          ),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.credits_used).sort()).toEqual([0, 0, 0, 0, 0, 2])
        expect(new Set(answers.map((a) => a.transcript.text)).size).toBe(1)
        expect((yield* ownedOf(account, source.videoId)).filter((r) => r.language === "it")).toHaveLength(1)
        const found = yield* expectBalancedBooks(account)
        expect(found.balance).toBe(10)
        expect(found.held).toBe(0)
        expect(found.charges).toHaveLength(1)
      })
    )

    it.effect(
      "8 parallel translations on 1 credit: the price is held, so one runs and seven answer 402",
      () =>
        Effect.gen(function* () {
          const ledger = yield* Ledger
          const account = yield* createAccount({ credits: 1 })
          const source = yield* storeOwned(account)
          const before = yield* requestsMade
          const targets = ["de", "fr", "es", "it", "nl", "pl", "sv", "da"]
          const answers = yield* Effect.all(
            targets.map((target) =>
              Effect.either(translate(account, source.videoId, { target_language: target, provider: "ai" }))
            ),
            { concurrency: "unbounded" }
          )
          const translated = answers.filter((answer) => answer._tag === "Right")
          const refused = answers.filter((answer) => answer._tag === "Left").map((answer) => answer.left)
          expect(translated).toHaveLength(1)
          expect(refused.map((error) => ("code" in error ? error.code : error._tag))).toEqual(
            Array.from({ length: 7 }, () => "payment_required")
          )
          // One source chunk: the model was asked once, for the one translation that ran.
          expect((yield* requestsMade) - before).toBe(1)
          expect(yield* ledger.funds(account.id)).toEqual({ balance: 0, held: 0, available: 0 })
          const holds = yield* ledger.holds(account.id)
          expect(holds.map((hold) => hold.status)).toEqual(["settled"])
          expect((yield* expectBalancedBooks(account)).charges).toHaveLength(1)
        })
    )

    it.effect(
      "a translation that fails is not charged and stores nothing (503 translation_unavailable)",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          const source = yield* storeOwned(account)
          // one chunk (1,084 characters within 1,500): Llm tries its request twice; the translator
          // asks a chunk again only for an answer of the wrong shape, not after a failed request
          const server = yield* LlmStandIn
          server.inject(2, serverError)
          const error = yield* expectApiError(
            translate(account, source.videoId, { target_language: "de", provider: "ai" }),
            "translation_unavailable"
          )
          expect(error.message).toContain("model stand-in")
          expect((yield* ownedOf(account, source.videoId)).map((r) => r.language)).toEqual(["en"])
          const found = yield* expectBalancedBooks(account)
          expect(found.balance).toBe(5)
          expect(found.charges).toHaveLength(0)
          // and the same request succeeds afterwards, charged then
          const later = yield* translate(account, source.videoId, { target_language: "de", provider: "ai" })
          expect(later.credits_used).toBe(1)
        })
    )

    it.effect("402 when the balance is short, checked before any work", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 2 })
        const segments = longSegments(8)
        const source = yield* storeOwned(account, { segments, text: Transcript.textOf(segments) })
        const before = yield* requestsMade
        const error = yield* expectApiError(
          translate(account, source.videoId, { target_language: "es", provider: "ai" }),
          "payment_required"
        )
        expect(error.details).toMatchObject({ required: 4, balance: 2 })
        expect(yield* requestsMade).toBe(before)
        expect((yield* expectBalancedBooks(account)).balance).toBe(2)
      })
    )
  })

  describe("provenance", () => {
    it.effect(
      "the best transcript is the original: a newer translation is served only when asked for by language, labelled translated_from",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 10 })
          const video = videos.manualAndAuto
          yield* Effect.flatMap(Transcribe, (t) =>
            t.transcribe(account, transcribeRequest({ video, language: "en", mode: "captions_only" }))
          )
          const translated = yield* translate(account, video, { target_language: "es", provider: "ai" })
          expect(translated).toMatchObject({ language: "es", translated_from: "en" })
          const stored = yield* StoredTranscripts
          const get = (fields: Record<string, string>) =>
            stored.get(account, video, Schema.decodeUnknownSync(Api.TranscriptQuery)(fields))
          const best = yield* get({})
          expect(best.response).toMatchObject({ language: "en", translated_from: null })
          const spanish = yield* get({ language: "es" })
          expect(spanish.response).toMatchObject({ language: "es", translated_from: "en" })
          const listed = yield* stored.list(
            account,
            Schema.decodeUnknownSync(Api.TranscriptListQuery)({ search: video })
          )
          expect(listed.history.map((item) => [item.language, item.translated_from]).sort()).toEqual([
            ["en", null],
            ["es", "en"]
          ])
          // Translating again names the original, not the translation, as what it comes from.
          const french = yield* translate(account, video, { target_language: "fr", provider: "ai" })
          expect(french).toMatchObject({ language: "fr", translated_from: "en" })
          expect((yield* get({})).response.language).toBe("en")
        })
    )
  })

  describe("providers", () => {
    it.effect("the platform's translation of the source's own track when the video offers the target", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const source = yield* storeOwned(account, { videoId: videos.manualAndAuto })
        const before = yield* requestsMade
        const answer = yield* translate(account, videos.manualAndAuto, { target_language: "ja" })
        expect(answer).toMatchObject({ provider_used: "platform", credits_used: 1, language: "ja" })
        expect(answer.transcript.segments.map((s) => [s.start, s.end])).toEqual(
          source.segments.map((s) => [s.start, s.end])
        )
        expect(answer.transcript.segments[0]?.text).toBe(`[ja] ${source.segments[0]?.text}`)
        expect(yield* requestsMade).toBe(before)
      })
    )

    it.effect(
      "a target the platform does not offer: 400 naming target_language, unless allow_ai_fallback",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          yield* storeOwned(account, { videoId: videos.manualAndAuto })
          const error = yield* expectApiError(
            translate(account, videos.manualAndAuto, { target_language: "ko", provider: "platform" }),
            "unsupported_language"
          )
          expect(error.message).toContain("target_language ko")
          expect(error.message).toContain("allow_ai_fallback")
          expect(error.details).toMatchObject({ field: "target_language", target_language: "ko" })
          const fallback = yield* translate(account, videos.manualAndAuto, {
            target_language: "ko",
            provider: "platform",
            allow_ai_fallback: true
          })
          expect(fallback).toMatchObject({ provider_used: "ai", credits_used: 1 })
          expect((yield* expectBalancedBooks(account)).balance).toBe(4)
        })
    )

    it.effect("a language no engine knows is 400 naming the pair and the engine, and charges nothing", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        yield* storeOwned(account)
        const error = yield* expectApiError(
          translate(account, videos.manualAndAuto, { target_language: "zz", provider: "ai" }),
          "unsupported_language"
        )
        expect(error.message).toContain("en → zz")
        expect(error.message).toContain("model stand-in")
        expect((yield* expectBalancedBooks(account)).balance).toBe(5)
      })
    )

    it.effect("a later translation starts from the original, not from an earlier translation", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const source = yield* storeOwned(account, { videoId: videos.manualOnly })
        yield* translate(account, videos.manualOnly, { target_language: "es", provider: "ai" })
        const french = yield* translate(account, videos.manualOnly, { target_language: "fr", provider: "ai" })
        expect(french.transcript.segments[0]?.text).toBe(`[fr] ${source.segments[0]?.text}`)
      })
    )

    it.effect(
      "a translation is never older than its source, even when the source was stamped by a clock ahead of this one",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          // Stored by a process whose clock runs an hour ahead of this one.
          const ahead = DateTime.add(yield* DateTime.now, { hours: 1 })
          const source = yield* storeOwned(account, { videoId: videos.manualOnly, createdAt: ahead })
          yield* translate(account, videos.manualOnly, { target_language: "es", provider: "ai" })
          const spanish = (yield* ownedOf(account, videos.manualOnly)).find((r) => r.language === "es")
          expect(spanish?.createdAt.epochMillis).toBe(ahead.epochMillis + 1)
          // So the next translation still starts from the original, the oldest of its kind.
          const french = yield* translate(account, videos.manualOnly, {
            target_language: "fr",
            provider: "ai"
          })
          expect(french.transcript.segments[0]?.text).toBe(`[fr] ${source.segments[0]?.text}`)
        })
    )

    it.effect(
      "without source_language the source is a transcript in another language than the target, even when a better one shares it",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          const english = yield* storeOwned(account, {
            videoId: videos.multiLanguage,
            language: "en",
            sourceKind: "auto"
          })
          yield* storeOwned(account, {
            videoId: videos.multiLanguage,
            language: "pt-BR",
            sourceKind: "manual"
          })
          const answer = yield* translate(account, videos.multiLanguage, {
            target_language: "pt",
            provider: "ai"
          })
          expect(answer.transcript.segments[0]?.text).toBe(`[pt] ${english.segments[0]?.text}`)
        })
    )

    it.effect("source_language picks the transcript translated; 403 when that language is not owned", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        yield* storeOwned(account, { videoId: videos.multiLanguage, language: "en" })
        const german = yield* storeOwned(account, { videoId: videos.multiLanguage, language: "de" })
        const answer = yield* translate(account, videos.multiLanguage, {
          target_language: "pl",
          source_language: "de",
          provider: "ai"
        })
        expect(answer.transcript.segments[0]?.text).toBe(`[pl] ${german.segments[0]?.text}`)
        yield* expectApiError(
          translate(account, videos.multiLanguage, {
            target_language: "sv",
            source_language: "fr",
            provider: "ai"
          }),
          "forbidden"
        )
      })
    )

    it.effect("404 when the account owns no transcript of the video (another account's do not count)", () =>
      Effect.gen(function* () {
        const owner = yield* createAccount({ credits: 5 })
        yield* storeOwned(owner, { videoId: videos.manualOnly })
        const other = yield* createAccount({ credits: 5 })
        yield* expectApiError(
          translate(other, videos.manualOnly, { target_language: "es", provider: "ai" }),
          "not_found"
        )
        expect(yield* Effect.flatMap(Ledger, (l) => l.balance(other.id))).toBe(5)
      })
    )
  })
})
