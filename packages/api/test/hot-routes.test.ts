/**
 * The hot routes' reads under the rate limit (`limitedRead` in `hot-routes.ts`): while the account's
 * bucket had room at its last request, the read runs while the request is taken; near or past the
 * limit, the request is taken first and a refused request never reads. The limiter here answers a
 * scripted verdict per request and takes 20 ms; the balance read, 5 ms long, records whether a
 * take was in flight when it ended. (That both paths answer the same is `apps/server/test/hot-routes.test.ts`.)
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Access, Balance, type RateVerdict } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect, Layer } from "effect"
import { AppLive } from "../src/index.js"
import { account, goodKey, UseCasesStub } from "./stubs.js"

const allowed = (remaining: number): RateVerdict => ({
  allowed: true,
  limit: 100,
  remaining,
  resetSeconds: 1,
  retryAfterSeconds: 0
})
const refused: RateVerdict = {
  allowed: false,
  limit: 100,
  remaining: 0,
  resetSeconds: 1,
  retryAfterSeconds: 1
}

/** The verdicts the limiter answers, in order. */
const script: Array<RateVerdict> = []
let taking = false
/** For each balance read: whether a take was in flight. */
const reads: Array<boolean> = []

const ScriptedAccess = Layer.succeed(Access, {
  authenticate: () => Effect.succeed(account),
  takeRequest: () =>
    Effect.gen(function* () {
      taking = true
      yield* Effect.sleep("20 millis")
      taking = false
      return script.shift() ?? refused
    })
})

const RecordingBalance = Layer.succeed(Balance, {
  // A read that takes 5 ms, as a database's would: a take in flight then is one overlapping it.
  credits: (who) =>
    Effect.sleep("5 millis").pipe(
      Effect.map(() => {
        reads.push(taking)
        return new Api.CreditsResponse({
          credits: 42,
          plan: who.plan,
          thumbnail_credits: 0,
          onboarding_completed: who.onboardingCompleted
        })
      })
    )
})

const { handler, dispose } = HttpApiBuilder.toWebHandler(
  Layer.mergeAll(
    AppLive.pipe(Layer.provide(Layer.merge(UseCasesStub, Layer.merge(ScriptedAccess, RecordingBalance)))),
    HttpServer.layerContext
  )
)
afterAll(() => dispose())

const credits = async () => {
  const response = await handler(
    new Request("http://verbatim.test/api/v2/credits", { headers: { authorization: `Bearer ${goodKey}` } })
  )
  return { status: response.status, remaining: response.headers.get("ratelimit-remaining") }
}

describe("a hot read under the rate limit", () => {
  it("overlaps the take only while the bucket had room, and never reads for a refusal near the limit", async () => {
    script.push(allowed(50), refused, refused, allowed(1), allowed(5), allowed(30), allowed(29))
    // No hint yet: taken first, then read.
    expect(await credits()).toEqual({ status: 200, remaining: "50" })
    // Room at the last request (50 of 100): read while taking; the refusal still answers 429.
    expect(await credits()).toEqual({ status: 429, remaining: "0" })
    // No room at the last request: taken first, and refused, so never read.
    expect(await credits()).toEqual({ status: 429, remaining: "0" })
    expect(await credits()).toEqual({ status: 200, remaining: "1" })
    // 1 left, under a tenth of the burst: still taken first.
    expect(await credits()).toEqual({ status: 200, remaining: "5" })
    expect(await credits()).toEqual({ status: 200, remaining: "30" })
    // 30 left: room again, so the next read overlaps its take.
    expect(await credits()).toEqual({ status: 200, remaining: "29" })
    expect(reads).toEqual([false, true, false, false, false, true])
  })
})
