/**
 * Speech recognition and uploads over real HTTP, on the production wiring with the embedded worker
 * and the AssemblyAI adapter talking to its local stand-in (real HTTP on loopback): the ASR path of
 * POST /transcribe (202, polling, 200 with words and asr_intelligence, the webhook), credits charged
 * once as quoted, refusals before any charge (402, 404, 409), engine failures uncharged, the legacy
 * pair source=manual + allow_asr=true, and the upload flow (POST /uploads, PUT to signed_url,
 * complete, transcribe with upload_id). Run on the in-memory queue, and on Redis when REDIS_URL is
 * set (with PostgreSQL when DATABASE_URL is).
 */
import { readFileSync } from "node:fs"
import { describe, expect, layer } from "@effect/vitest"
import { AssemblyAiStandIn, standInEngine, wav } from "@verbatim/assemblyai/testing"
import { AccountAdmin, BlobStore, Ledger } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { defaultSettings, PocketsphinxSpeech } from "@verbatim/pocketsphinx"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { Webhook } from "standardwebhooks"
import { webhookReceiver } from "./receiver.js"
import { TestServer, type TestServerService, testServerOn } from "./server.js"
import {
  api,
  balanceOf,
  decode,
  expectError,
  expectInvalid,
  oldAccount,
  transcribe,
  videos
} from "./support.js"

/** Demo videos with speech (media files) and no captions. */
const speech = { welcome: "Wv5SpkDmo1A", kitchen: "Kt9SpkDmo2B" } as const
const welcomeWav = readFileSync(new URL("../../../packages/demo-platform/media/welcome.wav", import.meta.url))
const heard = "Welcome to Verbatim. This is a short test of speech recognition on a small computer."

const serverWith = (options: { readonly redisPrefix?: string } = {}) =>
  Layer.unwrapEffect(
    Effect.map(AssemblyAiStandIn, (standIn) => testServerOn({ ...options, speech: standInEngine(standIn) }))
  ).pipe(Layer.provideMerge(AssemblyAiStandIn.layer({ recognise: () => heard, pollsUntilDone: 1 })))

const JobBody = Schema.Union(Api.JobFinished, Api.JobProcessing)

const pollJob = (server: TestServerService, key: string, jobId: string, query = "") =>
  eventually(
    `job ${jobId} to finish`,
    Effect.gen(function* () {
      const response = yield* server.get(api(`/jobs/${jobId}${query}`), { key })
      if (response.status === 202) return Option.none()
      expect(response.status, response.text).toBe(200)
      return Option.some(yield* decode(JobBody, response))
    })
  )

const started = (response: { readonly status: number; readonly text: string; readonly json: unknown }) =>
  Effect.sync(() => {
    expect(response.status, response.text).toBe(202)
    const body = Schema.decodeUnknownSync(Api.TranscribeProcessing)(response.json)
    expect(body).toMatchObject({ status: "processing", credits_used: 0 })
    return body
  })

const receiver = webhookReceiver()

/** GET /credits, decoded: the available balance and the held credits. */
const credits = (server: TestServerService, key: string) =>
  Effect.flatMap(server.get(api("/credits"), { key }), (response) => decode(Api.CreditsResponse, response))

const put = (url: string, body: Uint8Array, contentType: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "PUT", headers: { "content-type": contentType }, body })
    return { status: response.status, json: (await response.json()) as unknown }
  })

