import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Redacted } from "effect"
import { defaultSettings, YouTubeConfig } from "../src/config.js"

const read = (env: Record<string, string>) =>
  Effect.withConfigProvider(YouTubeConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("YouTubeConfig", () => {
  it.effect("has the documented defaults", () =>
    Effect.gen(function* () {
      expect(yield* read({})).toEqual(defaultSettings)
    })
  )

  it.effect("reads every variable", () =>
    Effect.gen(function* () {
      const settings = yield* read({
        VERBATIM_YOUTUBE_PROXY: "http://user:pw@one.example:8080",
        VERBATIM_YOUTUBE_PROXIES:
          " http://two.example:3128 ,, https://three.example , http://user:pw@one.example:8080",
        VERBATIM_YOUTUBE_CACHE_TTL_SECONDS: "0",
        VERBATIM_YOUTUBE_CACHE_SIZE: "10",
        VERBATIM_YOUTUBE_CONCURRENCY: "1",
        VERBATIM_YOUTUBE_MIN_INTERVAL_MS: "1000",
        VERBATIM_YOUTUBE_BURST: "3",
        VERBATIM_YOUTUBE_EGRESS: "host-b.eu-1",
        VERBATIM_YOUTUBE_TIMEOUT_MS: "2000",
        VERBATIM_YOUTUBE_RETRIES: "0",
        VERBATIM_YOUTUBE_RETRY_BASE_MS: "50",
        VERBATIM_YTDLP_PATH: "/usr/local/bin/yt-dlp",
        VERBATIM_YOUTUBE_AUDIO_TIMEOUT_MS: "60000"
      })
      expect(settings.proxies.map(Redacted.value)).toEqual([
        "http://user:pw@one.example:8080",
        "http://two.example:3128",
        "https://three.example"
      ])
      expect(String(settings.proxies[0])).not.toContain("pw")
      expect([
        Duration.toMillis(settings.cacheTtl),
        settings.cacheCapacity,
        settings.concurrency,
        Duration.toMillis(settings.minInterval),
        settings.burst,
        settings.egressName,
        Duration.toMillis(settings.requestTimeout),
        settings.retries,
        Duration.toMillis(settings.retryBase),
        settings.ytDlpPath,
        Duration.toMillis(settings.audioTimeout)
      ]).toEqual([0, 10, 1, 1000, 3, "host-b.eu-1", 2000, 0, 50, Option.some("/usr/local/bin/yt-dlp"), 60000])
    })
  )

  it.effect("refuses bad values with a message naming the variable", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{ VERBATIM_YOUTUBE_PROXY: "socks5://proxy:1080" }, "VERBATIM_YOUTUBE_PROXY"],
        [{ VERBATIM_YOUTUBE_PROXIES: "http://ok.example,not a url" }, "VERBATIM_YOUTUBE_PROXIES"],
        [{ VERBATIM_YOUTUBE_CACHE_TTL_SECONDS: "-1" }, "VERBATIM_YOUTUBE_CACHE_TTL_SECONDS"],
        [{ VERBATIM_YOUTUBE_CACHE_SIZE: "0" }, "VERBATIM_YOUTUBE_CACHE_SIZE"],
        [{ VERBATIM_YOUTUBE_CONCURRENCY: "0" }, "VERBATIM_YOUTUBE_CONCURRENCY"],
        [{ VERBATIM_YOUTUBE_CONCURRENCY: "two" }, "VERBATIM_YOUTUBE_CONCURRENCY"],
        [{ VERBATIM_YOUTUBE_MIN_INTERVAL_MS: "-5" }, "VERBATIM_YOUTUBE_MIN_INTERVAL_MS"],
        [{ VERBATIM_YOUTUBE_BURST: "0" }, "VERBATIM_YOUTUBE_BURST"],
        [{ VERBATIM_YOUTUBE_EGRESS: "my host" }, "VERBATIM_YOUTUBE_EGRESS"],
        [{ VERBATIM_YOUTUBE_TIMEOUT_MS: "10" }, "VERBATIM_YOUTUBE_TIMEOUT_MS"],
        [{ VERBATIM_YOUTUBE_RETRIES: "11" }, "VERBATIM_YOUTUBE_RETRIES"],
        [{ VERBATIM_YOUTUBE_RETRY_BASE_MS: "0" }, "VERBATIM_YOUTUBE_RETRY_BASE_MS"],
        [{ VERBATIM_YTDLP_PATH: "  " }, "VERBATIM_YTDLP_PATH"],
        [{ VERBATIM_YOUTUBE_AUDIO_TIMEOUT_MS: "5" }, "VERBATIM_YOUTUBE_AUDIO_TIMEOUT_MS"]
      ]
      for (const [env, variable] of cases) {
        const error = yield* Effect.flip(read(env))
        expect(String(error), JSON.stringify(env)).toContain(variable)
      }
    })
  )
})
