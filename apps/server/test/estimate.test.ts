/**
 * POST /transcribe/estimate over real HTTP: an ASR quote by default (source asr) with the exact
 * base and prorated add-on figures, a caption quote under a captions mode (1 credit, 0 when owned),
 * 404s for videos it cannot price, 400s naming the field; never a charge and never a job.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"
import {
  allJobs,
  balanceOf,
  decode,
  estimate,
  expectError,
  expectInvalid,
  oldAccount,
  transcribe,
  uuidPattern,
  videos
} from "./support.js"

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "POST /transcribe/estimate over real HTTP",
  (it) => {
    describe("ASR quotes", () => {
      it.effect("quotes ASR by default: base ceil(720 / 90) = 8 for the 12-minute video", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 3, createdAt: oldAccount })
          const response = yield* estimate(server, key, { video: videos.noCaptions })
          expect(response.status, response.text).toBe(200)
          const body = yield* decode(Api.EstimateResponse, response)
          expect(body.request_id).toMatch(uuidPattern)
          expect(response.json).toEqual({
            request_id: body.request_id,
            video_id: videos.noCaptions,
            source: "asr",
            mode: "speech_to_text_only",
            duration_seconds: 720,
            duration_minutes: 12,
            max_duration_minutes: 480,
            exceeds_max_duration: false,
            base_credits: 8,
            addon_credits: 0,
            estimated_credits: 8
          })
        })
      )

      it.effect("prorates add-ons by duration and rounds the surcharge up once", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", createdAt: oldAccount })
          const quote = (asr_options: unknown) =>
            estimate(server, key, { video: videos.noCaptions, asr_options }).pipe(
              Effect.flatMap((response) => decode(Api.EstimateResponse, response))
            )
          // (6 + 8) per hour × 0.2 h = 2.8 → 3.
          expect(yield* quote({ speakerLabels: true, summarization: true })).toMatchObject({
            base_credits: 8,
            addon_credits: 3,
            estimated_credits: 11
          })
          // Every add-on: (6 + 6 + 3 + 8 + 8 + 16 + 22 + 40 + 40) per hour × 0.2 h = 29.8 → 30.
          expect(
            yield* quote({
              speakerLabels: true,
              sentimentAnalysis: true,
              profanityFiltering: true,
              summarization: true,
              customFormatting: true,
              translateTo: "fr",
              piiRedaction: true,
              topicDetection: true,
              contentModeration: true
            })
          ).toMatchObject({ base_credits: 8, addon_credits: 30, estimated_credits: 38 })
          // speakerId implies diarization, billed once with speakerLabels: 6 × 0.2 = 1.2 → 2.
          expect(yield* quote({ speakerLabels: true, speakerId: true })).toMatchObject({
            addon_credits: 2,
            estimated_credits: 10
          })
          // multichannel switches diarization off and costs nothing itself.
          expect(yield* quote({ speakerLabels: true, multichannel: true })).toMatchObject({
            addon_credits: 0,
            estimated_credits: 8
          })
        })
      )

      it.effect("quotes ASR for a captioned video too (source asr), and flags a video over 480 minutes", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", createdAt: oldAccount })
          const captioned = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: `https://youtu.be/${videos.manualAndAuto}` })
          )
          expect(captioned).toMatchObject({
            video_id: videos.manualAndAuto,
            source: "asr",
            duration_seconds: 92,
            duration_minutes: 1.53,
            base_credits: 2,
            estimated_credits: 2
          })
          const long = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: videos.veryLong })
          )
          expect(long).toMatchObject({
            source: "asr",
            duration_seconds: 32400,
            duration_minutes: 540,
            max_duration_minutes: 480,
            exceeds_max_duration: true,
            base_credits: 360,
            estimated_credits: 360
          })
          const explicit = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: videos.noCaptions, mode: "auto" })
          )
          expect(explicit).toMatchObject({ source: "asr", mode: "auto", estimated_credits: 8 })
        })
      )
    })

    describe("caption quotes", () => {
      it.effect("mode=captions_only quotes 1 credit, and 0 once the account owns the transcript", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          const before = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: videos.manualAndAuto, mode: "captions_only" })
          )
          expect(before).toMatchObject({
            source: "manual",
            mode: "captions_only",
            duration_seconds: 92,
            base_credits: 1,
            addon_credits: 0,
            estimated_credits: 1
          })
          expect((yield* transcribe(server, key, { video: videos.manualAndAuto })).status).toBe(200)
          const after = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: videos.manualAndAuto, mode: "captions_only" })
          )
          expect(after).toMatchObject({ base_credits: 0, addon_credits: 0, estimated_credits: 0 })
          // mode=auto on a captioned video serves captions, so it is quoted as captions too.
          const auto = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: videos.autoOnly, mode: "auto" })
          )
          expect(auto).toMatchObject({ source: "auto", mode: "auto", estimated_credits: 1 })
          const legacy = yield* decode(
            Api.EstimateResponse,
            yield* estimate(server, key, { video: videos.manualOnly, source: "manual" })
          )
          expect(legacy).toMatchObject({
            source: "manual",
            mode: "human_captions_only",
            estimated_credits: 1
          })
        })
      )

      it.effect("404 no_captions when the captions mode has nothing to serve; 404 video_unavailable", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", createdAt: oldAccount })
          expectError(
            yield* estimate(server, key, { video: videos.noCaptions, mode: "captions_only" }),
            404,
            "no_captions"
          )
          expectError(
            yield* estimate(server, key, { video: videos.autoOnly, mode: "human_captions_only" }),
            404,
            "no_captions"
          )
          expectError(yield* estimate(server, key, { video: videos.unavailable }), 404, "video_unavailable")
          expectError(yield* estimate(server, key, { video: videos.unknown }), 404, "video_unavailable")
        })
      )
    })

    describe("a dry run", () => {
      it.effect("charges nothing and creates no job, even with 0 credits", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 0, createdAt: oldAccount })
          for (const body of [
            { video: videos.noCaptions },
            { video: videos.veryLong, asr_options: { summarization: true } },
            { video: videos.manualAndAuto, mode: "captions_only" },
            { video: videos.noCaptions, mode: "captions_only" },
            { video: videos.unavailable },
            { video: "nope" }
          ]) {
            const response = yield* estimate(server, key, body)
            expect(response.status).not.toBe(402)
          }
          expect(yield* balanceOf(server, key)).toBe(0)
          expect(yield* allJobs(server, key)).toEqual([])
        })
      )

      it.effect("leaves the job list of an active account unchanged", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 4, createdAt: oldAccount })
          expect((yield* transcribe(server, key, { video: videos.manualOnly })).status).toBe(200)
          const jobs = yield* allJobs(server, key)
          for (let i = 0; i < 3; i++) {
            expect(
              (yield* estimate(server, key, { video: videos.multiLanguage, mode: "captions_only" })).status
            ).toBe(200)
          }
          expect(yield* allJobs(server, key)).toEqual(jobs)
          expect(yield* balanceOf(server, key)).toBe(3)
        })
      )
    })

    describe("validation", () => {
      it.effect("answers 400 invalid_request naming the field", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", createdAt: oldAccount })
          const v = videos.noCaptions
          const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string | number>]> = [
            [{}, ["video"]],
            [{ video: "" }, ["video"]],
            [{ video: 12 }, ["video"]],
            [{ video: "https://example.com/video.mp4" }, ["video"]],
            [{ video: v, mode: "auto", source: "asr" }, ["source"]],
            [{ video: v, mode: "cheap" }, ["mode"]],
            [{ video: v, source: "platform" }, ["source"]],
            [{ video: v, asr_options: { speakersExpected: 21 } }, ["asr_options", "speakersExpected"]],
            [
              { video: v, asr_options: { keyTerms: Array.from({ length: 201 }, () => "term") } },
              ["asr_options", "keyTerms"]
            ],
            [
              {
                video: v,
                asr_options: { speakerLabels: true, speakersExpectedMin: 4, speakersExpectedMax: 3 }
              },
              ["asr_options", "speakersExpectedMin"]
            ],
            [{ video: v, asr_options: { summarization: "yes" } }, ["asr_options", "summarization"]]
          ]
          for (const [body, path] of cases) expectInvalid(yield* estimate(server, key, body), path)
        })
      )
    })
  }
)
