/**
 * POST /transcribe over real HTTP, captions path: serving and charging, owned transcripts served
 * again for free, spec rules 1-5 as 400s naming the field, the modes and legacy fields, the preferred
 * language with its fallback, the format options, the 404s, 402, the ASR quote for an implicit
 * default, 503 asr_unavailable for explicit ASR on a server without a speech engine (the ASR path
 * itself: asr.test.ts), the too-long video, and a job for every request.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Api, Transcript } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { TestServer, TestServerLive } from "./server.js"
import {
  allJobs,
  api,
  balanceOf,
  catalogueVideo,
  decode,
  expectError,
  expectInvalid,
  newAccount,
  oldAccount,
  timed,
  trackSegments,
  transcribe,
  transcriptList,
  unknownUuid,
  uuidPattern,
  videos
} from "./support.js"

const webhook = "https://hooks.example.com/verbatim"

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "POST /transcribe over real HTTP",
  (it) => {
    describe("captions", () => {
      it.effect("serves captions for 1 credit: 200 completed, the balance down by one, integer ms", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const response = yield* transcribe(server, key, { video: videos.manualAndAuto })
          expect(response.status, response.text).toBe(200)
          const body = yield* decode(Api.TranscribeCompleted, response)
          const segments = trackSegments(videos.manualAndAuto, "en", "manual")
          expect(body).toMatchObject({ status: "completed", mode: "captions_only", credits_used: 1 })
          expect(body.job_id).toMatch(uuidPattern)
          expect(body.request_id).toMatch(uuidPattern)
          expect(body.data.video_id).toBe(videos.manualAndAuto)
          expect(body.data.video_title).toBe(catalogueVideo(videos.manualAndAuto).title)
          expect(body.data.transcript.language).toBe("en")
          expect(body.data.transcript.source).toBe("manual")
          expect(body.data.transcript.text).toBe(Transcript.textOf(segments))
          expect(body.data.transcript.segments.map(timed)).toEqual(segments.map(timed))
          for (const segment of body.data.transcript.segments) {
            expect(Number.isInteger(segment.start) && Number.isInteger(segment.end)).toBe(true)
          }
          expect(body.data.transcript.paragraphs).toBeNull()
          expect(body.data.transcript.words).toBeNull()
          expect(yield* balanceOf(server, key)).toBe(4)
        })
      )

      it.effect("serves an owned transcript again for 0 credits, with a new job each time", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const first = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.manualOnly })
          )
          const served = yield* transcribe(server, key, {
            video: `https://www.youtube.com/watch?v=${videos.manualOnly}`,
            mode: "captions_only"
          })
          const second = yield* decode(Api.TranscribeCompleted, served)
          // The owned transcript's segments go out as the text they were stored as: the body is
          // still the schema's encoding, byte for byte.
          expect(served.text).toBe(JSON.stringify(Schema.encodeSync(Api.TranscribeCompleted)(second)))
          expect(served.headers.get("content-type")).toBe("application/json")
          expect(first.credits_used).toBe(1)
          expect(second.credits_used).toBe(0)
          expect(second.job_id).not.toBe(first.job_id)
          expect(second.request_id).not.toBe(first.request_id)
          expect(second.data).toEqual(first.data)
          expect(yield* balanceOf(server, key)).toBe(4)
          const jobs = yield* allJobs(server, key)
          expect(jobs.map((job) => [job.job_id, job.status, job.credits_used])).toEqual([
            [second.job_id, "completed", 0],
            [first.job_id, "completed", 1]
          ])
          expect((yield* transcriptList(server, key)).history).toHaveLength(1)
        })
      )

      it.effect("takes the video as a URL of any platform form", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          for (const video of [
            `https://youtu.be/${videos.manualAndAuto}`,
            `https://m.youtube.com/watch?v=${videos.manualAndAuto}&t=10`,
            `youtube.com/shorts/${videos.manualAndAuto}`
          ]) {
            const body = yield* decode(Api.TranscribeCompleted, yield* transcribe(server, key, { video }))
            expect(body.data.video_id).toBe(videos.manualAndAuto)
          }
          expect(yield* balanceOf(server, key)).toBe(4)
        })
      )
    })

    describe("validation (spec rules 1-5)", () => {
      const v = videos.manualAndAuto
      const upload = "5b0f1c9e-2f57-4a8e-9d43-1c2b3a4d5e6f"
      const cases: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string | number>]> = [
        ["no video and no upload_id", {}, ["video"]],
        ["a blank video", { video: "   " }, ["video"]],
        ["a null video", { video: null, mode: "captions_only" }, ["video"]],
        ["video and upload_id together", { video: v, upload_id: upload }, ["upload_id"]],
        ["mode with source", { video: v, mode: "auto", source: "auto" }, ["source"]],
        ["mode with allow_asr", { video: v, mode: "captions_only", allow_asr: false }, ["allow_asr"]],
        ["legacy source=asr without webhook_url", { video: v, source: "asr" }, ["webhook_url"]],
        ["legacy allow_asr=true without webhook_url", { video: v, allow_asr: true }, ["webhook_url"]],
        [
          "legacy source=manual with allow_asr=true without webhook_url",
          { video: v, source: "manual", allow_asr: true },
          ["webhook_url"]
        ],
        [
          "an upload with mode captions_only",
          { upload_id: upload, mode: "captions_only", webhook_url: webhook },
          ["mode"]
        ],
        [
          "an upload with source manual",
          { upload_id: upload, source: "manual", webhook_url: webhook },
          ["source"]
        ],
        [
          "an upload without webhook_url",
          { upload_id: upload, mode: "speech_to_text_only" },
          ["webhook_url"]
        ],
        ["an upload_id that is no uuid", { upload_id: "upload-1", webhook_url: webhook }, ["upload_id"]],
        ["an unknown mode", { video: v, mode: "fast" }, ["mode"]],
        ["an unknown legacy source", { video: v, source: "youtube" }, ["source"]],
        ["allow_asr as a string", { video: v, allow_asr: "true", webhook_url: webhook }, ["allow_asr"]],
        ["a video of another site", { video: `https://vimeo.com/watch?v=${v}` }, ["video"]],
        ["a video id of the wrong length", { video: "q3Lx8VbT2k" }, ["video"]],
        ["a video that is a number", { video: 42 }, ["video"]],
        ["a language that is no ISO 639-1 code", { video: v, language: "english" }, ["language"]],
        [
          "a webhook_url that is no http URL",
          { video: v, mode: "auto", webhook_url: "ftp://x.example" },
          ["webhook_url"]
        ],
        ["format.timestamp as a string", { video: v, format: { timestamp: "yes" } }, ["format", "timestamp"]],
        ["format as an array", { video: v, format: [true] }, ["format"]],
        [
          "speakersExpected 21",
          { video: v, mode: "auto", asr_options: { speakerLabels: true, speakersExpected: 21 } },
          ["asr_options", "speakersExpected"]
        ],
        [
          "speakersExpected 0",
          { video: v, mode: "auto", asr_options: { speakersExpected: 0 } },
          ["asr_options", "speakersExpected"]
        ],
        [
          "speakersExpectedMax 2.5",
          { video: v, mode: "auto", asr_options: { speakersExpectedMax: 2.5 } },
          ["asr_options", "speakersExpectedMax"]
        ],
        [
          "201 key terms",
          {
            video: v,
            mode: "auto",
            asr_options: { keyTerms: Array.from({ length: 201 }, (_, i) => `term ${i}`) }
          },
          ["asr_options", "keyTerms"]
        ],
        [
          "a key term of 7 words",
          { video: v, mode: "auto", asr_options: { keyTerms: ["one two three four five six seven"] } },
          ["asr_options", "keyTerms", 0]
        ],
        [
          "21 known speaker values",
          {
            video: v,
            mode: "auto",
            asr_options: {
              speakerId: true,
              speakerIdKnownValues: Array.from({ length: 21 }, (_, i) => `s${i}`)
            }
          },
          ["asr_options", "speakerIdKnownValues"]
        ],
        [
          "a known speaker value of 36 characters",
          {
            video: v,
            mode: "auto",
            asr_options: { speakerId: true, speakerIdKnownValues: ["x".repeat(36)] }
          },
          ["asr_options", "speakerIdKnownValues", 0]
        ],
        [
          "speakersExpectedMin greater than speakersExpectedMax",
          {
            video: v,
            mode: "auto",
            asr_options: { speakerLabels: true, speakersExpectedMin: 5, speakersExpectedMax: 2 }
          },
          ["asr_options", "speakersExpectedMin"]
        ],
        [
          "an unknown custom date format",
          { video: v, mode: "auto", asr_options: { customFormatting: true, customFormatDate: "yyyy/mm/dd" } },
          ["asr_options", "customFormatDate"]
        ],
        ["asr_options as a string", { video: v, mode: "auto", asr_options: "fast" }, ["asr_options"]]
      ]

      it.effect(
        "refuses each broken rule with 400 invalid_request naming the field; nothing charged or recorded",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
            for (const [name, body, path] of cases) {
              const response = yield* transcribe(server, key, body)
              expect({ name, status: response.status }).toEqual({ name, status: 400 })
              expectInvalid(response, path)
            }
            expect(yield* balanceOf(server, key)).toBe(5)
            expect(yield* allJobs(server, key)).toEqual([])
            expect((yield* transcriptList(server, key)).history).toEqual([])
          })
      )

      it.effect(
        "a language that names no language is 400 unsupported_language, on /transcribe and /batch, nothing charged; a real one the video lacks falls back",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
            for (const language of ["xx", "qq-XX"]) {
              const refused = yield* transcribe(server, key, { video: videos.manualAndAuto, language })
              expectError(refused, 400, "unsupported_language")
              expect(refused.json).toMatchObject({ details: { field: "language", language } })
              const batch = yield* server.post(api("/batch"), {
                key,
                json: { video_ids: [videos.manualAndAuto], language, mode: "captions_only" }
              })
              expectError(batch, 400, "unsupported_language")
            }
            expect(yield* balanceOf(server, key)).toBe(5)
            expect(yield* allJobs(server, key)).toEqual([])
            // Japanese is a language this video has no captions in: served in English, as the spec says.
            const fallback = yield* decode(
              Api.TranscribeCompleted,
              yield* transcribe(server, key, { video: videos.manualAndAuto, language: "ja" })
            )
            expect(fallback.data.transcript.language).toBe("en")
          })
      )

      it.effect("a body that is not an object answers 400 invalid_request", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", createdAt: oldAccount })
          for (const body of [[], "q3Lx8VbT2kA", 7, null, true]) {
            expectError(yield* transcribe(server, key, body), 400, "invalid_request")
          }
          expectError(yield* server.post(api("/transcribe"), { key }), 400, "invalid_request")
        })
      )

      it.effect("a valid upload_id passes validation and answers 404: no upload exists yet", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const response = yield* transcribe(server, key, { upload_id: unknownUuid, webhook_url: webhook })
          expectError(response, 404, "not_found")
          expect(yield* balanceOf(server, key)).toBe(5)
        })
      )
    })

    describe("modes and legacy fields", () => {
      it.effect("captions_only takes human captions first and auto captions when there are no others", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: newAccount })
          const manual = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.manualAndAuto, mode: "captions_only" })
          )
          expect(manual.mode).toBe("captions_only")
          expect(manual.data.transcript.source).toBe("manual")
          const auto = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.autoOnly, mode: "captions_only" })
          )
          expect(auto.data.transcript.source).toBe("auto")
          expect(auto.data.transcript.text).toBe(
            Transcript.textOf(trackSegments(videos.autoOnly, "en", "auto"))
          )
          expect(yield* balanceOf(server, key)).toBe(3)
        })
      )

      it.effect("human_captions_only serves human captions, and 404 no_captions for an auto-only video", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: newAccount })
          const served = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.manualAndAuto, mode: "human_captions_only" })
          )
          expect(served).toMatchObject({ mode: "human_captions_only", credits_used: 1 })
          expect(served.data.transcript.source).toBe("manual")
          const refused = yield* transcribe(server, key, {
            video: videos.autoOnly,
            mode: "human_captions_only"
          })
          expectError(refused, 404, "no_captions")
          expect(yield* balanceOf(server, key)).toBe(4)
          const [failed] = yield* allJobs(server, key)
          expect(failed).toMatchObject({ video_id: videos.autoOnly, status: "failed", credits_used: 0 })
        })
      )

      it.effect("mode=auto on a captioned video serves the captions for 1 credit", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const body = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.germanOnly, mode: "auto" })
          )
          expect(body).toMatchObject({ status: "completed", mode: "auto", credits_used: 1 })
          expect(body.data.transcript).toMatchObject({ language: "de", source: "manual" })
          expect(yield* balanceOf(server, key)).toBe(4)
        })
      )

      it.effect(
        "legacy source=manual is human_captions_only; source=auto (and allow_asr=false) captions_only",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: newAccount })
            const manual = yield* decode(
              Api.TranscribeCompleted,
              yield* transcribe(server, key, { video: videos.manualOnly, source: "manual" })
            )
            expect(manual.mode).toBe("human_captions_only")
            expectError(
              yield* transcribe(server, key, { video: videos.autoOnly, source: "manual" }),
              404,
              "no_captions"
            )
            const auto = yield* decode(
              Api.TranscribeCompleted,
              yield* transcribe(server, key, { video: videos.autoOnly, source: "auto", allow_asr: false })
            )
            expect(auto.mode).toBe("captions_only")
            expect(auto.data.transcript.source).toBe("auto")
            // Legacy source=auto never uses ASR: a video without captions is 404, not a quote.
            expectError(
              yield* transcribe(server, key, { video: videos.noCaptions, source: "auto" }),
              404,
              "no_captions"
            )
            expect(yield* balanceOf(server, key)).toBe(3)
          })
      )

      it.effect("the implicit default of an old account is captions_only", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          expectError(yield* transcribe(server, key, { video: videos.noCaptions }), 404, "no_captions")
          expect(yield* balanceOf(server, key)).toBe(5)
        })
      )
    })

    describe("preferred language", () => {
      it.effect("serves the language asked for when the video has it", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          for (const language of ["de", "fr", "es", "en"]) {
            const body = yield* decode(
              Api.TranscribeCompleted,
              yield* transcribe(server, key, { video: videos.multiLanguage, language })
            )
            expect(body.data.transcript.language).toBe(language)
            expect(body.data.transcript.source).toBe("manual")
            expect(body.data.transcript.text).toBe(
              Transcript.textOf(trackSegments(videos.multiLanguage, language, "manual"))
            )
            expect(body.credits_used).toBe(1)
          }
          expect(yield* balanceOf(server, key)).toBe(6)
        })
      )

      it.effect("falls back to the original language and says so in transcript.language", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          const german = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.germanOnly, language: "es" })
          )
          expect(german.data.transcript).toMatchObject({ language: "de", source: "manual" })
          const english = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.manualAndAuto, language: "ja" })
          )
          expect(english.data.transcript.language).toBe("en")
          // A region-less request matches the regional track (pt → pt-BR).
          const portuguese = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.portuguese, language: "pt" })
          )
          expect(portuguese.data.transcript).toMatchObject({ language: "pt-BR", source: "manual" })
          // The same transcript asked for in another language that falls back to it is owned: free.
          const again = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.germanOnly, language: "fr" })
          )
          expect(again.credits_used).toBe(0)
          expect(again.data.transcript.language).toBe("de")
          expect(yield* balanceOf(server, key)).toBe(7)
        })
      )
    })

    describe("format options", () => {
      it.effect("timestamp=false leaves segments empty; the text stays whole", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const body = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.manualAndAuto, format: { timestamp: false } })
          )
          expect(body.data.transcript.segments).toEqual([])
          expect(body.data.transcript.text).toBe(
            Transcript.textOf(trackSegments(videos.manualAndAuto, "en", "manual"))
          )
          expect(body.data.transcript.paragraphs).toBeNull()
        })
      )

      it.effect("paragraphs=true adds the paragraph groupings, in integer ms", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const body = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.multiLanguage, format: { paragraphs: true } })
          )
          const segments = trackSegments(videos.multiLanguage, "en", "manual")
          const paragraphs = body.data.transcript.paragraphs ?? []
          expect(paragraphs.length).toBeGreaterThan(0)
          expect(paragraphs.map(timed)).toEqual(Transcript.paragraphsOf(segments).map(timed))
          expect(paragraphs[0]?.start).toBe(segments[0]?.start)
          expect(paragraphs.at(-1)?.end).toBe(segments.at(-1)?.end)
          expect(body.data.transcript.segments).toHaveLength(segments.length)
        })
      )

      it.effect("words=true gives words null for captions, which have no word timestamps", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const response = yield* transcribe(server, key, {
            video: videos.manualAndAuto,
            format: { words: true, paragraphs: false, timestamp: true }
          })
          const body = yield* decode(Api.TranscribeCompleted, response)
          expect(body.data.transcript.words).toBeNull()
          const raw = response.json as { data: { transcript: { segments: Array<Record<string, unknown>> } } }
          for (const segment of raw.data.transcript.segments)
            expect(Object.keys(segment).sort()).toEqual(["end", "start", "text"])
        })
      )
    })

    describe("failures", () => {
      it.effect("404 no_captions for a video without captions under captions_only; nothing charged", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: newAccount })
          const response = yield* transcribe(server, key, { video: videos.noCaptions, mode: "captions_only" })
          expectError(response, 404, "no_captions")
          expect(yield* balanceOf(server, key)).toBe(5)
          const [job] = yield* allJobs(server, key)
          expect(job).toMatchObject({ video_id: videos.noCaptions, status: "failed", credits_used: 0 })
          expect(job?.error).toEqual(expect.any(String))
        })
      )

      it.effect("404 video_unavailable for a private video and for an id the platform does not know", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          for (const video of [videos.unavailable, videos.unknown]) {
            expectError(yield* transcribe(server, key, { video }), 404, "video_unavailable")
            expectError(yield* transcribe(server, key, { video, mode: "auto" }), 404, "video_unavailable")
          }
          expect(yield* balanceOf(server, key)).toBe(5)
          const jobs = yield* allJobs(server, key)
          expect(jobs.map((job) => job.status)).toEqual(["failed", "failed", "failed", "failed"])
        })
      )

      it.effect("402 payment_required with 0 credits: nothing stored, the job recorded as failed", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 0, createdAt: oldAccount })
          const response = yield* transcribe(server, key, { video: videos.manualAndAuto })
          expectError(response, 402, "payment_required")
          expect(yield* balanceOf(server, key)).toBe(0)
          expect((yield* transcriptList(server, key)).history).toEqual([])
          expectError(
            yield* server.get(api(`/transcripts/${videos.manualAndAuto}`), { key }),
            404,
            "not_found"
          )
          const jobs = yield* allJobs(server, key)
          expect(jobs).toHaveLength(1)
          expect(jobs[0]).toMatchObject({ video_id: videos.manualAndAuto, status: "failed", credits_used: 0 })
        })
      )
    })

    describe("ASR", () => {
      it.effect("an account created from 2026-10-01 gets a free quote for a video without captions", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { account, key } = yield* server.newAccount({
            plan: "business",
            credits: 10,
            createdAt: newAccount
          })
          expect(account.defaultMode).toBe("auto")
          const response = yield* transcribe(server, key, { video: videos.noCaptions })
          expect(response.status, response.text).toBe(200)
          const body = yield* decode(Api.TranscribeConfirmation, response)
          expect(body).toMatchObject({
            status: "requires_asr_confirmation",
            mode: "auto",
            credits_used: 0,
            base_credits: 8,
            addon_credits: 0,
            estimated_credits: 8,
            duration_minutes: 12,
            max_duration_minutes: 480
          })
          expect(body.job_id).toMatch(uuidPattern)
          expect(body.suggestion).toEqual(expect.any(String))
          // Add-ons are prorated by duration and rounded up once: (6 + 8) per hour × 12 min = 2.8 → 3.
          const withAddOns = yield* decode(
            Api.TranscribeConfirmation,
            yield* transcribe(server, key, {
              video: videos.noCaptions,
              asr_options: { speakerLabels: true, summarization: true }
            })
          )
          expect(withAddOns).toMatchObject({ base_credits: 8, addon_credits: 3, estimated_credits: 11 })
          expect(yield* balanceOf(server, key)).toBe(10)
          expect((yield* transcriptList(server, key)).history).toEqual([])
          const jobs = yield* allJobs(server, key)
          expect(jobs.map((job) => [job.status, job.credits_used])).toEqual([
            ["requires_asr_confirmation", 0],
            ["requires_asr_confirmation", 0]
          ])
          // The same account is served captions where the video has them.
          const captions = yield* decode(
            Api.TranscribeCompleted,
            yield* transcribe(server, key, { video: videos.manualAndAuto })
          )
          expect(captions).toMatchObject({ status: "completed", mode: "auto", credits_used: 1 })
          expect(yield* balanceOf(server, key)).toBe(9)
        })
      )

      it.effect(
        "a stored default applies when the request names no mode: speech_to_text_only quotes even captions",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const speech = yield* server.newAccount({
              plan: "business",
              credits: 10,
              createdAt: oldAccount,
              defaultMode: "speech_to_text_only"
            })
            const quote = yield* decode(
              Api.TranscribeConfirmation,
              yield* transcribe(server, speech.key, { video: videos.manualAndAuto })
            )
            // 92 s: ceil(92 / 90) = 2.
            expect(quote).toMatchObject({
              mode: "speech_to_text_only",
              base_credits: 2,
              estimated_credits: 2
            })
            expect(yield* balanceOf(server, speech.key)).toBe(10)
            const human = yield* server.newAccount({
              plan: "business",
              credits: 10,
              createdAt: newAccount,
              defaultMode: "human_captions_only"
            })
            expectError(yield* transcribe(server, human.key, { video: videos.autoOnly }), 404, "no_captions")
            expectError(
              yield* transcribe(server, human.key, { video: videos.noCaptions }),
              404,
              "no_captions"
            )
          })
      )

      it.effect("without a speech engine, explicit ASR answers 503 asr_unavailable; nothing charged", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          for (const body of [
            { video: videos.noCaptions, mode: "auto" },
            { video: videos.noCaptions, mode: "speech_to_text_only" },
            { video: videos.manualAndAuto, mode: "speech_to_text_only" },
            { video: videos.noCaptions, source: "asr", webhook_url: webhook },
            { video: videos.noCaptions, allow_asr: true, webhook_url: webhook }
          ]) {
            const response = yield* transcribe(server, key, body)
            expectError(response, 503, "asr_unavailable")
            // The message says how to get an engine.
            expect(response.text).toContain("ASSEMBLYAI_API_KEY")
            expect(response.text).toContain("scripts/install-speech.sh")
          }
          expect(yield* balanceOf(server, key)).toBe(10)
          const jobs = yield* allJobs(server, key)
          expect(jobs.map((job) => [job.status, job.credits_used])).toEqual(Array(5).fill(["failed", 0]))
        })
      )

      it.effect("a video longer than 480 minutes answers 200 failed with an error and a suggestion", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 1000, createdAt: newAccount })
          for (const body of [{ video: videos.veryLong, mode: "auto" }, { video: videos.veryLong }]) {
            const response = yield* transcribe(server, key, body)
            expect(response.status, response.text).toBe(200)
            const failed = yield* decode(Api.TranscribeFailed, response)
            expect(failed).toMatchObject({
              status: "failed",
              mode: "auto",
              credits_used: 0,
              duration_minutes: 540,
              max_duration_minutes: 480
            })
            expect(failed.error).toMatch(/480/)
            expect(failed.suggestion).toEqual(expect.any(String))
            expect(failed.job_id).toMatch(uuidPattern)
          }
          expect(yield* balanceOf(server, key)).toBe(1000)
          const jobs = yield* allJobs(server, key)
          expect(jobs.map((job) => job.status)).toEqual(["failed", "failed"])
        })
      )
    })

    describe("jobs", () => {
      it.effect("every request that passes validation is recorded as a job, failures included", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 1, createdAt: newAccount })
          const requests: ReadonlyArray<readonly [unknown, string, number]> = [
            [{ video: videos.manualAndAuto }, "completed", 200],
            [{ video: videos.manualAndAuto }, "completed", 200],
            [{ video: videos.manualOnly }, "failed", 402],
            [{ video: videos.noCaptions, mode: "captions_only" }, "failed", 404],
            [{ video: videos.unavailable }, "failed", 404],
            [{ video: videos.noCaptions }, "requires_asr_confirmation", 200],
            [{ video: videos.noCaptions, mode: "auto" }, "failed", 503],
            [{ video: videos.veryLong, mode: "auto" }, "failed", 200],
            [{ mode: "auto" }, "", 400]
          ]
          const errorJobIds: Array<unknown> = []
          for (const [body, , status] of requests) {
            const response = yield* transcribe(server, key, body)
            expect(response.status).toBe(status)
            if (status >= 400) {
              const details = (response.json as { details: Record<string, unknown> }).details
              if (status === 400) expect(details.job_id).toBeUndefined()
              else errorJobIds.push(details.job_id)
            }
          }
          const jobs = yield* allJobs(server, key)
          // An error answer names the failed job it recorded.
          const failedIds = jobs.filter((job) => job.status === "failed").map((job) => job.job_id)
          for (const id of errorJobIds) expect(failedIds).toContain(id)
          expect(errorJobIds).toHaveLength(4)
          const recorded = requests.filter(([, , status]) => status !== 400)
          expect(jobs.map((job) => job.status)).toEqual(recorded.map(([, status]) => status).reverse())
          expect(jobs.map((job) => job.credits_used)).toEqual([0, 0, 0, 0, 0, 0, 0, 1])
          expect(yield* balanceOf(server, key)).toBe(0)
        })
      )
    })
  }
)
