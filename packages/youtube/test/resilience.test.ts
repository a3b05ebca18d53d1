/**
 * Surviving what YouTube throws: transient failures retried with backoff (bounded), reCAPTCHA and
 * bot checks moving on to the next proxy, the concurrency bound and pacing, and the shared cache
 * (one fetch for concurrent requests, bounded, with a time to live, never keeping the platform's
 * own trouble).
 */
import { describe, expect, it } from "@effect/vitest"
import { VideoPlatform } from "@verbatim/core"
import { Duration, Effect, Fiber, Redacted, TestClock } from "effect"
import type { YouTubeSettings } from "../src/config.js"
import {
  errorPages,
  fixture,
  recordedVideos,
  recordedYouTube,
  replayFetch,
  replayLayer,
  testSettings
} from "../src/testing.js"
import { isCaptchaPage } from "../src/transport.js"
import { answered, asTimePasses, at, requestsTo, track, vid, withPlatform } from "./support.js"

/** Answers `status` to the first `times` requests to `path`, then lets the recordings answer. */
const failing = (path: string, times: number, status: number, headers: Record<string, string> = {}) => {
  let left = times
  return {
    match: (r: { readonly url: URL }) => r.url.pathname === path && left-- > 0,
    answer: () => ({ status, headers, body: `failure ${status}` })
  }
}

describe("transient failures", () => {
  it.effect("a 503 twice is retried, and the third attempt answers", () =>
    asTimePasses(
      withPlatform(
        (platform, replay) =>
          Effect.gen(function* () {
            const details = yield* platform.video(vid(recordedVideos.captioned))
            expect(details.durationSeconds).toBe(316)
            expect(requestsTo(replay, "/youtubei/v1/player")).toHaveLength(3)
          }),
        [failing("/youtubei/v1/player", 2, 503)]
      )
    )
  )

  it.effect("5xx on every attempt: 503 platform_unavailable after 1 + retries attempts", () =>
    asTimePasses(
      withPlatform(
        (platform, replay) =>
          Effect.gen(function* () {
            const error = yield* Effect.flip(platform.video(vid(recordedVideos.captioned)))
            expect(answered(error)).toEqual(["PlatformUnavailable", "platform_unavailable", 503])
            expect(error).toMatchObject({ attempts: 3 })
            expect(requestsTo(replay, "/watch")).toHaveLength(3)
          }),
        [failing("/watch", 100, 502)],
        { retries: 2 }
      )
    )
  )

  it.effect(
    "a 429 without a reCAPTCHA is retried; when it persists: 503 platform_blocked (rate_limited)",
    () =>
      asTimePasses(
        Effect.gen(function* () {
          const recovered = yield* withPlatform(
            (platform, replay) =>
              platform
                .video(vid(recordedVideos.captioned))
                .pipe(Effect.map(() => requestsTo(replay, "/watch").length)),
            [failing("/watch", 1, 429, { "retry-after": "0" })]
          )
          expect(recovered).toBe(2)
          const error = yield* withPlatform(
            (platform) => Effect.flip(platform.video(vid(recordedVideos.captioned))),
            [failing("/watch", 100, 429)],
            { retries: 1 }
          )
          expect([...answered(error), error._tag === "PlatformBlocked" && error.kind]).toEqual([
            "PlatformBlocked",
            "platform_blocked",
            503,
            "rate_limited"
          ])
        })
      )
  )

  it.effect("a network error or a request over the time limit is retried, then platform_unavailable", () =>
    asTimePasses(
      Effect.gen(function* () {
        const broken = replayLayer(() => () => Promise.reject(new TypeError("fetch failed: ECONNRESET")), {
          ...testSettings,
          retries: 1
        })
        const error = yield* Effect.flip(
          Effect.flatMap(VideoPlatform, (p) => p.video(vid(recordedVideos.captioned))).pipe(
            Effect.provide(broken)
          )
        )
        expect(answered(error)).toEqual(["PlatformUnavailable", "platform_unavailable", 503])
        expect(error).toMatchObject({ attempts: 2 })

        const aborted: Array<boolean> = []
        const hanging = replayLayer(
          () => (request) =>
            new Promise<Response>((_, reject) => {
              request.signal.addEventListener("abort", () => {
                aborted.push(true)
                reject(new Error("aborted"))
              })
            }),
          { ...testSettings, retries: 1, requestTimeout: Duration.millis(30) }
        )
        const slow = yield* Effect.flip(
          Effect.flatMap(VideoPlatform, (p) => p.video(vid(recordedVideos.captioned))).pipe(
            Effect.provide(hanging)
          )
        )
        expect(answered(slow)).toEqual(["PlatformUnavailable", "platform_unavailable", 503])
        expect(slow).toMatchObject({ reason: expect.stringContaining("took longer than") })
        expect(aborted).toEqual([true, true])
      })
    )
  )

  it.effect("a refusal is not retried: the bot check asks once", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        yield* Effect.flip(platform.video(vid(recordedVideos.botCheck)))
        expect(requestsTo(replay, "/youtubei/v1/player")).toHaveLength(1)
      })
    )
  )
})

