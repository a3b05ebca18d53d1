/**
 * POST /batch and GET /batch/{batch_id} over real HTTP on the production wiring with the embedded
 * worker: 202 at once with an empty result list, items run by the worker as transcribe requests,
 * 200 once finished with one result per video (completed, partial or failed by DESIGN decision 3),
 * duplicates charged once, the plan's size and the known caption cost checked first (400, 402),
 * another account's batch 404, the finished batch delivered once to its webhook, signed, the
 * 61st fetch of a finished batch 429 with Retry-After, and a processing batch polled without
 * transcript data (every item's status, job and credits; the data once the batch finished).
 */
import { expect, layer } from "@effect/vitest"
import { AccountAdmin, VideoPlatform } from "@verbatim/core"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Api } from "@verbatim/domain"
import { demoPlatform } from "@verbatim/runtime"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { Webhook } from "standardwebhooks"
import { webhookReceiver } from "./receiver.js"
import { TestServer, TestServerLive, type TestServerService, testServerOn } from "./server.js"
import { api, balanceOf, expectError, expectInvalid, oldAccount, videos } from "./support.js"

const Batch = Schema.Union(Api.BatchFinished, Api.BatchProcessing)

const postBatch = (server: TestServerService, key: string, json: unknown) =>
  server.post(api("/batch"), { key, json })

const finished = (server: TestServerService, key: string, id: string) =>
  eventually(
    `batch ${id} to finish`,
    Effect.gen(function* () {
      const response = yield* server.get(api(`/batch/${id}`), { key })
      if (response.status === 202) return Option.none()
      expect(response.status, response.text).toBe(200)
      return Option.some(Schema.decodeUnknownSync(Api.BatchFinished)(response.json))
    })
  )

const accepted = (response: { readonly status: number; readonly text: string; readonly json: unknown }) => {
  expect(response.status, response.text).toBe(202)
  return Schema.decodeUnknownSync(Api.BatchProcessing)(response.json)
}

