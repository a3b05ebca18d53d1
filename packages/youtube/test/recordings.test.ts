/**
 * The adapter on every recorded answer: what a playable video says, and every recorded error page
 * becoming its documented code and status (docs/decisions/youtube.md).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { errorPages, recordedVideos } from "../src/testing.js"
import { answered, at, lang, requestsTo, track, vid, withPlatform } from "./support.js"

describe("a playable recorded video", () => {
  it.effect("answers its details from /player, with the API key of the watch page", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const details = yield* platform.video(vid(recordedVideos.captioned))
        expect(details.title).toBe("Surface Go Review - It’s Awesome")
        expect(details.durationSeconds).toBe(316)
        expect(details.channelId).toBe("UCVYamHliCI9rw1tHR1xbkfw")
        expect(details.channelTitle).toBe("Dave2D")
        // The ANDROID answer has no microformat: no publication date.
        expect(details.publishedAt).toBeNull()
        expect(details.originalLanguage).toBe("en")
        expect(details.captionTracks.map((t) => `${t.kind}:${t.language}:${t.name}`)).toEqual([
          "manual:zh:Chinese",
          "manual:cs:Czech",
          "manual:en:English",
          "auto:en:English (auto-generated)",
          "manual:de:German",
          "manual:hi:Hindi",
          "manual:ja:Japanese",
          "manual:ko:Korean",
          "manual:es:Spanish"
        ])
        expect(details.translationLanguages).toHaveLength(18)
        expect(details.translationLanguages).toContain("zh-Hant")
        // The watch page is asked with the video id; /player with the page's API key and the ANDROID client.
        const [player] = requestsTo(replay, "/youtubei/v1/player")
        expect(player?.url.searchParams.get("key")).toBe("AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8")
        expect(JSON.parse(player?.body ?? "{}")).toMatchObject({
          videoId: recordedVideos.captioned,
          context: { client: { clientName: "ANDROID" } }
        })
        expect(replay.unmatched).toEqual([])
      })
    )
  )

  it.effect("reads a watch page once a session, not for every video", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        yield* platform.video(vid(recordedVideos.captioned))
        const details = yield* platform.video(vid(recordedVideos.twoTracks))
        expect(details.durationSeconds).toBe(1509)
        expect(details.captionTracks.map((t) => `${t.kind}:${t.language}`)).toEqual(["manual:en", "auto:en"])
        expect(requestsTo(replay, "/watch")).toHaveLength(1)
        expect(requestsTo(replay, "/youtubei/v1/player").map((r) => r.url.searchParams.get("key"))).toEqual([
          "AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8",
          "AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8"
        ])
      })
    )
  )

  it.effect("reads a watch page again when /player refuses the session's key", () =>
    withPlatform(
      (platform, replay) =>
        Effect.gen(function* () {
          yield* platform.video(vid(recordedVideos.captioned))
          expect(requestsTo(replay, "/watch")).toHaveLength(2)
          expect(requestsTo(replay, "/youtubei/v1/player")).toHaveLength(2)
        }),
      [
        {
          match: (() => {
            let left = 1
            return (r: { readonly url: URL }) => r.url.pathname === "/youtubei/v1/player" && left-- > 0
          })(),
          answer: () => ({ status: 400, body: '{"error":{"code":400,"message":"API key not valid."}}' })
        }
      ]
    )
  )

  it.effect("reads the same video recorded with another user agent the same way", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const a = yield* platform.video(vid(recordedVideos.captioned))
        const b = yield* platform.video(vid(recordedVideos.alteredUserAgent))
        expect(b.captionTracks).toEqual(a.captionTracks)
        expect(b.translationLanguages).toEqual(a.translationLanguages)
      })
    )
  )

  it.effect("reads the manual English json3 text: entities decoded, lines joined, empty cues dropped", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const segments = yield* platform.captions(vid(recordedVideos.captioned), track("en", "manual"))
        expect(segments.map((s) => [s.start, s.end, s.text])).toEqual([
          [0, 2100, "Microsoft's Surface Go is finally here."],
          [2100, 5000, "It's small, it's light & it's cheap."],
          [5400, 9000, "But is it actually — good?"],
          [9000, 11501, "Let’s find out."],
          [11500, 14500, "The keyboard costs $99 extra."]
        ])
        const [caption] = requestsTo(replay, "/api/timedtext")
        expect(caption?.url.searchParams.get("fmt")).toBe("json3")
        expect(caption?.url.searchParams.get("kind")).toBeNull()
      })
    )
  )

  it.effect("reads the auto English srv3 text and cuts its rolling cues at the next start", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const segments = yield* platform.captions(vid(recordedVideos.captioned), track("en", "auto"))
        expect(segments.map((s) => [s.start, s.end, s.text])).toEqual([
          [80, 2090, "so microsoft's surface go"],
          [2090, 5400, "is finally here & it's"],
          [5400, 8500, "small light and cheap"],
          [5400, 6300, "[Music]"],
          [8600, 11000, "but is it good"]
        ])
      })
    )
  )

  it.effect("reads the legacy <transcript> format of the other tracks", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const segments = yield* platform.captions(vid(recordedVideos.captioned), track("de", "manual"))
        expect(segments.map((s) => [s.start, s.end, s.text])).toEqual([
          [0, 1540, "Hey, this is just a test"],
          [1540, 5700, "this is not the original transcript"],
          [5700, 8939, "just something shorter, I made up for testing"]
        ])
      })
    )
  )

  it.effect("asks YouTube for its own translation with tlang", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const segments = yield* platform.captions(vid(recordedVideos.captioned), track("en", "manual"), {
          translateTo: lang("de")
        })
        expect(segments.map((s) => s.text)).toEqual([
          "Microsofts Surface Go ist endlich da.",
          "Es ist klein, leicht & günstig.",
          "Aber ist es wirklich gut?"
        ])
        expect(requestsTo(replay, "/api/timedtext")[0]?.url.searchParams.get("tlang")).toBe("de")
        const refused = yield* Effect.flip(
          platform.captions(vid(recordedVideos.captioned), track("en", "manual"), { translateTo: lang("sw") })
        )
        expect(answered(refused)).toEqual(["TranslationUnavailable", "unsupported_language", 400])
      })
    )
  )

  it.effect("a video without captions lists no track (and no caption request is made)", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        for (const id of [recordedVideos.captionsDisabled, recordedVideos.pastLiveStream]) {
          const details = yield* platform.video(vid(id))
          expect(details.captionTracks).toEqual([])
        }
        const missing = yield* Effect.flip(
          platform.captions(vid(recordedVideos.captionsDisabled), track("en", "auto"))
        )
        expect(answered(missing)).toEqual(["CaptionTrackNotFound", "no_captions", 404])
        expect(requestsTo(replay, "/api/timedtext")).toEqual([])
      })
    )
  )
})

describe("every recorded refusal becomes its documented code", () => {
  const refusal = (id: string) =>
    withPlatform((platform) => Effect.flip(platform.video(vid(id))).pipe(Effect.map(answered)))

  it.effect("age restricted: 403 age_restricted", () =>
    Effect.map(refusal(recordedVideos.ageRestricted), (a) =>
      expect(a).toEqual(["VideoRestricted", "age_restricted", 403])
    )
  )

  it.effect("'Sign in to confirm you're not a bot': 503 platform_blocked (bot_check)", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(platform.video(vid(recordedVideos.botCheck)))
        expect(answered(error)).toEqual(["PlatformBlocked", "platform_blocked", 503])
        expect(error).toMatchObject({ kind: "bot_check" })
      })
    )
  )

  it.effect("video unavailable, and any id without a recording: 404 video_unavailable", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        for (const id of [recordedVideos.unavailable, "zzzzzzzzzzz"]) {
          const error = yield* Effect.flip(platform.video(vid(id)))
          expect(answered(error)).toEqual(["VideoUnavailable", "video_unavailable", 404])
          expect(error).toMatchObject({ reason: "This video is unavailable" })
        }
      })
    )
  )

  it.effect("a generic unplayable status: 404 video_unavailable with YouTube's reason and sub-reasons", () =>
    withPlatform((platform) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(platform.video(vid(recordedVideos.unplayable)))
        expect(answered(error)).toEqual(["VideoUnavailable", "video_unavailable", 404])
        expect(error).toMatchObject({ reason: "Custom Reason (Sub Reason 1Sub Reason 2)" })
      })
    )
  )

  it.effect(
    "caption URLs that want a PO token: 503 platform_blocked (po_token_required), never empty captions",
    () =>
      withPlatform((platform, replay) =>
        Effect.gen(function* () {
          const details = yield* platform.video(vid(recordedVideos.poTokenRequired))
          expect(details.captionTracks).toHaveLength(9)
          const error = yield* Effect.flip(
            platform.captions(vid(recordedVideos.poTokenRequired), track("en", "manual"))
          )
          expect(answered(error)).toEqual(["PlatformBlocked", "platform_blocked", 503])
          expect(error).toMatchObject({ kind: "po_token_required" })
          expect(requestsTo(replay, "/api/timedtext")).toEqual([])
        })
      )
  )

  it.effect("a caption URL that answers an empty body: 503 platform_blocked (po_token_required)", () =>
    withPlatform(
      (platform) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(
            platform.captions(vid(recordedVideos.captioned), track("en", "manual"))
          )
          expect(answered(error)).toEqual(["PlatformBlocked", "platform_blocked", 503])
          expect(error).toMatchObject({ kind: "po_token_required" })
        }),
      [at("/api/timedtext", () => ({ body: "" }))]
    )
  )

  it.effect("the reCAPTCHA page, with 429 or 200: 503 platform_blocked (ip_blocked), without retrying", () =>
    Effect.forEach([429, 200], (status) =>
      withPlatform(
        (platform, replay) =>
          Effect.gen(function* () {
            const error = yield* Effect.flip(platform.video(vid(recordedVideos.captioned)))
            expect(answered(error)).toEqual(["PlatformBlocked", "platform_blocked", 503])
            expect(error).toMatchObject({ kind: "ip_blocked" })
            expect(requestsTo(replay, "/watch")).toHaveLength(1)
          }),
        [at("/watch", () => errorPages.tooManyRequests(status))]
      )
    )
  )

  it.effect("the consent page: accepted with the CONSENT cookie, which every later request carries", () =>
    withPlatform(
      (platform, replay) =>
        Effect.gen(function* () {
          yield* platform.video(vid(recordedVideos.captioned))
          yield* platform.video(vid(recordedVideos.twoTracks))
          yield* platform.captions(vid(recordedVideos.twoTracks), track("en", "manual"))
          const consent = "CONSENT=YES+cb.20210328-17-p0.de+FX+119"
          expect(requestsTo(replay, "/watch").map((r) => r.headers.get("cookie"))).toEqual([null, consent])
          const later = replay.requests.filter((r) => r.url.pathname !== "/watch")
          expect(later.map((r) => r.headers.get("cookie"))).toEqual([consent, consent, consent])
        }),
      [
        {
          match: (r) => r.url.pathname === "/watch" && r.headers.get("cookie") === null,
          answer: () => errorPages.consent()
        }
      ]
    )
  )

  it.effect("a consent page without its value, or one that comes back: 503 platform_blocked (consent)", () =>
    Effect.gen(function* () {
      const invalid = yield* withPlatform(
        (platform) => Effect.flip(platform.video(vid(recordedVideos.captioned))),
        [at("/watch", () => errorPages.consentInvalid())]
      )
      expect([...answered(invalid), invalid._tag === "PlatformBlocked" && invalid.kind]).toEqual([
        "PlatformBlocked",
        "platform_blocked",
        503,
        "consent"
      ])
      const again = yield* withPlatform(
        (platform, replay) =>
          Effect.flip(platform.video(vid(recordedVideos.captioned))).pipe(
            Effect.tap(() => Effect.sync(() => expect(requestsTo(replay, "/watch")).toHaveLength(2)))
          ),
        [at("/watch", () => errorPages.consent())]
      )
      expect(again).toMatchObject({ _tag: "PlatformBlocked", kind: "consent" })
    })
  )
})
