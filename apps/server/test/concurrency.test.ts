/**
 * A concurrency stress property on PostgreSQL (`DATABASE_URL`; skipped without it, since PGlite runs
 * one statement at a time and cannot interleave): random interleavings of POST /transcribe,
 * DELETE /transcripts/{video_id}, POST /transcripts/bulk-delete and GET /transcripts for one account,
 * over real HTTP, in 2 to 4 concurrent lanes. Whatever the interleaving:
 *
 * - no answer is 5xx (a delete racing a transcribe once answered 500);
 * - the ledger is exact: the balance is the initial grant minus the ledger's charges, equals the sum
 *   of every ledger entry, equals the grant minus the credits the jobs say they used, and is never
 *   negative.
 */
import { describe, expect, layer } from "@effect/vitest"
import { type Account, Ledger } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"
import fc from "fast-check"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import {
  allJobs,
  api,
  balanceOf,
  decode,
  oldAccount,
  servableTranscripts,
  unknownUuid,
  videos
} from "./support.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

/** The initial grant: small, so some transcribe requests find the balance short (402). */
const granted = 5

type Operation =
  | { readonly _tag: "transcribe"; readonly pick: number }
  | { readonly _tag: "delete"; readonly pick: number; readonly wholeVideo: boolean }
  | { readonly _tag: "bulkDelete"; readonly mask: ReadonlyArray<boolean>; readonly withUnknown: boolean }
  | { readonly _tag: "list" }

/** The transcripts a request may name: every servable one, and a video without captions (404). */
const targets = [
  ...servableTranscripts,
  { video: videos.noCaptions, language: "en", source: "manual" as const }
]

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.nat(targets.length - 1).map((pick) => ({ _tag: "transcribe" as const, pick })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ pick: fc.nat(targets.length - 1), wholeVideo: fc.boolean() })
      .map((fields) => ({ _tag: "delete" as const, ...fields }))
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), withUnknown: fc.boolean() })
      .map((fields) => ({ _tag: "bulkDelete" as const, ...fields }))
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "list" as const }) }
)

/** 2 to 4 lanes run at once, each its operations in order: one interleaving per run. */
const scenario = fc.array(fc.array(operation, { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 4 })

const run = (server: TestServerService, key: string, op: Operation) =>
  Effect.gen(function* () {
    switch (op._tag) {
      case "transcribe": {
        const target = targets[op.pick] ?? targets[0]
        return [
          yield* server.post(api("/transcribe"), {
            key,
            json: { video: target?.video, language: target?.language, mode: "captions_only" }
          })
        ]
      }
      case "delete": {
        const target = targets[op.pick] ?? targets[0]
        const query = op.wholeVideo ? "" : `?language=${encodeURIComponent(target?.language ?? "en")}`
        return [yield* server.del(api(`/transcripts/${target?.video}${query}`), { key })]
      }
      case "bulkDelete": {
        const listed = yield* server.get(api("/transcripts?limit=100"), { key })
        if (listed.status !== 200) return [listed]
        const owned = (yield* decode(Api.TranscriptList, listed)).history.map((item): string => item.id)
        const ids = owned.filter((_, i) => op.mask[i % op.mask.length])
        if (op.withUnknown || ids.length === 0) ids.push(unknownUuid)
        return [listed, yield* server.post(api("/transcripts/bulk-delete"), { key, json: { ids } })]
      }
      case "list":
        return [yield* server.get(api("/transcripts?limit=100"), { key })]
    }
  })

const expectExactLedger = (
  server: TestServerService,
  ledger: Ledger["Type"],
  account: Account,
  key: string
) =>
  Effect.gen(function* () {
    const balance = yield* balanceOf(server, key)
    const entries = yield* Effect.orDie(ledger.entries(account.id))
    const charges = entries.filter((entry) => entry.kind === "charge")
    const charged = charges.reduce((sum, entry) => sum - entry.amount, 0)
    const jobs = yield* allJobs(server, key)
    const used = jobs.reduce((sum, job) => sum + job.credits_used, 0)
    expect(balance).toBeGreaterThanOrEqual(0)
    expect(balance).toBe(granted - charged)
    expect(balance).toBe(entries.reduce((sum, entry) => sum + entry.amount, 0))
    expect(used).toBe(charged)
    expect(charges.every((entry) => entry.jobId !== null)).toBe(true)
  })

describe.runIf(databaseUrl !== "")("concurrent use cases on PostgreSQL", () => {
  // Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
  layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("one account", (it) => {
    it.effect(
      "random interleavings of transcribe, delete, bulk delete and list: no 5xx, and an exact ledger",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const ledger = yield* Ledger
          /** How often each operation got each status, over every run: the property must reach them all. */
          const seen = new Map<string, number>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(scenario, (lanes) =>
                Effect.runPromise(
                  Effect.gen(function* () {
                    // Business: a burst of 100, so the rate limit stays out of the way.
                    const { account, key } = yield* server.newAccount({
                      plan: "business",
                      credits: granted,
                      createdAt: oldAccount
                    })
                    const answers = yield* Effect.forEach(
                      lanes,
                      (lane) =>
                        Effect.forEach(lane, (op) =>
                          Effect.map(run(server, key, op), (responses) => ({ op, responses }))
                        ),
                      { concurrency: "unbounded" }
                    )
                    for (const { op, responses } of answers.flat()) {
                      for (const response of responses) {
                        expect(response.status, `${op._tag}: ${response.text}`).toBeLessThan(500)
                      }
                      const last = responses[responses.length - 1]
                      const seenKey = `${op._tag} ${last?.status}`
                      seen.set(seenKey, (seen.get(seenKey) ?? 0) + 1)
                    }
                    yield* expectExactLedger(server, ledger, account, key)
                  })
                )
              ),
              { numRuns: 40, endOnFailure: true }
            )
          )
          // Charged, served again or refused for the balance, deleted, and refused as not owned: all reached.
          for (const outcome of [
            "transcribe 200",
            "transcribe 402",
            "delete 200",
            "delete 404",
            "bulkDelete 200",
            "list 200"
          ]) {
            expect(seen.get(outcome) ?? 0, JSON.stringify([...seen])).toBeGreaterThan(0)
          }
        }),
      60_000
    )
  })
})