const receiver = webhookReceiver("/batch-hook")

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })("batches", (it) => {
  it.effect(
    "202 at once, then 200 with one result per video: duplicates charged once, a bad reference failed",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 10, createdAt: oldAccount })
        const ids = [
          videos.manualAndAuto,
          videos.multiLanguage,
          `https://youtu.be/${videos.manualAndAuto}`,
          videos.autoOnly,
          "not a video"
        ]
        const batch = accepted(yield* postBatch(server, key, { video_ids: ids, mode: "captions_only" }))
        expect(batch).toMatchObject({
          status: "processing",
          results: [],
          summary: { total: 5, succeeded: 0, failed: 0, processing: 5 },
          credits_used: 0,
          webhook_delivered: false,
          webhook_attempts: 0
        })
        expect(batch.poll_url).toBe(`${server.baseUrl}/api/v2/batch/${batch.batch_id}`)

        const done = yield* finished(server, key, batch.batch_id)
        expect(done.status).toBe("partial")
        expect(done.summary).toEqual({ total: 5, succeeded: 4, failed: 1, processing: 0 })
        expect(done.results.map((r) => [r.video_id, r.status])).toEqual([
          [videos.manualAndAuto, "completed"],
          [videos.multiLanguage, "completed"],
          [videos.manualAndAuto, "completed"],
          [videos.autoOnly, "completed"],
          ["not a video", "failed"]
        ])
        expect(done.results[4]?.job_id).toBeNull()
        expect(done.results[4]?.error).toMatch(/names no video/)
        expect(done.results[0]?.data?.transcript.segments.length).toBeGreaterThan(0)
        // Three distinct videos, one credit each; the duplicate is served as owned.
        expect(done.credits_used).toBe(3)
        expect(done.results.map((r) => r.credits_used).sort()).toEqual([0, 0, 1, 1, 1])
        expect(yield* balanceOf(server, key)).toBe(7)
        expect(done.completed_at).not.toBeNull()
        // Each completed item is a job of the account.
        const job = yield* server.get(api(`/jobs/${done.results[1]?.job_id}`), { key })
        expect(job.status).toBe(200)
      })
  )

  it.effect("every item failing makes a failed batch; every item succeeding a completed one", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "pro", credits: 10, createdAt: oldAccount })
      const failed = accepted(
        yield* postBatch(server, key, {
          video_ids: [videos.noCaptions, videos.unavailable],
          mode: "captions_only"
        })
      )
      const doneFailed = yield* finished(server, key, failed.batch_id)
      expect(doneFailed.status).toBe("failed")
      expect(doneFailed.results.map((r) => r.status)).toEqual(["failed", "failed"])
      expect(doneFailed.credits_used).toBe(0)
      const completed = accepted(yield* postBatch(server, key, { video_ids: [videos.manualOnly] }))
      expect((yield* finished(server, key, completed.batch_id)).status).toBe("completed")
    })
  )

  it.effect("the plan's batch size, the mode rules and the known caption cost are checked first", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const free = yield* server.newAccount({ plan: "free", credits: 100, createdAt: oldAccount })
      const eleven = Array.from({ length: 11 }, () => videos.manualAndAuto)
      expectInvalid(yield* postBatch(server, free.key, { video_ids: eleven }), ["video_ids"])
      expectInvalid(yield* postBatch(server, free.key, { video_ids: [videos.noCaptions], mode: "auto" }), [
        "webhook_url"
      ])
      const poor = yield* server.newAccount({ plan: "pro", credits: 1, createdAt: oldAccount })
      expectError(
        yield* postBatch(server, poor.key, { video_ids: [videos.manualAndAuto, videos.multiLanguage] }),
        402,
        "payment_required"
      )
      expect(yield* balanceOf(server, poor.key)).toBe(1)
    })
  )

  it.effect(
    "POST /batch/estimate prices every video and names those needing speech recognition, charging nothing",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 3, createdAt: oldAccount })
        // Own one of them first.
        accepted(yield* postBatch(server, key, { video_ids: [videos.manualOnly] }))
        yield* eventually(
          "the owned transcript",
          Effect.map(balanceOf(server, key), (balance) =>
            balance === 2 ? Option.some(balance) : Option.none()
          )
        )
        const response = yield* server.post(api("/batch/estimate"), {
          key,
          json: {
            video_ids: [
              videos.manualOnly,
              videos.manualAndAuto,
              videos.manualAndAuto,
              videos.noCaptions,
              videos.veryLong,
              videos.unavailable,
              "nope"
            ],
            mode: "auto",
            webhook_url: "https://hooks.example.com/batch",
            asr_options: { speakerLabels: true }
          }
        })
        expect(response.status, response.text).toBe(200)
        const estimate = Schema.decodeUnknownSync(Api.BatchEstimate)(response.json)
        expect(estimate.items.map((i) => [i.video_id, i.status])).toEqual([
          [videos.manualOnly, "owned"],
          [videos.manualAndAuto, "captions"],
          [videos.manualAndAuto, "owned"],
          [videos.noCaptions, "asr"],
          [videos.veryLong, "failed"],
          [videos.unavailable, "failed"],
          ["nope", "failed"]
        ])
        const asr = estimate.items[3]
        const quote = Schema.decodeUnknownSync(Api.EstimateResponse)(
          (yield* server.post(api("/transcribe/estimate"), {
            key,
            json: { video: videos.noCaptions, mode: "auto", asr_options: { speakerLabels: true } }
          })).json
        )
        expect(asr?.estimated_credits).toBe(quote.estimated_credits)
        expect(estimate).toMatchObject({
          total: 7,
          caption_credits: 1,
          asr_credits: quote.estimated_credits,
          estimated_credits: 1 + quote.estimated_credits,
          needs_asr: 1
        })
        expect(yield* balanceOf(server, key)).toBe(2)
      })
  )

  it.effect(
    "max_credits refuses a batch whose known caption cost is higher (402), before anything is stored",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 10, createdAt: oldAccount })
        const ids = [videos.manualAndAuto, videos.multiLanguage, videos.autoOnly]
        expectError(
          yield* postBatch(server, key, { video_ids: ids, max_credits: 2 }),
          402,
          "payment_required"
        )
        expect(yield* balanceOf(server, key)).toBe(10)
        accepted(yield* postBatch(server, key, { video_ids: ids, max_credits: 3 }))
      })
  )

  it.effect("another account's batch is 404", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const mine = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const theirs = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const batch = accepted(yield* postBatch(server, mine.key, { video_ids: [videos.manualAndAuto] }))
      expectError(yield* server.get(api(`/batch/${batch.batch_id}`), { key: theirs.key }), 404, "not_found")
    })
  )

  it.scoped("the finished batch is delivered once to its webhook, signed, and the batch says so", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const hook = yield* receiver
      const { account, key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const batch = accepted(
        yield* postBatch(server, key, {
          video_ids: [videos.manualAndAuto, videos.autoOnly],
          webhook_url: hook.url
        })
      )
      yield* eventually(
        "the batch webhook",
        Effect.sync(() => Option.fromNullable(hook.received[0]))
      )
      const delivery = hook.received[0]
      if (delivery === undefined) return expect.unreachable("a delivery")
      const secret = yield* (yield* AccountAdmin).webhookSecret(account.id, false).pipe(Effect.orDie)
      const payload = new Webhook(Redacted.value(secret)).verify(delivery.body, delivery.headers)
      const body = Schema.decodeUnknownSync(Api.BatchFinished)(payload)
      expect(body).toMatchObject({ batch_id: batch.batch_id, status: "completed", credits_used: 2 })
      expect(body.results).toHaveLength(2)
      const seen = yield* eventually(
        "the delivery to be recorded",
        Effect.gen(function* () {
          const response = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
          const current = Schema.decodeUnknownSync(Batch)(response.json)
          return current.webhook_delivered ? Option.some(current) : Option.none()
        })
      )
      expect(seen).toMatchObject({ webhook_delivered: true, webhook_failed: false, webhook_attempts: 1 })
      expect(hook.received).toHaveLength(1)
    })
  )

  it.effect("a finished batch answers 60 fetches in 24 hours, then 429 with Retry-After", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
      const batch = accepted(yield* postBatch(server, key, { video_ids: [videos.manualAndAuto] }))
      yield* finished(server, key, batch.batch_id) // the first fetch of the finished batch
      for (let i = 2; i <= 60; i++) {
        const response = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
        expect(response.status, `fetch ${i}`).toBe(200)
      }
      const refused = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
      expectError(refused, 429, "rate_limit_exceeded")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(86_000)
    })
  )
})

