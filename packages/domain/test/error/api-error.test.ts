import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, FastCheck as fc, Schema } from "effect"
import { ErrorBody, errorBodyFor, TranscribeRequest, UploadCreateRequest } from "../../src/api/index.js"
import {
  ApiError,
  apiError,
  invalidRequest,
  meaningOf,
  mergeIssues,
  statusOf
} from "../../src/error/index.js"

describe("ApiError", () => {
  it("converts to the error body and back without loss", () => {
    fc.assert(
      fc.property(Arbitrary.make(ErrorBody), (body) => {
        const error = ApiError.fromBody(body)
        expect(error.toBody()).toStrictEqual(body)
        expect(error.status).toBe(statusOf(body.error))
      })
    )
  })

  it("has a body of exactly error, message and details, with no _tag", () => {
    fc.assert(
      fc.property(Arbitrary.make(ApiError), (error) => {
        const body = Schema.encodeSync(ErrorBody)(error.toBody())
        expect(Object.keys(body)).toStrictEqual(["error", "message", "details"])
        expect(ApiError.fromBody(error.toBody())).toStrictEqual(error)
      })
    )
  })

  // Pinned: found by the round-trip property (seed -1790042407, path "49:0:88"). A details key named
  // __proto__ (an own property after JSON.parse) was lost, because decoding copied details by assignment.
  it("keeps details keys named __proto__, constructor and prototype through fromBody and toBody", () => {
    const details = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"prototype":[]}')
    const body = { error: "invalid_request" as const, message: "m", details }
    const error = ApiError.fromBody(body)
    expect(error.toBody()).toStrictEqual(body)
    expect(Object.keys(error.details)).toStrictEqual(["__proto__", "constructor", "prototype"])
    expect(JSON.stringify(error.toBody().details)).toBe(JSON.stringify(details))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(error.details)).toBe(Object.prototype)
  })

  it("takes the code's meaning as message unless one is given", () => {
    expect(apiError("payment_required").message).toBe("Insufficient credits")
    expect(apiError("not_found", "No job 42").toBody()).toStrictEqual({
      error: "not_found",
      message: "No job 42",
      details: {}
    })
    expect(apiError("rate_limit_exceeded", undefined, { retry_after: 2 }).status).toBe(429)
  })

  it.effect("is a typed failure that can be caught by its tag", () =>
    Effect.gen(function* () {
      const caught = yield* Effect.fail(apiError("conflict")).pipe(
        Effect.catchTag("ApiError", (error) => Effect.succeed(error.status))
      )
      expect(caught).toBe(409)
    })
  )
})

describe("invalidRequest", () => {
  it("turns a rejected body into invalid_request listing every issue", () => {
    const result = Schema.decodeUnknownEither(UploadCreateRequest)({
      filename: "a.png",
      mime_type: "image/png",
      size_bytes: 0
    })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      const error = invalidRequest(result.left)
      expect(error.code).toBe("invalid_request")
      expect(error.status).toBe(400)
      const issues = error.details.issues as ReadonlyArray<{ path: ReadonlyArray<string | number> }>
      expect(issues.map((issue) => issue.path[0]).sort()).toStrictEqual([
        "duration_sec",
        "mime_type",
        "size_bytes"
      ])
      expect(error.message).toMatch(/^(mime_type|size_bytes|duration_sec) must /)
      expect(error.message).not.toBe(meaningOf("invalid_request"))
    }
  })

  it("names nested fields by their path", () => {
    const result = Schema.decodeUnknownEither(TranscribeRequest)({ asr_options: { speakersExpected: 21 } })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      const body = invalidRequest(result.left).toBody()
      expect(body.message.startsWith("asr_options.speakersExpected must be at most ")).toBe(true)
      expect(JSON.parse(JSON.stringify(body))).toStrictEqual(body)
    }
  })
})

describe("errorBodyFor", () => {
  it("accepts the body of its own code only", () => {
    fc.assert(
      fc.property(Arbitrary.make(ErrorBody), (body) => {
        expect(Schema.is(errorBodyFor("forbidden"))(body)).toBe(body.error === "forbidden")
      })
    )
  })
})

describe("mergeIssues", () => {
  const issue = fc.record({
    path: fc.array(fc.oneof(fc.constantFrom("video", "mode", "limit"), fc.nat(3)), { maxLength: 2 }),
    message: fc.oneof(
      fc.constantFrom("Expected null, actual 5", "Expected undefined, actual 5", "Expected string, actual 5"),
      fc.string({ minLength: 1 })
    )
  })

  it("keeps one issue per field, in the order fields first appear", () =>
    fc.assert(
      fc.property(fc.array(issue, { maxLength: 20 }), (issues) => {
        const merged = mergeIssues(issues)
        const firstSeen = [...new Set(issues.map((i) => JSON.stringify(i.path)))]
        expect(merged.map((i) => JSON.stringify(i.path))).toEqual(firstSeen)
      })
    ))

  it("says something about every field it was told about", () =>
    fc.assert(
      fc.property(fc.array(issue, { minLength: 1, maxLength: 20 }), (issues) => {
        for (const merged of mergeIssues(issues)) expect(merged.message.length).toBeGreaterThan(0)
      })
    ))

  it("drops the null and undefined branches of an optional field and merges the expectations", () => {
    expect(
      mergeIssues([
        { path: ["mode"], message: 'Expected "auto", actual "x"' },
        { path: ["mode"], message: 'Expected "captions_only", actual "x"' },
        { path: ["mode"], message: 'Expected null, actual "x"' }
      ])
    ).toEqual([{ path: ["mode"], message: 'Expected "auto" | "captions_only", actual "x"' }])
  })
})