const suite = (name: string, options: { readonly redisPrefix?: string }) =>
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(serverWith(options), { timeout: "90 seconds", excludeTestServices: true })(name, (it) => {
    const account = (credits: number) =>
      Effect.flatMap(TestServer, (server) =>
        server.newAccount({ plan: "business", credits, createdAt: oldAccount })
      )

    describe("the ASR path of POST /transcribe", () => {
      it.effect(
        "a captionless video: 202, polled to 200 with segments and words, charged once as quoted",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { account: owner, key } = yield* account(10)
            const quote = Schema.decodeUnknownSync(Api.EstimateResponse)(
              (yield* server.post(api("/transcribe/estimate"), {
                key,
                json: { video: speech.welcome, mode: "speech_to_text_only" }
              })).json
            )
            const body = yield* started(
              yield* transcribe(server, key, {
                video: speech.welcome,
                mode: "speech_to_text_only",
                format: { words: true, paragraphs: true }
              })
            )
            expect(body.estimated_credits).toBe(quote.estimated_credits)
            const job = yield* pollJob(
              server,
              key,
              body.job_id,
              "?include_words=true&include_paragraphs=true"
            )
            expect(job.status, JSON.stringify(job)).toBe("completed")
            if (job.status !== "completed") return
            expect(job.credits_used).toBe(quote.estimated_credits)
            expect(job.credits_used).toBeGreaterThan(0)
            const transcript = job.data.transcript
            expect(transcript).toMatchObject({ source: "asr", language: "en", text: heard })
            expect(transcript.segments.length).toBeGreaterThan(0)
            expect(transcript.words?.map((w) => w.text).join(" ")).toBe(heard)
            // Paragraphs are made from the recognised segments, as for captions.
            expect(transcript.paragraphs?.map((p) => p.text).join(" ")).toBe(heard)
            expect(job.data.video_id).toBe(speech.welcome)
            // Deleted at AssemblyAI once read: nothing of it is left there.
            expect((yield* AssemblyAiStandIn).live()).toEqual([])
            expect(yield* balanceOf(server, key)).toBe(10 - quote.estimated_credits)
            const ledger = yield* Ledger
            expect(yield* ledger.balance(owner.id)).toBe(10 - quote.estimated_credits)
            // The stored transcript is listed as speech recognition.
            const stored = yield* server.get(api(`/transcripts/${speech.welcome}`), { key })
            expect(stored.status, stored.text).toBe(200)
            expect(stored.json).toMatchObject({ video_id: speech.welcome })
          })
      )

      it.effect("an owned ASR transcript is served again for 0 credits (200 completed)", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(10)
          const first = yield* started(
            yield* transcribe(server, key, { video: speech.kitchen, mode: "auto" })
          )
          yield* pollJob(server, key, first.job_id)
          const balance = yield* balanceOf(server, key)
          const again = yield* transcribe(server, key, { video: speech.kitchen, mode: "auto" })
          expect(again.status, again.text).toBe(200)
          expect(again.json).toMatchObject({ status: "completed", credits_used: 0 })
          expect(yield* balanceOf(server, key)).toBe(balance)
        })
      )

      it.effect("asr_intelligence is filled for the features asked, and they are charged", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(20)
          const request = {
            video: speech.welcome,
            mode: "speech_to_text_only",
            asr_options: { summarization: true, sentimentAnalysis: true }
          }
          const quote = Schema.decodeUnknownSync(Api.EstimateResponse)(
            (yield* server.post(api("/transcribe/estimate"), { key, json: request })).json
          )
          const body = yield* started(yield* transcribe(server, key, request))
          const job = yield* pollJob(server, key, body.job_id)
          expect(job.status, JSON.stringify(job)).toBe("completed")
          if (job.status !== "completed") return
          expect(job.data.asr_intelligence?.summary).toEqual(expect.any(String))
          expect(job.data.asr_intelligence?.sentiment?.length).toBeGreaterThan(0)
          expect(job.data.asr_intelligence?.topics ?? null).toBeNull()
          expect(job.credits_used).toBe(quote.estimated_credits)
          expect(yield* balanceOf(server, key)).toBe(20 - quote.estimated_credits)
        })
      )

      it.effect(
        "translateTo: the translation is stored beside the transcript in its language, charged with the job",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* account(20)
            const request = {
              video: speech.kitchen,
              mode: "speech_to_text_only",
              asr_options: { translateTo: "fr" }
            }
            const quote = Schema.decodeUnknownSync(Api.EstimateResponse)(
              (yield* server.post(api("/transcribe/estimate"), { key, json: request })).json
            )
            expect(quote.addon_credits).toBeGreaterThanOrEqual(0)
            const body = yield* started(yield* transcribe(server, key, request))
            const job = yield* pollJob(server, key, body.job_id)
            expect(job).toMatchObject({ status: "completed", credits_used: quote.estimated_credits })
            if (job.status !== "completed") return
            expect(job.data.transcript.language).toBe("en")
            const french = yield* server.get(api(`/transcripts/${speech.kitchen}?language=fr`), { key })
            expect(french.status, french.text).toBe(200)
            expect(french.json).toMatchObject({ language: "fr" })
            expect(french.text).toContain(`[fr] ${heard}`)
            expect(yield* balanceOf(server, key)).toBe(20 - quote.estimated_credits)
          })
      )

      it.effect(
        "a video over the 480-minute limit is refused before any work: 200 failed, no audio sent, nothing charged",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const standIn = yield* AssemblyAiStandIn
            const { key } = yield* account(1000)
            const before = standIn.requests.length
            for (const request of [
              { video: videos.veryLong, mode: "speech_to_text_only" },
              { video: videos.veryLong, mode: "auto" },
              { video: videos.veryLong, source: "asr", webhook_url: "https://hooks.example.com/x" }
            ]) {
              const response = yield* transcribe(server, key, request)
              expect(response.status, response.text).toBe(200)
              expect(response.json).toMatchObject({
                status: "failed",
                credits_used: 0,
                duration_minutes: 540,
                max_duration_minutes: 480
              })
            }
            // The engine never heard of it, and no job is left to run.
            expect(standIn.requests.length).toBe(before)
            const jobs = yield* server.get(api("/jobs?status=processing"), { key })
            expect(jobs.json).toMatchObject({ count: 0 })
            expect(yield* balanceOf(server, key)).toBe(1000)
          })
      )

      it.effect("402 when the balance cannot cover the quote: no job started, nothing charged", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(0)
          expectError(
            yield* transcribe(server, key, { video: speech.welcome, mode: "speech_to_text_only" }),
            402,
            "payment_required"
          )
          expect(yield* balanceOf(server, key)).toBe(0)
        })
      )

      it.effect("the quote is held while the job runs: credits it holds cannot be spent meanwhile", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const standIn = yield* AssemblyAiStandIn
          const { key } = yield* account(1)
          standIn.inject({ kind: "delay", ms: 1_500, times: 1, on: "upload" })
          const body = yield* started(
            yield* transcribe(server, key, { video: speech.welcome, mode: "speech_to_text_only" })
          )
          expect(yield* credits(server, key)).toMatchObject({ credits: 0, held_credits: 1 })
          // The held credit cannot go to captions while the recognition runs.
          expectError(
            yield* transcribe(server, key, { video: videos.manualAndAuto, mode: "captions_only" }),
            402,
            "payment_required"
          )
          const job = yield* pollJob(server, key, body.job_id)
          expect(job).toMatchObject({ status: "completed", credits_used: 1 })
          expect(yield* credits(server, key)).toMatchObject({ credits: 0, held_credits: 0 })
        })
      )

      it.effect(
        "8 parallel ASR transcribes of captionless videos on 1 credit: one 202, seven 402, one engine run",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const standIn = yield* AssemblyAiStandIn
            const { key } = yield* account(1)
            const runs = () => standIn.requests.filter((request) => request.route === "create").length
            const before = runs()
            const answers = yield* Effect.all(
              Array.from({ length: 8 }, (_, i) =>
                transcribe(server, key, {
                  video: i % 2 === 0 ? speech.welcome : speech.kitchen,
                  mode: "speech_to_text_only"
                })
              ),
              { concurrency: "unbounded" }
            )
            const accepted = answers.filter((answer) => answer.status === 202)
            expect(answers.map((answer) => answer.status).sort()).toEqual([
              202, 402, 402, 402, 402, 402, 402, 402
            ])
            for (const answer of answers) {
              if (answer.status === 402) expectError(answer, 402, "payment_required")
            }
            const [first] = accepted
            if (first === undefined) return
            const job = yield* pollJob(server, key, (yield* started(first)).job_id)
            expect(job).toMatchObject({ status: "completed", credits_used: 1 })
            expect(runs() - before).toBe(1)
            expect(yield* credits(server, key)).toMatchObject({ credits: 0, held_credits: 0 })
          })
      )

      it.scoped(
        "a speech_to_text_only batch: 402 up front below 1 credit per video; each item holds its quote as it starts, so only what the balance covers runs",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const standIn = yield* AssemblyAiStandIn
            const hook = yield* receiver
            const body = {
              video_ids: [speech.welcome, speech.kitchen],
              mode: "speech_to_text_only",
              // Diarization makes each 5-second video's quote 2 credits.
              asr_options: { speakerLabels: true },
              webhook_url: hook.url
            }
            const poor = yield* account(1)
            expectError(
              yield* server.post(api("/batch"), { key: poor.key, json: body }),
              402,
              "payment_required"
            )
            expect(yield* credits(server, poor.key)).toMatchObject({ credits: 1, held_credits: 0 })

            const { key } = yield* account(3)
            const runs = () => standIn.requests.filter((request) => request.route === "create").length
            const before = runs()
            const posted = yield* server.post(api("/batch"), { key, json: body })
            expect(posted.status, posted.text).toBe(202)
            const batch = Schema.decodeUnknownSync(Api.BatchProcessing)(posted.json)
            const done = yield* eventually(
              `batch ${batch.batch_id} to finish`,
              Effect.gen(function* () {
                const response = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
                if (response.status === 202) return Option.none()
                expect(response.status, response.text).toBe(200)
                return Option.some(Schema.decodeUnknownSync(Api.BatchFinished)(response.json))
              })
            )
            expect(done.status).toBe("partial")
            const statuses = done.results.map((result) => result.status).sort()
            expect(statuses).toEqual(["completed", "failed"])
            const failed = done.results.find((result) => result.status === "failed")
            expect(failed?.error).toMatch(/needs 2 credits and the balance is 1/)
            expect(done.credits_used).toBe(2)
            expect(runs() - before).toBe(1)
            expect(yield* credits(server, key)).toMatchObject({ credits: 1, held_credits: 0 })
          })
      )

      it.effect("audio the platform cannot give: the job fails, uncharged", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(50)
          const body = yield* started(
            yield* transcribe(server, key, { video: videos.noCaptions, mode: "speech_to_text_only" })
          )
          const job = yield* pollJob(server, key, body.job_id)
          expect(job).toMatchObject({ status: "failed", credits_used: 0 })
          expect(yield* balanceOf(server, key)).toBe(50)
        })
      )

      it.effect(
        "an engine that fails for good ends the job failed; a busy one (429) is retried to completion, charged once",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const standIn = yield* AssemblyAiStandIn
            const { key } = yield* account(10)
            standIn.recognise(() => ({ text: "" }))
            standIn.inject({ kind: "status", status: 500, times: 1, on: "create", error: "boom" })
            const failing = yield* started(
              yield* transcribe(server, key, { video: speech.welcome, mode: "speech_to_text_only" })
            )
            const failed = yield* pollJob(server, key, failing.job_id)
            expect(failed).toMatchObject({ status: "failed", credits_used: 0 })
            standIn.recognise(() => heard)
            standIn.inject({ kind: "status", status: 429, times: 2, retryAfterSeconds: 0, on: "upload" })
            const busy = yield* started(
              yield* transcribe(server, key, { video: speech.welcome, mode: "speech_to_text_only" })
            )
            const done = yield* pollJob(server, key, busy.job_id)
            expect(done.status).toBe("completed")
            expect(yield* balanceOf(server, key)).toBe(10 - done.credits_used)
          })
      )

      it.scoped("the webhook receives the finished job, signed", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const hook = yield* receiver
          const { account: owner, key } = yield* account(10)
          const body = yield* started(
            yield* transcribe(server, key, { video: speech.kitchen, source: "asr", webhook_url: hook.url })
          )
          yield* eventually(
            "the webhook",
            Effect.sync(() => Option.fromNullable(hook.received[0]))
          )
          const delivery = hook.received[0]
          if (delivery === undefined) return expect.unreachable("a delivery")
          const secret = yield* (yield* AccountAdmin).webhookSecret(owner.id, false).pipe(Effect.orDie)
          // Throws when the signature does not verify.
          const payload = new Webhook(Redacted.value(secret)).verify(delivery.body, delivery.headers)
          expect(payload).toMatchObject({ job_id: body.job_id, status: "completed", credits_used: 1 })
        })
      )

      it.effect(
        "legacy source=manual + allow_asr=true: human captions when there are, else speech recognition",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* account(10)
            const legacy = {
              source: "manual",
              allow_asr: true,
              webhook_url: "https://hooks.example.com/verbatim"
            }
            const captions = yield* transcribe(server, key, { ...legacy, video: videos.manualAndAuto })
            expect(captions.status, captions.text).toBe(200)
            expect(captions.json).toMatchObject({
              status: "completed",
              data: { transcript: { source: "manual" } }
            })
            // Only an auto track: not human, so speech recognition starts.
            yield* started(yield* transcribe(server, key, { ...legacy, video: videos.autoOnly }))
            yield* started(yield* transcribe(server, key, { ...legacy, video: speech.welcome }))
          })
      )
    })

    describe("uploads", () => {
      const createUpload = (
        server: TestServerService,
        key: string,
        overrides: Record<string, unknown> = {}
      ) =>
        server.post(api("/uploads"), {
          key,
          json: {
            filename: "welcome.wav",
            mime_type: "audio/wav",
            size_bytes: welcomeWav.length,
            duration_sec: 5,
            ...overrides
          }
        })

      it.scoped(
        "upload, PUT, complete, transcribe with upload_id: 202, then 200 with video_id = upload id",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const hook = yield* receiver
            const { key } = yield* account(10)
            const created = yield* createUpload(server, key)
            expect(created.status, created.text).toBe(200)
            const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(created.json)
            expect(upload.signed_url).toContain(upload.token)
            expect(upload.signed_url.startsWith(server.baseUrl)).toBe(true)

            // Transcribing before the bytes arrived: 409; completing before they arrived: 400.
            expectError(
              yield* transcribe(server, key, { upload_id: upload.upload_id, webhook_url: hook.url }),
              409,
              "conflict"
            )
            expectError(
              yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key }),
              400,
              "invalid_request"
            )

            const stored = yield* put(upload.signed_url, welcomeWav, "audio/wav")
            expect(stored.status, JSON.stringify(stored.json)).toBe(200)
            const completed = yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })
            expect(completed.status, completed.text).toBe(200)
            expect(completed.json).toEqual({
              upload_id: upload.upload_id,
              status: "uploaded",
              filename: "welcome.wav",
              duration_sec: 5
            })
            // A second complete before consumption answers 200 again (decision 12).
            expect((yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })).status).toBe(
              200
            )
            // Completed: the signed URL takes no more bytes.
            const replaced = yield* put(upload.signed_url, welcomeWav, "audio/wav")
            expect(replaced.status).toBe(409)
            expect(replaced.json).toMatchObject({ error: "conflict", details: { refusal: "completed" } })

            const body = yield* started(
              yield* transcribe(server, key, { upload_id: upload.upload_id, webhook_url: hook.url })
            )
            const job = yield* pollJob(server, key, body.job_id)
            expect(job.status, JSON.stringify(job)).toBe("completed")
            if (job.status !== "completed") return
            expect(job.data.video_id).toBe(upload.upload_id)
            expect(job.data.transcript).toMatchObject({ source: "asr", text: heard })
            expect(yield* balanceOf(server, key)).toBe(10 - job.credits_used)

            // The file goes once its job ended (the worker sweeps on its reconcile rhythm).
            yield* eventually(
              "the transcribed upload's file to be removed",
              Effect.flatMap(BlobStore, (blobs) =>
                Effect.map(blobs.stat(upload.path), (found) =>
                  Option.isNone(found) ? Option.some(true) : Option.none()
                )
              )
            )
            // Ended and swept: the same URL answers 409 and writes nothing (a presigned URL outlives its upload).
            const again = yield* put(upload.signed_url, welcomeWav, "audio/wav")
            expect(again.status).toBe(409)
            expect(again.json).toMatchObject({ error: "conflict", details: { refusal: "transcribed" } })
            const blobs = yield* BlobStore
            expect(yield* blobs.stat(upload.path)).toEqual(Option.none())
            // Consumed: complete and transcribe answer 409.
            expectError(
              yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key }),
              409,
              "conflict"
            )
            expectError(
              yield* transcribe(server, key, { upload_id: upload.upload_id, webhook_url: hook.url }),
              409,
              "conflict"
            )
          })
      )

      it.scoped(
        "8 parallel transcribes of 8 uploads on 1 credit: one 202, seven 402, one engine run; the 7 uploads kept",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const standIn = yield* AssemblyAiStandIn
            const hook = yield* receiver
            const { key } = yield* account(1)
            const uploads = yield* Effect.forEach(Array.from({ length: 8 }), () =>
              Effect.gen(function* () {
                const created = yield* createUpload(server, key)
                expect(created.status, created.text).toBe(200)
                const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(created.json)
                expect((yield* put(upload.signed_url, welcomeWav, "audio/wav")).status).toBe(200)
                const completed = yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })
                expect(completed.status, completed.text).toBe(200)
                return upload.upload_id
              })
            )
            const runs = () => standIn.requests.filter((request) => request.route === "create").length
            const before = runs()
            const answers = yield* Effect.all(
              uploads.map((id) => transcribe(server, key, { upload_id: id, webhook_url: hook.url })),
              { concurrency: "unbounded" }
            )
            expect(answers.map((answer) => answer.status).sort()).toEqual([
              202, 402, 402, 402, 402, 402, 402, 402
            ])
            const refused = uploads.filter((_, i) => answers[i]?.status === 402)
            for (const answer of answers) {
              if (answer.status === 402) expectError(answer, 402, "payment_required")
            }
            const first = answers.find((answer) => answer.status === 202)
            if (first === undefined) return
            const job = yield* pollJob(server, key, (yield* started(first)).job_id)
            expect(job).toMatchObject({ status: "completed", credits_used: 1 })
            expect(runs() - before).toBe(1)
            expect(yield* credits(server, key)).toMatchObject({ credits: 0, held_credits: 0 })
            // A refused transcribe consumed nothing: each refused upload can still be transcribed.
            for (const id of refused) {
              const again = yield* server.post(api(`/uploads/${id}/complete`), { key })
              expect(again.status, again.text).toBe(200)
            }
          })
      )

      it.effect("400 for a bad type, size or duration, naming the field", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(10)
          expectInvalid(yield* createUpload(server, key, { mime_type: "text/plain" }), ["mime_type"])
          expectInvalid(yield* createUpload(server, key, { size_bytes: 0 }), ["size_bytes"])
          expectInvalid(yield* createUpload(server, key, { size_bytes: 2_147_483_649 }), ["size_bytes"])
          expectInvalid(yield* createUpload(server, key, { duration_sec: 28_801 }), ["duration_sec"])
          // The limits are inclusive.
          expect(
            (yield* createUpload(server, key, { size_bytes: 2_147_483_648, duration_sec: 28_800 })).status
          ).toBe(200)
        })
      )

      it.effect("404 for an unknown upload or another account's", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const mine = yield* account(10)
          const theirs = yield* account(10)
          const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(
            (yield* createUpload(server, mine.key)).json
          )
          expectError(
            yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key: theirs.key }),
            404,
            "not_found"
          )
          expectError(
            yield* server.post(api("/uploads/00000000-0000-4000-8000-000000000000/complete"), {
              key: mine.key
            }),
            404,
            "not_found"
          )
          expectError(
            yield* transcribe(server, theirs.key, {
              upload_id: upload.upload_id,
              webhook_url: "https://hooks.example.com/x"
            }),
            404,
            "not_found"
          )
        })
      )

      /** POST /transcribe of an upload, with the webhook it needs. */
      const transcribeUpload = (server: TestServerService, key: string, uploadId: string) =>
        transcribe(server, key, { upload_id: uploadId, webhook_url: "https://hooks.example.com/x" })

      const uploaded = (server: TestServerService, key: string, overrides: Record<string, unknown> = {}) =>
        Effect.gen(function* () {
          const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(
            (yield* createUpload(server, key, overrides)).json
          )
          expect((yield* put(upload.signed_url, welcomeWav, "audio/wav")).status).toBe(200)
          expect((yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })).status).toBe(200)
          return upload
        })

      it.effect("transcribing an upload needs a webhook_url: 400 naming it, the upload not consumed", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(10)
          const upload = yield* uploaded(server, key)
          expectInvalid(yield* transcribe(server, key, { upload_id: upload.upload_id }), ["webhook_url"])
          expectInvalid(
            yield* transcribe(server, key, { upload_id: upload.upload_id, mode: "speech_to_text_only" }),
            ["webhook_url"]
          )
          // Still uploaded: complete answers 200 again, and a request with a webhook starts the job.
          expect((yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })).status).toBe(200)
          yield* started(yield* transcribeUpload(server, key, upload.upload_id))
          // Only the started job took its quote (1 credit): held while it runs, charged once it ends.
          expect(yield* balanceOf(server, key)).toBe(9)
        })
      )

      it.effect(
        "audio longer than the duration_sec it was declared and quoted with: the job fails, uncharged",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* account(10)
            // welcome.wav lasts 4.96 s: declared as 2 s it is more than 2 s longer than declared.
            const short = yield* uploaded(server, key, { duration_sec: 2 })
            const body = yield* started(yield* transcribeUpload(server, key, short.upload_id))
            const job = yield* pollJob(server, key, body.job_id)
            expect(job).toMatchObject({ status: "failed", credits_used: 0 })
            if (job.status === "failed") expect(job.error).toMatch(/duration_sec of 2/)
            expect(yield* balanceOf(server, key)).toBe(10)
            // Declared as 4 s (rounded down, within the slack) it is transcribed and charged as quoted.
            const rounded = yield* uploaded(server, key, { duration_sec: 4 })
            const fair = yield* started(yield* transcribeUpload(server, key, rounded.upload_id))
            const done = yield* pollJob(server, key, fair.job_id)
            expect(done).toMatchObject({ status: "completed", credits_used: fair.estimated_credits })
            expect(yield* balanceOf(server, key)).toBe(10 - fair.estimated_credits)
          })
      )

      it.effect("the signed URL takes only the signed type and size, and no forged token", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(10)
          const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(
            (yield* createUpload(server, key)).json
          )
          expect((yield* put(upload.signed_url, welcomeWav, "video/mp4")).status).toBe(400)
          expect((yield* put(upload.signed_url, welcomeWav.subarray(0, 100), "audio/wav")).status).toBe(400)
          const forged = upload.signed_url.slice(0, -2) + (upload.signed_url.endsWith("A") ? "BB" : "AA")
          expect((yield* put(forged, welcomeWav, "audio/wav")).status).toBe(403)
          // Nothing half-written: the file is still not in storage.
          expectError(
            yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key }),
            400,
            "invalid_request"
          )
        })
      )

      it.effect("a file of generated speech-like bytes goes through the same flow", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* account(10)
          const bytes = wav({ durationMs: 2_000 })
          const upload = Schema.decodeUnknownSync(Api.UploadCreateResponse)(
            (yield* createUpload(server, key, {
              size_bytes: bytes.length,
              duration_sec: 2,
              filename: "two.wav"
            })).json
          )
          const stored = yield* put(upload.signed_url, bytes, "audio/wav")
          expect(stored.status, `${upload.signed_url} ${JSON.stringify(stored.json)}`).toBe(200)
          expect((yield* server.post(api(`/uploads/${upload.upload_id}/complete`), { key })).status).toBe(200)
          const body = yield* started(
            yield* transcribe(server, key, {
              upload_id: upload.upload_id,
              mode: "speech_to_text_only",
              webhook_url: "https://hooks.example.com/x"
            })
          )
          const job = yield* pollJob(server, key, body.job_id)
          expect(job.status).toBe("completed")
        })
      )
    })
  })