describe("proxies", () => {
  const proxies = ["http://one.example:8080", "http://two.example:8080", "http://three.example:8080"]
  const settings = (n: number): YouTubeSettings => ({
    ...testSettings,
    proxies: proxies.slice(0, n).map((p) => Redacted.make(p))
  })

  it.effect("a blocked proxy hands over to the next, which later requests keep using", () =>
    Effect.gen(function* () {
      const used: Array<string> = []
      const blocked = replayFetch([at("/watch", () => errorPages.tooManyRequests()), ...recordedYouTube()])
      const open = replayFetch(recordedYouTube())
      const layer = replayLayer((proxy) => {
        const name = proxy === null ? "direct" : Redacted.value(proxy)
        return (request) => {
          used.push(`${name} ${new URL(request.url).pathname}`)
          return name === proxies[0] ? blocked.fetch(request) : open.fetch(request)
        }
      }, settings(3))
      yield* Effect.gen(function* () {
        const platform = yield* VideoPlatform
        const details = yield* platform.video(vid(recordedVideos.captioned))
        expect(details.title).toBe("Surface Go Review - It’s Awesome")
        yield* platform.video(vid(recordedVideos.twoTracks))
      }).pipe(Effect.provide(layer))
      expect(used).toEqual([
        `${proxies[0]} /watch`,
        `${proxies[1]} /watch`,
        `${proxies[1]} /youtubei/v1/player`,
        `${proxies[1]} /youtubei/v1/player`
      ])
    })
  )

  it.effect("when every proxy is blocked, the block is answered after one try on each", () =>
    Effect.gen(function* () {
      const botCheck = replayFetch([
        at("/youtubei/v1/player", () => ({
          body: JSON.stringify({
            playabilityStatus: { status: "LOGIN_REQUIRED", reason: "Sign in to confirm you’re not a bot" }
          })
        })),
        ...recordedYouTube()
      ])
      const layer = replayLayer(() => botCheck.fetch, settings(2))
      const error = yield* Effect.flip(
        Effect.flatMap(VideoPlatform, (p) => p.video(vid(recordedVideos.captioned))).pipe(
          Effect.provide(layer)
        )
      )
      expect(error).toMatchObject({ _tag: "PlatformBlocked", kind: "bot_check" })
      expect(requestsTo(botCheck, "/youtubei/v1/player")).toHaveLength(2)
    })
  )
})

/** A few real milliseconds, for the replayed answers (promises) to settle; the test clock stays. */
const realPause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))

/** Waits (real time, at most about 5 s) until `count()` reaches `expected`. */
const startsReach = (count: () => number, expected: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 250 && count() < expected; i++) yield* realPause
    expect(count()).toBe(expected)
  })

describe("the concurrency bound and pacing", () => {
  it.effect("never has more requests in flight than the bound", () =>
    Effect.gen(function* () {
      const replay = replayFetch(recordedYouTube())
      let inFlight = 0
      let most = 0
      const layer = replayLayer(
        () => async (request) => {
          inFlight++
          most = Math.max(most, inFlight)
          await new Promise((resolve) => setTimeout(resolve, 5))
          try {
            return await replay.fetch(request)
          } finally {
            inFlight--
          }
        },
        { ...testSettings, concurrency: 2 }
      )
      const ids = ["aaaaaaaaaa1", "aaaaaaaaaa2", "aaaaaaaaaa3", "aaaaaaaaaa4", "aaaaaaaaaa5", "aaaaaaaaaa6"]
      yield* Effect.flatMap(VideoPlatform, (p) =>
        Effect.forEach(ids, (id) => Effect.either(p.video(vid(id))), { concurrency: "unbounded" })
      ).pipe(Effect.provide(layer))
      expect(requestsTo(replay, "/youtubei/v1/player")).toHaveLength(6)
      expect(most).toBe(2)
    })
  )

  // The pacing takes its time from Effect's clock: on the test clock no start can come before its
  // slot, however loaded the machine is; only the replayed answers (promises) take real time.
  it.effect("spaces the starts of requests by the minimum interval", () =>
    Effect.gen(function* () {
      const replay = replayFetch(recordedYouTube())
      let starts = 0
      const layer = replayLayer(
        () => (request) => {
          starts++
          return replay.fetch(request)
        },
        { ...testSettings, concurrency: 4, minInterval: Duration.millis(40) }
      )
      const requests = yield* Effect.fork(
        Effect.flatMap(VideoPlatform, (p) =>
          Effect.forEach(
            ["bbbbbbbbbb1", "bbbbbbbbbb2", "bbbbbbbbbb3"],
            (id) => Effect.either(p.video(vid(id))),
            { concurrency: "unbounded" }
          )
        ).pipe(Effect.provide(layer))
      )
      // One watch page for the session at once, then /player for each video, 40 ms apart.
      yield* startsReach(() => starts, 1)
      for (const started of [1, 2, 3]) {
        yield* TestClock.adjust(Duration.millis(39))
        yield* realPause
        expect(starts).toBe(started)
        yield* TestClock.adjust(Duration.millis(1))
        yield* startsReach(() => starts, started + 1)
      }
      yield* Fiber.join(requests)
      expect(starts).toBe(4)
    })
  )
})

