/**
 * Answers the project never recorded: `/player` statuses and reasons in YouTube's words (as other
 * clients document them), HTTP failures and bodies that are not JSON. Each becomes a documented
 * code, and no refusal is ever read as "no captions".
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@verbatim/domain"
import { Effect, Either, FastCheck as fc } from "effect"
import { parsePlayer, playability } from "../src/player.js"
import { answered, at, vid, withPlatform } from "./support.js"

const player = (
  playabilityStatus: object,
  videoDetails: object = { videoId: "GJLlxj_dtq8", lengthSeconds: "60" }
) => JSON.stringify({ playabilityStatus, videoDetails })

const refusalOf = (body: string, status = 200) =>
  withPlatform(
    (platform) => Effect.flip(platform.video(vid("GJLlxj_dtq8"))).pipe(Effect.map(answered)),
    [at("/youtubei/v1/player", () => ({ status, body }))]
  )

describe("playability answers never recorded here", () => {
  const cases: ReadonlyArray<readonly [string, object, readonly [string, string, number]]> = [
    [
      "private (LOGIN_REQUIRED)",
      {
        status: "LOGIN_REQUIRED",
        reason: "This video is private",
        messages: ["Sign in if you've been granted access"]
      },
      ["VideoRestricted", "video_private", 403]
    ],
    [
      "private (ERROR)",
      { status: "ERROR", reason: "Private video" },
      ["VideoRestricted", "video_private", 403]
    ],
    [
      "members only",
      {
        status: "UNPLAYABLE",
        reason:
          "Join this channel to get access to members-only content like this video, and other exclusive perks."
      },
      ["VideoRestricted", "subscription_required", 403]
    ],
    [
      "members only, by level",
      {
        status: "LOGIN_REQUIRED",
        reason: "This video is available to this channel’s members on level: Gold (or any higher level)."
      },
      ["VideoRestricted", "subscription_required", 403]
    ],
    [
      "paid content",
      { status: "UNPLAYABLE", reason: "This video requires payment to watch." },
      ["VideoRestricted", "subscription_required", 403]
    ],
    [
      "region blocked",
      { status: "UNPLAYABLE", reason: "The uploader has not made this video available in your country" },
      ["VideoRestricted", "region_blocked", 403]
    ],
    [
      "region blocked, said in the sub-reason",
      {
        status: "UNPLAYABLE",
        reason: "Video unavailable",
        errorScreen: {
          playerErrorMessageRenderer: {
            subreason: { simpleText: "This video is not available in your country." }
          }
        }
      },
      ["VideoRestricted", "region_blocked", 403]
    ],
    [
      "age check",
      { status: "AGE_VERIFICATION_REQUIRED", reason: "Sign in to confirm your age" },
      ["VideoRestricted", "age_restricted", 403]
    ],
    [
      "an upcoming live stream",
      { status: "LIVE_STREAM_OFFLINE", reason: "This live event will begin in 3 hours." },
      ["VideoLive", "live_stream", 409]
    ],
    [
      "a premiere",
      { status: "UNPLAYABLE", reason: "Premieres in 10 hours" },
      ["VideoLive", "live_stream", 409]
    ],
    [
      "a copyright claim",
      { status: "ERROR", reason: "This video is no longer available due to a copyright claim by WMG" },
      ["VideoUnavailable", "video_unavailable", 404]
    ],
    [
      "a terminated account",
      {
        status: "ERROR",
        reason:
          "This video is no longer available because the YouTube account associated with this video has been terminated."
      },
      ["VideoUnavailable", "video_unavailable", 404]
    ],
    [
      "a status nobody knows yet",
      { status: "SOMETHING_NEW" },
      ["VideoUnavailable", "video_unavailable", 404]
    ],
    [
      "a sign-in wall without a known reason",
      { status: "LOGIN_REQUIRED", reason: "Please sign in" },
      ["PlatformBlocked", "platform_blocked", 503]
    ]
  ]

  for (const [name, status, expected] of cases) {
    it.effect(`${name}: ${expected[1]} ${expected[2]}`, () =>
      Effect.map(refusalOf(player(status)), (a) => expect(a).toEqual(expected))
    )
  }

  it.effect("a playable video that is live now, or not started: 409 live_stream", () =>
    Effect.gen(function* () {
      const live = yield* refusalOf(
        player({ status: "OK" }, { videoId: "GJLlxj_dtq8", isLive: true, lengthSeconds: "0" })
      )
      expect(live).toEqual(["VideoLive", "live_stream", 409])
      const upcoming = yield* refusalOf(
        player({ status: "OK" }, { videoId: "GJLlxj_dtq8", isUpcoming: true })
      )
      expect(upcoming).toEqual(["VideoLive", "live_stream", 409])
    })
  )
})

describe("/player answers that are not a player answer", () => {
  it.effect("HTTP 403: 503 platform_blocked; HTTP 400: 503 platform_unreadable", () =>
    Effect.gen(function* () {
      expect(yield* refusalOf("{}", 403)).toEqual(["PlatformBlocked", "platform_blocked", 503])
      expect(yield* refusalOf('{"error":{"code":400,"status":"FAILED_PRECONDITION"}}', 400)).toEqual([
        "PlatformFailure",
        "platform_unreadable",
        503
      ])
    })
  )

  it.effect("a body that is not JSON, or JSON of another shape: 503 platform_unreadable, never 500", () =>
    Effect.gen(function* () {
      expect(yield* refusalOf("<html><body>Oops</body></html>")).toEqual([
        "PlatformFailure",
        "platform_unreadable",
        503
      ])
      expect(yield* refusalOf('{"playabilityStatus":{"status":42}}')).toEqual([
        "PlatformFailure",
        "platform_unreadable",
        503
      ])
    })
  )
})

describe("the playability law", () => {
  const status = fc.oneof(
    fc.constantFrom("ERROR", "LOGIN_REQUIRED", "UNPLAYABLE", "LIVE_STREAM_OFFLINE", "CONTENT_CHECK_REQUIRED"),
    fc.stringMatching(/^[A-Z_]{1,20}$/).filter((s) => s !== "OK")
  )

  it("a status other than OK always refuses, with a catalogue code that is never no_captions", () =>
    fc.assert(
      fc.property(status, fc.option(fc.string(), { nil: undefined }), fc.string(), (s, reason, sub) => {
        const body = JSON.stringify({
          playabilityStatus: {
            status: s,
            ...(reason === undefined ? {} : { reason }),
            errorScreen: { playerErrorMessageRenderer: { subreason: { simpleText: sub } } }
          }
        })
        const parsed = parsePlayer(body)
        if (Either.isLeft(parsed)) return expect.unreachable(parsed.left.reason)
        const result = playability(parsed.right, "GJLlxj_dtq8")
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) {
          const [, code] = answered(result.left)
          expect(code).not.toBe("no_captions")
          expect(Errors.allErrorCodes).toContain(code)
        }
      })
    ))
})