suite("speech recognition and uploads (in-memory queue)", {})
if (process.env.REDIS_URL) {
  suite("speech recognition and uploads (Redis)", {
    redisPrefix: `verbatim-test-asr-${process.pid}-${Date.now()}:`
  })
}

// The embedded default's own engine, as `pnpm start` runs it (installed by scripts/install-speech.sh).
// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ speech: PocketsphinxSpeech.layer(defaultSettings) }), {
  timeout: "120 seconds",
  excludeTestServices: true
})("speech recognition with pocketsphinx (the embedded default)", (it) => {
  it.effect("transcribes a captionless demo video from its audio; the words heard are the words said", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const body = yield* started(
        yield* transcribe(server, key, {
          video: speech.welcome,
          mode: "speech_to_text_only",
          format: { words: true }
        })
      )
      const job = yield* pollJob(server, key, body.job_id, "?include_words=true")
      expect(job.status, JSON.stringify(job)).toBe("completed")
      if (job.status !== "completed") return
      const said = heard.toLowerCase().match(/[a-z]+/g) ?? []
      const got = new Set(job.data.transcript.text.toLowerCase().match(/[a-z]+/g) ?? [])
      // pocketsphinx hears this clip almost perfectly (WER bounds: packages/pocketsphinx tests).
      expect(said.filter((word) => got.has(word)).length).toBeGreaterThanOrEqual(said.length - 3)
      expect(job.data.transcript.words?.length).toBeGreaterThan(5)
      expect(job.credits_used).toBe(body.estimated_credits)
      expect(yield* balanceOf(server, key)).toBe(5 - job.credits_used)
    })
  )

  it.effect(
    "refuses an option the engine cannot honour before anything is charged: 400 naming the option and the engine",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
        const response = yield* transcribe(server, key, {
          video: speech.welcome,
          mode: "speech_to_text_only",
          asr_options: { speakerLabels: true }
        })
        expectInvalid(response, ["asr_options", "speakerLabels"])
        expect(response.text).toContain("pocketsphinx")
        expect(yield* balanceOf(server, key)).toBe(5)
      })
  )
})