describe("the shared cache", () => {
  it.effect("concurrent requests for one video share one fetch; later ones are answered from the cache", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const id = vid(recordedVideos.captioned)
        yield* Effect.all(
          Array.from({ length: 20 }, () => platform.captions(id, track("en", "manual"))),
          { concurrency: "unbounded" }
        )
        yield* platform.video(id)
        yield* platform.captions(id, track("en", "manual"))
        expect(requestsTo(replay, "/watch")).toHaveLength(1)
        expect(requestsTo(replay, "/youtubei/v1/player")).toHaveLength(1)
        expect(requestsTo(replay, "/api/timedtext")).toHaveLength(1)
      })
    )
  )

  it.effect("keeps facts about a video, never the platform's trouble", () =>
    Effect.gen(function* () {
      const facts = yield* withPlatform((platform, replay) =>
        Effect.gen(function* () {
          yield* Effect.flip(platform.video(vid(recordedVideos.unavailable)))
          yield* Effect.flip(platform.video(vid(recordedVideos.unavailable)))
          return requestsTo(replay, "/youtubei/v1/player").length
        })
      )
      expect(facts).toBe(1)
      const trouble = yield* withPlatform(
        (platform, replay) =>
          Effect.gen(function* () {
            const first = yield* Effect.flip(platform.video(vid(recordedVideos.captioned)))
            expect(first._tag).toBe("PlatformUnavailable")
            yield* platform.video(vid(recordedVideos.captioned))
            return requestsTo(replay, "/youtubei/v1/player").length
          }),
        [failing("/youtubei/v1/player", 1, 500)],
        { retries: 0 }
      )
      expect(trouble).toBe(2)
    })
  )

  // The cache's time to live is Effect's clock: the test clock moves past it.
  it.effect("is bounded in size and forgets entries after their time to live", () =>
    Effect.gen(function* () {
      const bounded = yield* withPlatform(
        (platform, replay) =>
          Effect.gen(function* () {
            for (const id of [recordedVideos.captioned, recordedVideos.twoTracks, recordedVideos.captioned]) {
              yield* platform.video(vid(id))
            }
            return requestsTo(replay, "/youtubei/v1/player").length
          }),
        [],
        { cacheCapacity: 1 }
      )
      expect(bounded).toBe(3)
      const expiring = yield* withPlatform(
        (platform, replay) =>
          Effect.gen(function* () {
            yield* platform.video(vid(recordedVideos.captioned))
            yield* platform.video(vid(recordedVideos.captioned))
            const cached = requestsTo(replay, "/youtubei/v1/player").length
            yield* TestClock.adjust(Duration.millis(80))
            yield* platform.video(vid(recordedVideos.captioned))
            return [cached, requestsTo(replay, "/youtubei/v1/player").length]
          }),
        [],
        { cacheTtl: Duration.millis(50) }
      )
      expect(expiring).toEqual([1, 2])
    })
  )
})

describe("the reCAPTCHA page", () => {
  it("is an HTML page that is not YouTube's own; the same words in a video's answer or captions are not", () => {
    expect(isCaptchaPage(fixture("recorded/youtube_too_many_requests.html.static"))).toBe(true)
    expect(isCaptchaPage(fixture("recorded/youtube.html.static"))).toBe(false)
    const quoted = "Our systems have detected unusual traffic from your computer network"
    expect(isCaptchaPage(JSON.stringify({ videoDetails: { shortDescription: quoted } }))).toBe(false)
    expect(
      isCaptchaPage(`<?xml version="1.0"?><transcript><text start="0">${quoted}</text></transcript>`)
    ).toBe(false)
    expect(
      isCaptchaPage(
        fixture("recorded/youtube.html.static").replace(
          "</body>",
          `<p>${quoted} class="g-recaptcha"</p></body>`
        )
      )
    ).toBe(false)
  })
})