/** Opens the gate: the held video's details are answered from then on. */
let openGate: () => void = () => undefined
const gate = new Promise<void>((resolve) => {
  openGate = resolve
})

/** The demo platform, holding back the details of `videos.autoOnly` until the gate opens. */
const gatedPlatform = Layer.effect(
  VideoPlatform,
  Effect.map(VideoPlatform, (platform) =>
    VideoPlatform.of({
      ...platform,
      video: (id) =>
        id === videos.autoOnly
          ? Effect.zipRight(
              Effect.promise(() => gate),
              platform.video(id)
            )
          : platform.video(id)
    })
  )
).pipe(Layer.provide(demoPlatform(shippedCataloguePath)))

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ platform: gatedPlatform }), { timeout: "90 seconds", excludeTestServices: true })(
  "a processing batch",
  (it) => {
    it.effect(
      "POST answers no result; polled, every item's status, job and credits without transcript data; the data once finished",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 10, createdAt: oldAccount })
          const batch = accepted(
            yield* postBatch(server, key, {
              video_ids: [videos.manualOnly, videos.autoOnly, "not a video"],
              mode: "captions_only"
            })
          )
          // The spec's 202 of POST /batch: no result yet, every video processing.
          expect(batch.results).toEqual([])
          expect(batch.summary).toEqual({ total: 3, succeeded: 0, failed: 0, processing: 3 })
          // A GET of the same processing batch lists every video (the second is held at the platform).
          const first = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
          expect(first.status, first.text).toBe(202)
          const listed = Schema.decodeUnknownSync(Api.BatchProcessing)(first.json)
          expect(listed.results.map((r) => r.video_id)).toEqual([
            videos.manualOnly,
            videos.autoOnly,
            "not a video"
          ])
          expect(listed.results.every((r) => r.data === undefined)).toBe(true)
          // The first video is done, the second held back at the platform: the batch is processing.
          const polled = yield* eventually(
            "the first item to complete",
            Effect.gen(function* () {
              const response = yield* server.get(api(`/batch/${batch.batch_id}`), { key })
              expect(response.status, response.text).toBe(202)
              const current = Schema.decodeUnknownSync(Api.BatchProcessing)(response.json)
              return current.summary.succeeded === 1 ? Option.some(current) : Option.none()
            })
          )
          expect(polled.summary).toEqual({ total: 3, succeeded: 1, failed: 1, processing: 1 })
          expect(polled.credits_used).toBe(1)
          expect(polled.results.map((r) => [r.video_id, r.status, r.credits_used])).toEqual([
            [videos.manualOnly, "completed", 1],
            [videos.autoOnly, "processing", 0],
            ["not a video", "failed", 0]
          ])
          expect(polled.results[0]?.job_id).toBeTruthy()
          expect(polled.results[2]?.job_id).toBeNull()
          expect(polled.results[2]?.error).toMatch(/names no video/)
          expect(polled.results.every((r) => r.data === undefined)).toBe(true)
          expect(polled.completed_at).toBeNull()

          openGate()
          const done = yield* finished(server, key, batch.batch_id)
          expect(done.status).toBe("partial")
          expect(done.results.map((r) => r.status)).toEqual(["completed", "completed", "failed"])
          expect(done.results[0]?.data?.transcript.segments.length).toBeGreaterThan(0)
          expect(done.results[1]?.data?.transcript.segments.length).toBeGreaterThan(0)
          expect(done.results[2]?.data).toBeUndefined()
        })
    )
  }
)
