/**
 * The boundary policy every entry point shares (`answer`): an unavailable database and a work queue
 * that cannot be reached are 503 `service_unavailable` with `retry_after_seconds` (HTTP sends it as
 * `Retry-After`); any other store failure is 500 `internal_error`; an `ApiError` passes as it is.
 * The rate limit's verdict on several requests at once (`admitted`), and a signed PUT's time
 * (`putTimeMillis`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, Plan } from "@verbatim/domain"
import { Effect, FastCheck as fc, Logger } from "effect"
import {
  admitted,
  answer,
  storableInput,
  storageRetryAfterSeconds,
  unavailableRetryAfterSeconds
} from "../src/boundary.js"
import { PersistenceError } from "../src/errors.js"
import { QueueError } from "../src/ports/work-queue.js"
import { longestPutMillis, putTimeMillis } from "../src/usecases/uploads.js"

const answered = (failure: Errors.ApiError | PersistenceError | QueueError) =>
  Effect.flip(answer(Effect.fail(failure)))

describe("answer", () => {
  it.effect(
    "a work queue that cannot be reached (Redis down) is 503 service_unavailable with a retry time",
    () =>
      Effect.gen(function* () {
        const error = yield* answered(
          new QueueError({ operation: "offer", cause: new Error("connect ECONNREFUSED 127.0.0.1:6379") })
        )
        expect([error.code, error.status, error.retryable]).toEqual(["service_unavailable", 503, true])
        expect(error.details).toEqual({ retry_after_seconds: unavailableRetryAfterSeconds })
        expect(error.message).toContain("work queue")
      })
  )

  it.effect("an unavailable database is 503; any other store failure 500 internal_error", () =>
    Effect.gen(function* () {
      const down = yield* answered(
        new PersistenceError({ operation: "Accounts.get", cause: new Error("refused"), unavailable: true })
      )
      expect([down.code, down.status, down.details]).toEqual([
        "service_unavailable",
        503,
        { retry_after_seconds: unavailableRetryAfterSeconds }
      ])
      const bug = yield* answered(
        new PersistenceError({ operation: "Accounts.get", cause: new Error("42P01") })
      )
      expect([bug.code, bug.status, bug.details]).toEqual(["internal_error", 500, {}])
    })
  )

  it.effect(
    "a database whose disk is full is 507 insufficient_storage with a retry time, logged as an error",
    () =>
      Effect.gen(function* () {
        const logged: Array<string> = []
        const logger = Logger.make(({ logLevel, message }) => {
          logged.push(`${logLevel.label} ${String(Array.isArray(message) ? message[0] : message)}`)
        })
        const full = yield* answered(
          new PersistenceError({
            operation: "Uploads.insert",
            cause: new Error('could not extend file "base/5/16588_fsm": No space left on device'),
            full: true
          })
        ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
        expect([full.code, full.status, full.retryable, full.details]).toEqual([
          "insufficient_storage",
          507,
          true,
          { retry_after_seconds: storageRetryAfterSeconds }
        ])
        expect(logged).toEqual([
          expect.stringMatching(/^ERROR database storage full in Uploads\.insert .*base\/5\/16588_fsm/)
        ])
      })
  )

  it.effect("an ApiError passes as it is", () =>
    Effect.gen(function* () {
      const refusal = Errors.apiError("not_found")
      expect(yield* answered(refusal)).toBe(refusal)
    })
  )
})

describe("admitted", () => {
  const verdict = { limit: 2, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 }
  it.effect(
    "passes an allowed verdict; refused is 429 with the wait, more than the bucket holds is 400",
    () =>
      Effect.gen(function* () {
        yield* admitted({ ...verdict, allowed: true }, 2)
        expect(yield* Effect.flip(admitted({ ...verdict, allowed: false }, 2))).toMatchObject({
          code: "rate_limit_exceeded",
          details: { retry_after_seconds: 1, limit: 2 }
        })
        expect(yield* Effect.flip(admitted({ ...verdict, allowed: false }, 3))).toMatchObject({
          code: "invalid_request",
          details: { requests: 3, limit: 2 }
        })
      })
  )
})

describe("putTimeMillis", () => {
  const pace = fc.record({
    minBytesPerSecond: fc.integer({ min: 1, max: 1 << 24 }),
    floorMillis: fc.integer({ min: 1, max: 600_000 })
  })
  const size = fc.integer({ min: 0, max: Plan.maxUploadSizeBytes })
  it("is the size at the minimum rate, never under the floor, and grows with the size", () =>
    fc.assert(
      fc.property(pace, size, size, (p, a, b) => {
        const t = putTimeMillis(p, a)
        return (
          t >= p.floorMillis &&
          t * p.minBytesPerSecond >= a * 1000 &&
          (t === p.floorMillis || (t - 1) * p.minBytesPerSecond < a * 1000) &&
          (a <= b ? t <= putTimeMillis(p, b) : t >= putTimeMillis(p, b)) &&
          t <= longestPutMillis(p)
        )
      })
    ))
})

describe("storableInput", () => {
  it.effect(
    "refuses an input holding NUL anywhere with 400 invalid_request naming each field; passes the rest",
    () =>
      Effect.gen(function* () {
        yield* storableInput({ filename: "talk.wav", redirect_uris: ["https://example.com/cb"], n: 1 })
        const error = yield* Effect.flip(
          storableInput({ client_name: "a\u0000", redirect_uris: ["https://example.com/cb", "x\u0000"] })
        )
        expect([error.code, error.status]).toEqual(["invalid_request", 400])
        expect(error.message).toMatch(/^client_name must not contain the NUL character/)
        expect(error.details.issues).toEqual([
          { path: ["client_name"], message: expect.any(String) },
          { path: ["redirect_uris", 1], message: expect.any(String) }
        ])
      })
  )
})
