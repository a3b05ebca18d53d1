/**
 * The YouTube adapter's settings, all from environment variables. A bad value stops the start with
 * a message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_YOUTUBE_PROXY | unset | one proxy URL (`http://user:pass@host:port`) every request goes through |
 * | VERBATIM_YOUTUBE_PROXIES | unset | comma-separated proxy URLs; the next is used when YouTube blocks one |
 * | VERBATIM_YOUTUBE_CACHE_TTL_SECONDS | 3600 | how long details, caption texts and list pages are kept (0 keeps nothing) |
 * | VERBATIM_YOUTUBE_CACHE_SIZE | 2000 | at most this many entries in each of the three caches |
 * | VERBATIM_YOUTUBE_CONCURRENCY | 4 | requests to YouTube in flight at once, for the whole process |
 * | VERBATIM_YOUTUBE_MIN_INTERVAL_MS | 250 | at least this long between the starts of two requests from one egress (each proxy, or this address), for the whole fleet when `REDIS_URL` is set (one budget in Redis), else for this process; 0 paces nothing |
 * | VERBATIM_YOUTUBE_BURST | 1 | requests one egress may start at once after a quiet spell |
 * | VERBATIM_YOUTUBE_EGRESS | direct | the name of this machine's own address in the shared budget: processes that send from different addresses set different names |
 * | VERBATIM_YOUTUBE_TIMEOUT_MS | 15000 | one request's time limit (until its whole body is read) |
 * | VERBATIM_YOUTUBE_RETRIES | 3 | retries of a transient failure (timeout, network error, 5xx, 429) |
 * | VERBATIM_YOUTUBE_RETRY_BASE_MS | 500 | first backoff; it doubles each retry, with full jitter, capped at 30 s |
 * | VERBATIM_YTDLP_PATH | unset | a `yt-dlp` binary; when set, audio is downloaded through it |
 * | VERBATIM_YOUTUBE_AUDIO_TIMEOUT_MS | 600000 | time limit of one audio download (direct or yt-dlp) |
 */
import { Config, Duration, Option, Redacted } from "effect"

export interface YouTubeSettings {
  /** Proxies in rotation order; empty means direct. */
  readonly proxies: ReadonlyArray<Redacted.Redacted<string>>
  readonly cacheTtl: Duration.Duration
  readonly cacheCapacity: number
  readonly concurrency: number
  readonly minInterval: Duration.Duration
  /** Requests an egress may start at once after a quiet spell. */
  readonly burst: number
  /** The budget's name for direct requests (this machine's address). */
  readonly egressName: string
  readonly requestTimeout: Duration.Duration
  readonly retries: number
  readonly retryBase: Duration.Duration
  readonly ytDlpPath: Option.Option<string>
  readonly audioTimeout: Duration.Duration
}

/** The defaults, as the table above gives them. */
export const defaultSettings: YouTubeSettings = {
  proxies: [],
  cacheTtl: Duration.hours(1),
  cacheCapacity: 2000,
  concurrency: 4,
  minInterval: Duration.millis(250),
  burst: 1,
  egressName: "direct",
  requestTimeout: Duration.seconds(15),
  retries: 3,
  retryBase: Duration.millis(500),
  ytDlpPath: Option.none(),
  audioTimeout: Duration.minutes(10)
}

const proxyUrl = /^https?:\/\/[^\s/]+(\/\S*)?$/

/** Splits a proxy list on commas; blank entries are ignored. */
export const splitProxies = (list: string): ReadonlyArray<string> =>
  list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

const proxies: Config.Config<ReadonlyArray<Redacted.Redacted<string>>> = Config.all({
  one: Config.option(Config.redacted("VERBATIM_YOUTUBE_PROXY")),
  list: Config.option(Config.redacted("VERBATIM_YOUTUBE_PROXIES"))
}).pipe(
  Config.map(({ one, list }) => [
    ...Option.match(one, {
      onNone: () => [],
      onSome: (url) => (Redacted.value(url).trim() === "" ? [] : [Redacted.value(url).trim()])
    }),
    ...Option.match(list, { onNone: () => [], onSome: (urls) => splitProxies(Redacted.value(urls)) })
  ]),
  Config.validate({
    message:
      "VERBATIM_YOUTUBE_PROXY and VERBATIM_YOUTUBE_PROXIES take http:// or https:// proxy URLs (user:password@host:port)",
    validation: (urls) => urls.every((url) => proxyUrl.test(url))
  }),
  Config.map((urls) => [...new Set(urls)].map((url) => Redacted.make(url)))
)

const integer = (name: string, fallback: number, min: number, rule: string) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be ${rule}`, validation: (n) => n >= min }),
    Config.withDefault(fallback)
  )

/** Every setting of the adapter, read from the environment (see the table above). */
export const YouTubeConfig: Config.Config<YouTubeSettings> = Config.all({
  proxies,
  cacheTtl: integer(
    "VERBATIM_YOUTUBE_CACHE_TTL_SECONDS",
    3600,
    0,
    "a whole number of seconds, 0 or more"
  ).pipe(Config.map(Duration.seconds)),
  cacheCapacity: integer("VERBATIM_YOUTUBE_CACHE_SIZE", 2000, 1, "a whole number of entries, at least 1"),
  concurrency: integer("VERBATIM_YOUTUBE_CONCURRENCY", 4, 1, "a whole number of requests, at least 1"),
  minInterval: integer(
    "VERBATIM_YOUTUBE_MIN_INTERVAL_MS",
    250,
    0,
    "a whole number of milliseconds, 0 or more"
  ).pipe(Config.map(Duration.millis)),
  burst: integer("VERBATIM_YOUTUBE_BURST", 1, 1, "a whole number of requests, at least 1"),
  egressName: Config.string("VERBATIM_YOUTUBE_EGRESS").pipe(
    Config.validate({
      message: "VERBATIM_YOUTUBE_EGRESS must be a name of letters, digits, dots, dashes or underscores",
      validation: (name) => /^[A-Za-z0-9._-]{1,100}$/.test(name)
    }),
    Config.withDefault("direct")
  ),
  requestTimeout: integer(
    "VERBATIM_YOUTUBE_TIMEOUT_MS",
    15_000,
    100,
    "a whole number of milliseconds, at least 100"
  ).pipe(Config.map(Duration.millis)),
  retries: integer("VERBATIM_YOUTUBE_RETRIES", 3, 0, "a whole number, 0 or more").pipe(
    Config.validate({ message: "VERBATIM_YOUTUBE_RETRIES must be at most 10", validation: (n) => n <= 10 })
  ),
  retryBase: integer(
    "VERBATIM_YOUTUBE_RETRY_BASE_MS",
    500,
    1,
    "a whole number of milliseconds, at least 1"
  ).pipe(Config.map(Duration.millis)),
  ytDlpPath: Config.option(
    Config.string("VERBATIM_YTDLP_PATH").pipe(
      Config.validate({
        message: "VERBATIM_YTDLP_PATH must name the yt-dlp binary (not blank)",
        validation: (path) => path.trim() !== ""
      })
    )
  ),
  audioTimeout: integer(
    "VERBATIM_YOUTUBE_AUDIO_TIMEOUT_MS",
    600_000,
    1000,
    "a whole number of milliseconds, at least 1000"
  ).pipe(Config.map(Duration.millis))
})
