/**
 * The fleet's share of YouTube as the runtime wires it (`platformFor`) on the running Redis: two
 * adapters, each with its own Redis connections, in-process caches and replayed YouTube (as two
 * processes have), read the same video for two accounts; YouTube answers the first only. And their
 * requests take from one budget: a push-back seen by one slows the other.
 */
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { EgressBudget, VideoPlatform } from "@verbatim/core"
import { Captions, type Ids, type Language } from "@verbatim/domain"
import { RedisConnection } from "@verbatim/queue/redis"
import { YouTubeFetch } from "@verbatim/youtube"
import { recordedVideos, recordedYouTube, replayFetch, testSettings } from "@verbatim/youtube/testing"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { platformFleetOnRedis, platformFor } from "../src/index.js"

const redisUrl = process.env.REDIS_URL?.trim() ?? ""
const prefix = `${process.env.VERBATIM_REDIS_PREFIX?.trim() || "verbatim-test:"}fleet-${randomUUID().slice(0, 8)}:`
const redis = { url: Option.some(Redacted.make(redisUrl)), prefix }
const youtube = { ...testSettings, minInterval: Duration.millis(1) }

/** One process's adapter over its own replay, wired as the runtime wires it. */
const adapter = (replay: ReturnType<typeof replayFetch>) =>
  platformFor({
    platform: "youtube",
    demoCatalogue: "",
    demoLatencyMs: 0,
    youtube: Option.some(youtube),
    redis
  }).pipe(Layer.provide(Layer.succeed(YouTubeFetch, YouTubeFetch.everywhere(replay.fetch))))

const english = new Captions.CaptionTrack({
  language: "en" as Language.LanguageCode,
  kind: "manual",
  name: null
})

// Live clock: the adapters share Redis, which keeps real time.
describe.skipIf(redisUrl === "" && process.env.CI !== "true")("YouTube across processes, on Redis", () => {
  // The cache's values live an hour: this run's keys go with it.
  afterAll(() =>
    Effect.runPromise(
      Effect.flatMap(RedisConnection, (client) =>
        Effect.promise(async () => {
          const keys = await client.keys(`${prefix}*`)
          if (keys.length > 0) await client.unlink(...keys)
        })
      ).pipe(
        Effect.provide(RedisConnection.layer({ url: Redacted.make(redisUrl), connectionName: "fleet-test" })),
        Effect.scoped
      )
    )
  )

  it.live("the same captions asked by two accounts on two processes: one fetch from YouTube", () =>
    Effect.gen(function* () {
      const video = recordedVideos.captioned as Ids.VideoId
      // Account A's request on process 1, account B's on process 2: the platform knows no account.
      const read = Effect.flatMap(VideoPlatform, (platform) =>
        Effect.zip(platform.video(video), platform.captions(video, english))
      )
      const one = replayFetch(recordedYouTube())
      const two = replayFetch(recordedYouTube())
      const [detailsA, captionsA] = yield* Effect.scoped(Effect.provide(read, adapter(one)))
      const [detailsB, captionsB] = yield* Effect.scoped(Effect.provide(read, adapter(two)))
      expect(one.requests.map((r) => r.url.pathname)).toContain("/api/timedtext")
      expect(two.requests).toHaveLength(0)
      expect(detailsB).toEqual(detailsA)
      expect(captionsB).toEqual(captionsA)
    })
  )

  it.live("a push-back seen by one process strikes the egress every process sends from", () =>
    Effect.gen(function* () {
      const strikesFrom = (n: number) =>
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(platformFleetOnRedis(redis, Redacted.make(redisUrl), youtube))
            const budget = Effect.provide(EgressBudget, context)
            if (n > 0)
              yield* Effect.flatMap(budget, (b) => b.pushBack("direct", { ratePerSecond: 4, burst: 1 }))
            return yield* Effect.flatMap(budget, (b) => b.strikes("direct"))
          })
        )
      expect(yield* strikesFrom(1)).toBe(1)
      expect(yield* strikesFrom(0)).toBe(1)
    })
  )
})
