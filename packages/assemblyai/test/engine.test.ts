import { describe, expect, it } from "@effect/vitest"
import type { SpeechFailed } from "@verbatim/core"
import { Duration, Effect, Fiber, Logger, LogLevel, Schedule } from "effect"
import { audioInput, transcodingError, wav } from "../src/testing.js"
import { breaking, clip, clipBytes, notAudio, on, options, sentence, withEngine } from "./support.js"

const failed = (e: { readonly _tag: string }): SpeechFailed => {
  expect(e._tag).toBe("SpeechFailed")
  return e as SpeechFailed
}

// Live clock: the engine uploads to and polls the AssemblyAI stand-in, a real HTTP server on a local port.
describe("AssemblyAI engine: the calls", () => {
  it.live("uploads the audio, creates, polls until completed, reads the sentences, then deletes", () =>
    withEngine((engine, server) =>
      Effect.gen(function* () {
        const result = yield* engine.transcribe(clip(), options())
        expect(result.text).toBe(sentence)
        expect(server.requests.map((r) => r.route)).toEqual([
          "upload",
          "create",
          "get",
          "get",
          "get",
          "sentences",
          "delete"
        ])
        const upload = on(server, "upload")[0]
        expect(upload?.body).toBe(clipBytes.length)
        expect(upload?.contentType).toBe("application/octet-stream")
        // The key goes raw, without "Bearer".
        expect(server.requests.every((r) => r.authorization === server.apiKey)).toBe(true)
        expect(server.transcriptRequests[0]?.audio_url).toMatch(/\/cdn\/upload\//)
        expect(server.deleted).toHaveLength(1)
        expect(server.live()).toEqual([])
      })
    )
  )

  it.live("reads words, sentences and times as whole ms inside the audio", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const result = yield* engine.transcribe(clip(), options())
        expect(result.durationMs).toBe(3000)
        expect(result.language).toBe("en")
        expect(result.words.map((w) => w.text).join(" ")).toBe(sentence)
        expect(result.segments.map((s) => s.text)).toEqual([
          "Hello world, this is a test of the speech engine.",
          "Um, it hears every word."
        ])
        for (const s of result.segments) {
          expect(Number.isSafeInteger(s.start) && Number.isSafeInteger(s.end)).toBe(true)
          for (const w of s.words ?? []) expect(w.start >= s.start && w.end <= s.end).toBe(true)
        }
        expect(result.words.at(-1)?.end).toBeLessThanOrEqual(3000)
        expect(result.intelligence).toBeNull()
        expect(result.translations).toEqual([])
      })
    )
  )

  it.live("keeps or drops filler words as asked", () =>
    withEngine((engine, server) =>
      Effect.gen(function* () {
        const kept = yield* engine.transcribe(clip(), options({ fillerWords: true }))
        const dropped = yield* engine.transcribe(clip(), options({ fillerWords: false }))
        expect(kept.text).toContain("Um,")
        expect(dropped.text).not.toContain("Um")
        expect(server.transcriptRequests.map((b) => b.disfluencies)).toEqual([true, false])
      })
    )
  )

  it.live("makes segments of speaker turns when speakers are labelled, without asking for sentences", () =>
    withEngine((engine, server) =>
      Effect.gen(function* () {
        const result = yield* engine.transcribe(clip(), options({ speakerLabels: true, speakersExpected: 2 }))
        expect(result.segments).toHaveLength(2)
        expect(on(server, "sentences")).toEqual([])
        expect(server.transcriptRequests[0]).toMatchObject({ speaker_labels: true, speakers_expected: 2 })
      })
    )
  )

  it.live("reports the language AssemblyAI detected, in our spelling", () =>
    Effect.gen(function* () {
      const detected = yield* withEngine((engine) => engine.transcribe(clip(), options()), {
        detectedLanguage: "es"
      })
      expect(detected.language).toBe("es")
      const american = yield* withEngine((engine) =>
        engine.transcribe(clip(), options({ language: "en-US" }))
      )
      expect(american.language).toBe("en-US")
      const hawaiian = yield* withEngine((engine) => engine.transcribe(clip(), options()), {
        detectedLanguage: "haw"
      }).pipe(Logger.withMinimumLogLevel(LogLevel.Error))
      expect(hawaiian.language).toBe("en")
    })
  )

  it.live("returns the translation, and the custom-formatted text in the text and the segments", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          const result = yield* engine.transcribe(
            clip(),
            options({ translateTo: "de", customFormatting: true, customFormatPhone: "xxx-xxx-xxxx" })
          )
          expect(result.translations).toEqual([
            { language: "de", text: "[de] Call me at 5551234567 tomorrow. Bye." }
          ])
          expect(result.text).toBe("Call me at 555-123-4567 tomorrow. Bye.")
          expect(result.segments.map((s) => s.text)).toEqual(["Call me at 555-123-4567 tomorrow.", "Bye."])
          expect(result.words.map((w) => w.text)).toContain("5551234567")
          expect(server.transcriptRequests[0]?.speech_understanding?.request).toEqual({
            translation: { target_languages: ["de"] },
            custom_formatting: {
              date: "mm/dd/yyyy",
              phone_number: "xxx-xxx-xxxx",
              email: "username@domain.com"
            }
          })
        }),
      { recognise: () => "Call me at 5551234567 tomorrow. Bye." }
    )
  )

  it.live("fills the intelligence asked for and only that", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const result = yield* engine.transcribe(
          clip(),
          options({ topicDetection: true, sentimentAnalysis: true, piiRedaction: true })
        )
        expect(result.intelligence?.topics?.summary).toEqual({ "Hobbies&Interests": 0.9 })
        expect(result.intelligence?.sentiment?.map((s) => s.sentiment)).toEqual(["NEUTRAL", "NEUTRAL"])
        // Key phrases and entities come with topic detection.
        expect(result.intelligence?.auto_highlights?.results.length).toBeGreaterThan(0)
        expect(result.intelligence?.entities).toEqual(expect.any(Array))
        expect(result.intelligence).not.toHaveProperty("summary")
        expect(result.intelligence).not.toHaveProperty("chapters")
      })
    )
  )

  it.live("sends the speech models it is configured with", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          const result = yield* engine.transcribe(clip(), options())
          expect(server.transcriptRequests[0]?.speech_models).toEqual(["universal-2"])
          expect(result.speechModel).toBe("universal-2")
        }),
      {},
      { speechModels: ["universal-2"] }
    )
  )
})

