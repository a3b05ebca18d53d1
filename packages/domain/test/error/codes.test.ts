import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Schema } from "effect"
import {
  allErrorCodes,
  codesWithStatus,
  ErrorCode,
  errorCatalogue,
  isRetryable,
  meaningOf,
  specErrorCodes,
  statusOf
} from "../../src/error/index.js"

const anyCode = fc.constantFrom(...allErrorCodes)

describe("error catalogue", () => {
  it("matches the spec's error table exactly", () => {
    const table = specErrorCodes.map((code) => [statusOf(code), code, meaningOf(code)])
    expect(table).toStrictEqual([
      [400, "invalid_request", "Invalid JSON or missing required fields"],
      [401, "invalid_api_key", "Missing or invalid API key"],
      [402, "payment_required", "Insufficient credits"],
      [404, "no_captions", "No captions available and ASR not used"],
      [429, "rate_limit_exceeded", "Too many requests; a Retry-After header is sent"],
      [500, "internal_error", "Server error; retry with backoff"]
    ])
  })

  it("gives our codes the statuses DESIGN.md and the spec's condition table call for", () => {
    expect(statusOf("unsupported_language")).toBe(400)
    expect(statusOf("forbidden")).toBe(403)
    expect(statusOf("plan_required")).toBe(403)
    expect(statusOf("not_found")).toBe(404)
    expect(statusOf("video_unavailable")).toBe(404)
    expect(statusOf("conflict")).toBe(409)
    expect(statusOf("gone")).toBe(410)
    expect(statusOf("platform_blocked")).toBe(503)
    expect(statusOf("asr_unavailable")).toBe(503)
    expect(statusOf("translation_unavailable")).toBe(503)
    expect(isRetryable("translation_unavailable")).toBe(true)
    expect(statusOf("themes_unavailable")).toBe(503)
    expect(isRetryable("themes_unavailable")).toBe(true)
    expect(statusOf("storage_unavailable")).toBe(503)
    expect(isRetryable("storage_unavailable")).toBe(true)
    expect(statusOf("insufficient_storage")).toBe(507)
    expect(isRetryable("insufficient_storage")).toBe(true)
    expect(statusOf("service_unavailable")).toBe(503)
    expect(isRetryable("service_unavailable")).toBe(true)
    expect(statusOf("request_timeout")).toBe(408)
    expect(statusOf("request_too_large")).toBe(413)
    expect(statusOf("request_header_too_large")).toBe(431)
  })

  it("gives the video platform's refusals their statuses (docs/decisions/youtube.md)", () => {
    const table = (
      [
        "video_private",
        "age_restricted",
        "subscription_required",
        "region_blocked",
        "live_stream",
        "video_too_long",
        "no_audio",
        "platform_unavailable",
        "platform_unreadable",
        "channel_age_restricted"
      ] as const
    ).map((code) => [code, statusOf(code), isRetryable(code)])
    expect(table).toStrictEqual([
      ["video_private", 403, false],
      ["age_restricted", 403, false],
      ["subscription_required", 403, false],
      ["region_blocked", 403, false],
      ["live_stream", 409, false],
      ["video_too_long", 400, false],
      ["no_audio", 404, false],
      ["platform_unavailable", 503, true],
      ["platform_unreadable", 503, true],
      ["channel_age_restricted", 403, false]
    ])
  })

  it("has one entry per code, and the codes are unique", () => {
    expect(new Set(allErrorCodes).size).toBe(allErrorCodes.length)
    expect(Object.keys(errorCatalogue).sort()).toStrictEqual([...allErrorCodes].sort())
    expect(allErrorCodes).toHaveLength(33)
  })

  it("answers every code with a 4xx or 5xx status and a meaning", () => {
    fc.assert(
      fc.property(anyCode, (code) => {
        const status = statusOf(code)
        expect(status >= 400 && status < 600).toBe(true)
        expect(meaningOf(code).length).toBeGreaterThan(0)
      })
    )
  })

  it("marks exactly the rate limit and the server-side failures as retryable", () => {
    fc.assert(
      fc.property(anyCode, (code) => {
        expect(isRetryable(code)).toBe(statusOf(code) === 429 || statusOf(code) >= 500)
      })
    )
  })

  it("groups codes by status without losing or repeating any", () => {
    const statuses = [...new Set(allErrorCodes.map(statusOf))]
    const grouped = statuses.flatMap((status) => codesWithStatus(status))
    expect([...grouped].sort()).toStrictEqual([...allErrorCodes].sort())
    expect(codesWithStatus(418)).toStrictEqual([])
  })

  it("refuses a code outside the catalogue", () => {
    expect(Schema.is(ErrorCode)("teapot")).toBe(false)
    fc.assert(fc.property(anyCode, (code) => Schema.is(ErrorCode)(code)))
  })
})
