/**
 * A batch of 3,000 videos over real HTTP, on a synthetic demo catalogue of that size, on the
 * embedded default (in-memory queue) and, when REDIS_URL is set, on Redis (PostgreSQL too when
 * DATABASE_URL is): 202 at once; polled to 200 with exactly 3,000 results in the order sent, each
 * completed with its own job; the summary, the credits and the balance exact (one credit per
 * video, the ledger equal to the balance); one signed webhook carrying the whole finished batch.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { AccountAdmin, Ledger } from "@verbatim/core"
import { syntheticCatalogue, syntheticVideoId } from "@verbatim/demo-platform"
import { Api } from "@verbatim/domain"
import { demoPlatform } from "@verbatim/runtime"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Option, Redacted, Schema } from "effect"
import { Webhook } from "standardwebhooks"
import { webhookReceiver } from "./receiver.js"
import { TestServer, testServerOn } from "./server.js"
import { api, balanceOf, oldAccount } from "./support.js"

const size = Number(process.env.VERBATIM_TEST_BATCH_SIZE ?? 3_000)
const cataloguePath = join(mkdtempSync(join(tmpdir(), "verbatim-batch-large-")), "catalogue.json")
writeFileSync(cataloguePath, JSON.stringify(syntheticCatalogue(size)))

const suite = (name: string, options: { readonly redisPrefix?: string }) =>
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(testServerOn({ ...options, platform: demoPlatform(cataloguePath) }), {
    timeout: "60 seconds",
    excludeTestServices: true
  })(name, (it) => {
    it.scoped(
      "3,000 videos: 202 at once, then exactly 3,000 results, the right summary and credits, one signed webhook",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const hook = yield* webhookReceiver("/batch-3000")
          const { account, key } = yield* server.newAccount({
            plan: "business",
            credits: size + 50,
            createdAt: oldAccount
          })
          const ids = Array.from({ length: size }, (_, i) => syntheticVideoId(i))
          const response = yield* server.post(api("/batch"), {
            key,
            json: { video_ids: ids, mode: "captions_only", webhook_url: hook.url }
          })
          expect(response.status, response.text).toBe(202)
          const accepted = Schema.decodeUnknownSync(Api.BatchProcessing)(response.json)
          expect(accepted.summary).toEqual({ total: size, succeeded: 0, failed: 0, processing: size })

          const done = yield* eventually(
            "the 3,000-video batch to finish",
            Effect.gen(function* () {
              const poll = yield* server.get(api(`/batch/${accepted.batch_id}`), { key })
              if (poll.status === 202) return Option.none()
              expect(poll.status, poll.text.slice(0, 500)).toBe(200)
              return Option.some(Schema.decodeUnknownSync(Api.BatchFinished)(poll.json))
            }),
            300_000,
            // As a client would: a 3,000-result answer is not read 20 times a second.
            1_000
          )
          expect(done.status).toBe("completed")
          expect(done.summary).toEqual({ total: size, succeeded: size, failed: 0, processing: 0 })
          expect(done.results.map((result) => result.video_id)).toEqual(ids)
          expect(done.results.every((result) => result.status === "completed")).toBe(true)
          expect(new Set(done.results.map((result) => result.job_id)).size).toBe(size)
          expect(done.credits_used).toBe(size)
          expect(yield* balanceOf(server, key)).toBe(50)
          const ledger = yield* Ledger
          const entries = yield* ledger.entries(account.id)
          expect(entries.filter((entry) => entry.kind === "charge")).toHaveLength(size)
          expect(entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(50)

          yield* eventually(
            "the batch webhook",
            Effect.sync(() => Option.fromNullable(hook.received[0])),
            60_000
          )
          const delivery = hook.received[0]
          if (delivery === undefined) return expect.unreachable("a delivery")
          const secret = yield* (yield* AccountAdmin).webhookSecret(account.id, false).pipe(Effect.orDie)
          const body = Schema.decodeUnknownSync(Api.BatchFinished)(
            new Webhook(Redacted.value(secret)).verify(delivery.body, delivery.headers)
          )
          expect(body).toMatchObject({ batch_id: accepted.batch_id, status: "completed", credits_used: size })
          expect(body.results).toHaveLength(size)
          // One webhook for the batch, none per item. (Under load an attempt may outlive the tests'
          // 2 s webhook timeout and be sent again: the same message, as Standard Webhooks allows.)
          yield* Effect.sleep("500 millis")
          expect(new Set(hook.received.map((r) => r.headers["webhook-id"]))).toEqual(
            new Set([delivery.headers["webhook-id"]])
          )
          expect(new Set(hook.received.map((r) => r.body)).size).toBe(1)
        }),
      360_000
    )
  })

suite("a batch of 3,000 videos (in-memory queue)", {})

describe.skipIf(!process.env.REDIS_URL)("on Redis", () => {
  suite("a batch of 3,000 videos (Redis)", {
    redisPrefix: `verbatim-test-batch-large-${process.pid}-${Date.now()}:`
  })
})