// Live clock: the engine uploads to and polls the AssemblyAI stand-in, a real HTTP server on a local port.
describe("AssemblyAI engine: failures", () => {
  it.live("retries 429 (honouring Retry-After) and 5xx, then succeeds", () =>
    withEngine((engine, server) =>
      Effect.gen(function* () {
        server.inject(
          { kind: "status", status: 503, on: "upload" },
          { kind: "status", status: 429, retryAfterSeconds: 1, on: "create" },
          { kind: "status", status: 500, times: 2, on: "get" }
        )
        const started = Date.now()
        const result = yield* engine.transcribe(clip(), options())
        expect(Date.now() - started).toBeGreaterThanOrEqual(950)
        expect(result.text).toBe(sentence)
        expect(on(server, "upload").map((r) => r.status)).toEqual([503, 200])
        expect(on(server, "create").map((r) => r.status)).toEqual([429, 200])
        expect(
          on(server, "get")
            .slice(0, 2)
            .map((r) => r.status)
        ).toEqual([500, 500])
        expect(server.deleted).toHaveLength(1)
      })
    )
  )

  it.live("gives up after the retries: retryable, and the transcript is still deleted", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          server.inject({ kind: "status", status: 502, times: 10, on: "get" })
          const failure = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
          expect(failure.retryable).toBe(true)
          expect(failure.reason).toContain("502")
          expect(on(server, "get")).toHaveLength(3)
          expect(server.deleted).toHaveLength(1)
        }),
      {},
      { retries: 2 }
    )
  )

  it.live("429 on every create: retryable after the retries, and nothing is left to delete", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          server.inject({ kind: "status", status: 429, times: 10, retryAfterSeconds: 0, on: "create" })
          const failure = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
          expect(failure.retryable).toBe(true)
          expect(on(server, "create")).toHaveLength(3)
          expect(server.live()).toEqual([])
        }),
      {},
      { retries: 2 }
    )
  )

  it.live("a wrong key is refused once, not retried, and names ASSEMBLYAI_API_KEY", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          const failure = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
          expect(failure.retryable).toBe(false)
          expect(failure.reason).toContain("ASSEMBLYAI_API_KEY")
          expect(server.requests.map((r) => [r.route, r.status])).toEqual([["upload", 401]])
        }),
      {},
      { apiKey: "not-the-key" }
    )
  )

  it.live("401 and 400 from the create call are not retried", () =>
    withEngine((engine, server) =>
      Effect.gen(function* () {
        server.inject({ kind: "status", status: 401, on: "create" })
        const unauthorized = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
        expect(unauthorized.retryable).toBe(false)
        server.inject({ kind: "status", status: 400, error: "format_text must be a Boolean", on: "create" })
        const refused = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
        expect(refused.retryable).toBe(false)
        expect(refused.reason).toContain("format_text must be a Boolean")
        expect(on(server, "create").map((r) => r.status)).toEqual([401, 400])
      })
    )
  )

  it.live("a transcript that ends in error fails for good with AssemblyAI's text, and is deleted", () =>
    withEngine((engine, server) =>
      Effect.gen(function* () {
        const failure = failed(yield* Effect.flip(engine.transcribe(notAudio(), options())))
        expect(failure.retryable).toBe(false)
        expect(failure.reason).toContain(transcodingError)
        expect(server.deleted).toHaveLength(1)
      })
    )
  )

  it.live("a slow answer times out, is retried, and fails as retryable when it stays slow", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          server.inject({ kind: "delay", ms: 400, times: 1, on: "get" })
          const result = yield* engine.transcribe(clip(), options())
          expect(result.text).toBe(sentence)
          server.inject({ kind: "delay", ms: 400, times: 5, on: "get" })
          const failure = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
          expect(failure.retryable).toBe(true)
          expect(failure.reason).toContain("no answer within")
          expect(server.deleted).toHaveLength(2)
        }),
      {},
      { requestTimeout: Duration.millis(100), retries: 1 }
    )
  )

  it.live("a create call that hangs is cut off by the request time limit and retried", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          server.inject({ kind: "delay", ms: 3000, on: "create" })
          const started = Date.now()
          const result = yield* engine.transcribe(clip(), options())
          expect(Date.now() - started).toBeLessThan(2000)
          expect(result.text).toBe(sentence)
          expect(on(server, "create").length).toBeGreaterThanOrEqual(1)
        }),
      {},
      { requestTimeout: Duration.millis(150) }
    )
  )

  it.live("a delete that hangs does not hold the result back", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          server.inject({ kind: "delay", ms: 3000, times: 5, on: "delete" })
          const started = Date.now()
          const result = yield* engine
            .transcribe(clip(), options())
            .pipe(Logger.withMinimumLogLevel(LogLevel.Error))
          expect(Date.now() - started).toBeLessThan(2000)
          expect(result.text).toBe(sentence)
        }),
      {},
      { requestTimeout: Duration.millis(150), retries: 1 }
    )
  )

  it.live("a recognition that takes longer than the time limit fails as retryable and is deleted", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          const failure = failed(yield* Effect.flip(engine.transcribe(clip(), options())))
          expect(failure.retryable).toBe(true)
          expect(failure.reason).toContain("did not finish")
          expect(server.deleted).toHaveLength(1)
          expect(server.live()).toEqual([])
        }),
      { pollsUntilDone: 10_000 },
      { timeout: Duration.millis(300) }
    )
  )

  it.live("an interrupted recognition deletes its transcript", () =>
    withEngine(
      (engine, server) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(engine.transcribe(clip(), options()))
          yield* Effect.sync(() => on(server, "get").length).pipe(
            Effect.repeat({ schedule: Schedule.spaced("5 millis"), until: (n) => n > 0 })
          )
          yield* Fiber.interrupt(fiber)
          expect(server.deleted).toHaveLength(1)
          expect(server.live()).toEqual([])
        }),
      { pollsUntilDone: 10_000 }
    )
  )

  it.live("a source that breaks fails as the source said, buffered or streamed", () =>
    Effect.gen(function* () {
      for (const uploadBufferBytes of [32 * 1024 * 1024, 0]) {
        for (const retryable of [true, false]) {
          const failure = yield* withEngine(
            (engine, server) =>
              Effect.gen(function* () {
                const failure = failed(
                  yield* Effect.flip(engine.transcribe(breaking(retryable, 4096), options()))
                )
                expect(on(server, "create")).toEqual([])
                return failure
              }),
            {},
            { uploadBufferBytes }
          )
          expect(failure.retryable).toBe(retryable)
          expect(failure.reason).toContain("the source went away")
        }
      }
    })
  )

  it.live(
    "audio longer than the buffer streams through once: a failed upload is retryable, not retried",
    () =>
      withEngine(
        (engine, server) =>
          Effect.gen(function* () {
            const long = wav({ durationMs: 5000 })
            const result = yield* engine.transcribe(audioInput(long), options())
            expect(result.durationMs).toBe(5000)
            expect(on(server, "upload")[0]?.body).toBe(long.length)
            server.inject({ kind: "status", status: 503, on: "upload" })
            const failure = failed(yield* Effect.flip(engine.transcribe(audioInput(long), options())))
            expect(failure.retryable).toBe(true)
            expect(on(server, "upload").map((r) => r.status)).toEqual([200, 503])
          }),
        {},
        { uploadBufferBytes: 1024 }
      )
  )
})

