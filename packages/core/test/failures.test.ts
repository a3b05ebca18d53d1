import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@verbatim/domain"
import { PlatformBlocked, PlatformFailure, VideoUnavailable } from "../src/ports/video-platform.js"
import { fieldError, fromPlatformError } from "../src/usecases/failures.js"

describe("failures reaching a caller", () => {
  it("maps the platform's failures to video_unavailable 404, platform_blocked 503 and platform_unreadable 503", () => {
    const unavailable = fromPlatformError(new VideoUnavailable({ videoId: "abcdefghijk", reason: "private" }))
    expect([unavailable.code, unavailable.status]).toEqual(["video_unavailable", 404])
    expect(unavailable.details).toEqual({ video_id: "abcdefghijk" })
    const blocked = fromPlatformError(new PlatformBlocked({ reason: "bot check" }))
    expect([blocked.code, blocked.status, blocked.retryable]).toEqual(["platform_blocked", 503, true])
    const failure = fromPlatformError(new PlatformFailure({ reason: "unreadable answer" }))
    expect([failure.code, failure.status, failure.retryable]).toEqual(["platform_unreadable", 503, true])
    expect(failure.details).toEqual({ reason: "unreadable answer" })
  })

  it("names a rejected field the way a schema rejection does", () => {
    const error = fieldError(["asr_options", "speakersExpectedMin"], "must not exceed speakersExpectedMax")
    expect(error).toBeInstanceOf(Errors.ApiError)
    expect(error.status).toBe(400)
    expect(error.message).toBe("asr_options.speakersExpectedMin: must not exceed speakersExpectedMax")
    expect(error.details).toEqual({
      issues: [
        { path: ["asr_options", "speakersExpectedMin"], message: "must not exceed speakersExpectedMax" }
      ]
    })
  })
})
