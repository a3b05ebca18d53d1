import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@verbatim/domain"
import { FastCheck as fc } from "effect"
import {
  AudioUnavailable,
  BlockKind,
  CaptionTrackNotFound,
  ChannelRestricted,
  CollectionNotFound,
  DurationLimitExceeded,
  PlatformBlocked,
  type PlatformError,
  PlatformFailure,
  PlatformUnavailable,
  Restriction,
  TranslationUnavailable,
  VideoLive,
  VideoRestricted,
  VideoUnavailable
} from "../src/ports/video-platform.js"
import { fromPlatformError } from "../src/usecases/failures.js"

const videoId = "GJLlxj_dtq8"

const answer = (error: PlatformError) => {
  const mapped = fromPlatformError(error)
  return [mapped.code, mapped.status]
}

describe("platform failures reaching a caller (docs/decisions/youtube.md)", () => {
  it("gives each refusal of the platform its own code and status", () => {
    const restricted = (restriction: Restriction) =>
      new VideoRestricted({ videoId, restriction, reason: "r" })
    expect([
      answer(new VideoUnavailable({ videoId, reason: "This video is unavailable" })),
      answer(restricted("private")),
      answer(restricted("age_restricted")),
      answer(restricted("members_only")),
      answer(restricted("premium")),
      answer(restricted("region_blocked")),
      answer(new VideoLive({ videoId, state: "upcoming", reason: "Premieres in 2 hours" })),
      answer(new CaptionTrackNotFound({ videoId, language: "de", kind: "manual" })),
      answer(new TranslationUnavailable({ videoId, language: "zu" })),
      answer(new CollectionNotFound({ kind: "playlist", id: "PLx", reason: "The playlist does not exist." })),
      answer(new ChannelRestricted({ channelId: "UCx", restriction: "age_restricted", reason: "age gate" })),
      answer(new DurationLimitExceeded({ videoId, durationSeconds: 30_000, limitSeconds: 28_800 })),
      answer(new AudioUnavailable({ videoId, reason: "no audio format" })),
      answer(new PlatformBlocked({ reason: "reCAPTCHA", kind: "ip_blocked" })),
      answer(new PlatformUnavailable({ reason: "HTTP 503", attempts: 4 })),
      answer(new PlatformFailure({ reason: "not JSON" }))
    ]).toEqual([
      ["video_unavailable", 404],
      ["video_private", 403],
      ["age_restricted", 403],
      ["subscription_required", 403],
      ["subscription_required", 403],
      ["region_blocked", 403],
      ["live_stream", 409],
      ["no_captions", 404],
      ["unsupported_language", 400],
      ["not_found", 404],
      ["channel_age_restricted", 403],
      ["video_too_long", 400],
      ["no_audio", 404],
      ["platform_blocked", 503],
      ["platform_unavailable", 503],
      ["platform_unreadable", 503]
    ])
  })

  it("names the video and the precise reason in details", () => {
    expect(
      fromPlatformError(new VideoRestricted({ videoId, restriction: "premium", reason: "r" })).details
    ).toEqual({
      video_id: videoId,
      restriction: "premium"
    })
    expect(fromPlatformError(new VideoLive({ videoId, state: "live", reason: "r" })).details).toEqual({
      video_id: videoId,
      live_state: "live"
    })
    expect(
      fromPlatformError(new CollectionNotFound({ kind: "channel", id: "@nobody", reason: "r" })).details
    ).toEqual({ channel_id: "@nobody" })
    expect(fromPlatformError(new PlatformBlocked({ reason: "r" })).details).toEqual({ reason: "other" })
    expect(
      fromPlatformError(new PlatformFailure({ reason: "no item list", path: "contents.tabs[0]" })).details
    ).toEqual({ reason: "no item list", path: "contents.tabs[0]" })
    expect(
      fromPlatformError(
        new ChannelRestricted({ channelId: "UCx", restriction: "age_restricted", reason: "r" })
      ).details
    ).toEqual({ channel_id: "UCx", restriction: "age_restricted" })
  })

  it("answers every block kind as a retryable 503 platform_blocked, naming the kind", () => {
    fc.assert(
      fc.property(fc.constantFrom(...BlockKind.literals), fc.string(), (kind, reason) => {
        const error = fromPlatformError(new PlatformBlocked({ reason, kind }))
        expect([error.code, error.status, error.retryable, error.details]).toEqual([
          "platform_blocked",
          503,
          true,
          { reason: kind }
        ])
        expect(error).toBeInstanceOf(Errors.ApiError)
      })
    )
  })

  it("only the platform's own trouble is retryable: nothing about the video is", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Restriction.literals), fc.string(), (restriction, reason) => {
        expect(fromPlatformError(new VideoRestricted({ videoId, restriction, reason })).retryable).toBe(false)
      })
    )
    expect(fromPlatformError(new PlatformUnavailable({ reason: "timeout", attempts: 3 })).retryable).toBe(
      true
    )
  })
})