// Live clock: the engine uploads to and polls the AssemblyAI stand-in, a real HTTP server on a local port.
describe("AssemblyAI engine: what it refuses", () => {
  const refused = (raw: Parameters<typeof options>[0]) =>
    withEngine((engine) => Effect.flip(engine.supports(options(raw))))

  it.live.each([
    [{ language: "zu" }, "language"],
    [{ translateTo: "zu" }, "translateTo"],
    [{ language: "de", sentimentAnalysis: true }, "sentimentAnalysis"],
    [{ language: "de", summarization: true }, "summarization"],
    [{ summarization: true, textFormatting: false }, "summarization"],
    [{ language: "ja", topicDetection: true }, "topicDetection"],
    [{ language: "ja", contentModeration: true }, "contentModeration"],
    [{ language: "pl", profanityFiltering: true }, "profanityFiltering"],
    [{ language: "th", piiRedaction: true }, "piiRedaction"],
    [{ language: "th", customFormatting: true }, "customFormatting"],
    [{ language: "th", speakerId: true }, "speakerId"]
  ] as const)("%o is refused naming %s", ([raw, option]) =>
    Effect.gen(function* () {
      const refusal = yield* refused(raw)
      expect(refusal._tag).toBe("SpeechUnsupported")
      if (refusal._tag === "SpeechUnsupported") {
        expect(refusal.option).toBe(option)
        expect(refusal.engine).toBe("assemblyai")
      }
    })
  )

  it.live("accepts what it can do, in any language it has, and everything with language auto", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        for (const raw of [
          {},
          { language: "th" },
          { language: "en", sentimentAnalysis: true, summarization: true, topicDetection: true },
          { language: "fr", contentModeration: true, piiRedaction: true, profanityFiltering: true },
          {
            sentimentAnalysis: true,
            summarization: true,
            topicDetection: true,
            contentModeration: true,
            profanityFiltering: true,
            piiRedaction: true,
            speakerId: true,
            customFormatting: true,
            translateTo: "ja"
          }
        ] as const) {
          yield* engine.supports(options(raw))
        }
      })
    )
  )
})
