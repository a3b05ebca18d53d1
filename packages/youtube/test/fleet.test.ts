/**
 * The adapter in a fleet: two adapters (as two processes have, each with its own replay, its own
 * in-process caches and its own pacing) share what the runtime gives them when `REDIS_URL` is set,
 * the egress budget and the shared cache, here their in-memory implementations (the Redis ones pass
 * the same suite in `@verbatim/queue`, and `@verbatim/runtime` runs this over Redis). On the test
 * clock: the budget paces on Effect's clock, which the egress tests move in steps (`asTimePasses`).
 */
import { describe, expect, it } from "@effect/vitest"
import { EgressBudget, egressBackoff, SharedCache, VideoPlatform } from "@verbatim/core"
import { MemoryFleet } from "@verbatim/queue/memory"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import type { YouTubeSettings } from "../src/config.js"
import {
  errorPages,
  recordedVideos,
  recordedYouTube,
  replayFetch,
  replayLayer,
  testSettings
} from "../src/testing.js"
import { asTimePasses, at, track, vid } from "./support.js"

/** A budget that counts reservations per egress, over the in-memory one. */
const countingBudget = Effect.map(MemoryFleet.makeBudget, (budget) => {
  const reservations = new Map<string, number>()
  const counted: EgressBudget["Type"] = {
    ...budget,
    reserve: (egress, rate) => {
      reservations.set(egress, (reservations.get(egress) ?? 0) + 1)
      return budget.reserve(egress, rate)
    }
  }
  return { budget: counted, reservations }
})

const paced: YouTubeSettings = { ...testSettings, minInterval: Duration.millis(1) }

describe("the shared cache", () => {
  it.effect(
    "a video's details and captions fetched by one adapter are read by the other without a request",
    () =>
      Effect.gen(function* () {
        const shared = Layer.succeed(SharedCache, yield* MemoryFleet.makeCache(100))
        const first = replayFetch(recordedYouTube())
        const second = replayFetch(recordedYouTube())
        const video = vid(recordedVideos.captioned)
        const read = Effect.flatMap(VideoPlatform, (platform) =>
          Effect.zip(platform.video(video), platform.captions(video, track("en", "manual")))
        )
        const [detailsA, segmentsA] = yield* Effect.provide(
          read,
          replayLayer(first).pipe(Layer.provide(shared))
        )
        expect(first.requests.length).toBeGreaterThan(0)
        const [detailsB, segmentsB] = yield* Effect.provide(
          read,
          replayLayer(second).pipe(Layer.provide(shared))
        )
        expect(second.requests).toHaveLength(0)
        expect(detailsB).toEqual(detailsA)
        expect(segmentsB).toEqual(segmentsA)
      })
  )

  it.effect("a shared value that does not decode is fetched again and replaced", () =>
    Effect.gen(function* () {
      const cache = yield* MemoryFleet.makeCache(100)
      const video = vid(recordedVideos.captioned)
      yield* cache.set(`youtube:video:${video}`, '{"details":"from another version"}', Duration.hours(1))
      const replay = replayFetch(recordedYouTube())
      const details = yield* Effect.provide(
        Effect.flatMap(VideoPlatform, (platform) => platform.video(video)),
        replayLayer(replay).pipe(Layer.provide(Layer.succeed(SharedCache, cache)))
      )
      expect(details.durationSeconds).toBe(316)
      expect(replay.requests.length).toBeGreaterThan(0)
      const replaced = Option.getOrThrow(yield* cache.get(`youtube:video:${video}`))
      expect(JSON.parse(replaced).details.id).toBe(video)
    })
  )

  it.effect("without a shared cache, each adapter fetches for itself (as before)", () =>
    Effect.gen(function* () {
      const first = replayFetch(recordedYouTube())
      const second = replayFetch(recordedYouTube())
      const video = vid(recordedVideos.captioned)
      const read = Effect.flatMap(VideoPlatform, (platform) => platform.video(video))
      yield* Effect.provide(read, replayLayer(first))
      yield* Effect.provide(read, replayLayer(second))
      expect(second.requests.length).toBe(first.requests.length)
    })
  )
})

describe("the egress budget", () => {
  it.effect("two adapters take every request from the same egress's budget", () =>
    asTimePasses(
      Effect.gen(function* () {
        const { budget, reservations } = yield* countingBudget
        const shared = Layer.succeed(EgressBudget, budget)
        const first = replayFetch(recordedYouTube())
        const second = replayFetch(recordedYouTube())
        const read = (id: string) => Effect.flatMap(VideoPlatform, (platform) => platform.video(vid(id)))
        yield* Effect.provide(
          read(recordedVideos.captioned),
          replayLayer(first, paced).pipe(Layer.provide(shared))
        )
        yield* Effect.provide(
          read(recordedVideos.twoTracks),
          replayLayer(second, paced).pipe(Layer.provide(shared))
        )
        expect([...reservations.keys()]).toEqual(["direct"])
        expect(reservations.get("direct")).toBe(first.requests.length + second.requests.length)
      })
    )
  )

  it.effect(
    "VERBATIM_YOUTUBE_EGRESS names the machine's address in the budget; proxies never show their URL",
    () =>
      asTimePasses(
        Effect.gen(function* () {
          const { budget, reservations } = yield* countingBudget
          const replay = replayFetch(recordedYouTube())
          const proxy = "http://user:secret@proxy.example:8080"
          yield* Effect.provide(
            Effect.flatMap(VideoPlatform, (platform) => platform.video(vid(recordedVideos.captioned))),
            replayLayer(() => replay.fetch, { ...paced, proxies: [Redacted.make(proxy)] }).pipe(
              Layer.provide(Layer.succeed(EgressBudget, budget))
            )
          )
          const names = [...reservations.keys()]
          expect(names).toHaveLength(1)
          expect(names[0]).toMatch(/^proxy-[0-9a-f]{16}$/)
          expect(names[0]).not.toContain("secret")
          const named = yield* countingBudget
          yield* Effect.provide(
            Effect.flatMap(VideoPlatform, (platform) => platform.video(vid(recordedVideos.captioned))),
            replayLayer(replayFetch(recordedYouTube()), { ...paced, egressName: "host-b" }).pipe(
              Layer.provide(Layer.succeed(EgressBudget, named.budget))
            )
          )
          expect([...named.reservations.keys()]).toEqual(["host-b"])
        })
      )
  )

  it.effect("a 429 strikes the egress it came from", () =>
    asTimePasses(
      Effect.gen(function* () {
        const budget = yield* MemoryFleet.makeBudget
        let left = 1
        const replay = replayFetch([
          {
            match: (r) => r.url.pathname === "/watch" && left-- > 0,
            answer: () => ({ status: 429, body: "slow down" })
          },
          ...recordedYouTube()
        ])
        const details = yield* Effect.provide(
          Effect.flatMap(VideoPlatform, (platform) => platform.video(vid(recordedVideos.captioned))),
          replayLayer(replay, paced).pipe(Layer.provide(Layer.succeed(EgressBudget, budget)))
        )
        expect(details.durationSeconds).toBe(316)
        expect(yield* budget.strikes("direct")).toBe(1)
      })
    )
  )

  it.effect(
    "a proxy whose budget collapsed is skipped (until its strikes expire); the others carry the requests",
    () =>
      asTimePasses(
        Effect.gen(function* () {
          const budget = yield* MemoryFleet.makeBudget
          const proxies = ["http://one.example:8080", "http://two.example:8080"]
          const used: Array<string> = []
          const blocked = replayFetch([
            at("/watch", () => errorPages.tooManyRequests()),
            ...recordedYouTube()
          ])
          const open = replayFetch(recordedYouTube())
          const settings: YouTubeSettings = { ...paced, proxies: proxies.map((p) => Redacted.make(p)) }
          const layer = replayLayer((proxy) => {
            const name = proxy === null ? "direct" : Redacted.value(proxy)
            return (request) => {
              used.push(name)
              return name === proxies[0] ? blocked.fetch(request) : open.fetch(request)
            }
          }, settings).pipe(Layer.provide(Layer.succeed(EgressBudget, budget)))
          // Three adapters (three processes) each meet the reCAPTCHA page on proxy 1 and move on.
          for (let i = 0; i < egressBackoff.collapseAt; i++) {
            yield* Effect.provide(
              Effect.flatMap(VideoPlatform, (platform) => platform.video(vid(recordedVideos.captioned))),
              layer
            )
          }
          expect(used.filter((name) => name === proxies[0])).toHaveLength(egressBackoff.collapseAt)
          // A fourth adapter starts on proxy 1 too, but its budget collapsed: it never sends there.
          used.length = 0
          yield* Effect.provide(
            Effect.flatMap(VideoPlatform, (platform) => platform.video(vid(recordedVideos.twoTracks))),
            layer
          )
          expect(used.length).toBeGreaterThan(0)
          expect(used.every((name) => name === proxies[1])).toBe(true)
        })
      )
  )
})
