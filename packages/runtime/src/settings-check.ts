/**
 * The settings a process is started with, checked before it runs (server, worker, admin command):
 *
 * - a `VERBATIM_*` variable that is no setting of Verbatim (a misspelt `VERBATIM_PLATFROM`) stops the
 *   start, naming the closest setting; with `VERBATIM_UNKNOWN_SETTINGS=warn` it is a warning instead;
 * - every value a setting refuses is one plain line naming the variable, the value (never a secret's)
 *   and what is allowed;
 * - all of them at once: one line each, not the first one only.
 *
 * `knownSettings` is every `VERBATIM_*` name the apps and packages read; a test
 * (`packages/runtime/test/settings-check.test.ts`) requires it to equal the names their sources
 * spell, so a new setting cannot be forgotten here.
 */
import { Config, type ConfigError, Data, Effect, Either } from "effect"
import { secretSettings } from "./secret-files.js"

/** Every `VERBATIM_*` setting read by the server, the worker, the admin command or the MCP server. */
export const knownSettings: ReadonlyArray<string> = [
  "VERBATIM_AI_API_KEY",
  "VERBATIM_AI_BASE_URL",
  "VERBATIM_AI_CONCURRENCY",
  "VERBATIM_AI_MAX_INPUT_CHARS",
  "VERBATIM_AI_MODEL",
  "VERBATIM_AI_RETRIES",
  "VERBATIM_AI_TIMEOUT_MS",
  "VERBATIM_APERTIUM_BIN",
  "VERBATIM_APERTIUM_CONCURRENCY",
  "VERBATIM_APERTIUM_TIMEOUT_MS",
  "VERBATIM_API_KEY",
  "VERBATIM_ASR",
  "VERBATIM_ASR_CONCURRENCY",
  "VERBATIM_BASE_URL",
  "VERBATIM_BATCH_CONCURRENCY",
  "VERBATIM_BLOB_DIR",
  "VERBATIM_BLOB_SIGNED_URL_BASE",
  "VERBATIM_BLOB_SIGNING_KEY",
  "VERBATIM_DATA_DIR",
  "VERBATIM_DEMO_CATALOG",
  "VERBATIM_DEMO_LATENCY_MS",
  "VERBATIM_DEMO_PACE_MS",
  "VERBATIM_FFMPEG_PATH",
  "VERBATIM_JOB_LEASE_MS",
  "VERBATIM_JOB_MAX_ATTEMPTS",
  "VERBATIM_KEEP_ALIVE_TIMEOUT_MS",
  "VERBATIM_LOG_FORMAT",
  "VERBATIM_LOG_LEVEL",
  "VERBATIM_MAX_CONNECTIONS",
  "VERBATIM_MAX_CONNECTIONS_PER_ADDRESS",
  "VERBATIM_MCP_ALLOWED_ORIGINS",
  "VERBATIM_PLATFORM",
  "VERBATIM_POCKETSPHINX_CONCURRENCY",
  "VERBATIM_POCKETSPHINX_CONVERT_TIMEOUT_MS",
  "VERBATIM_POCKETSPHINX_MAX_SEGMENT_MS",
  "VERBATIM_POCKETSPHINX_MIN_TIMEOUT_MS",
  "VERBATIM_POCKETSPHINX_MODEL_DIR",
  "VERBATIM_POCKETSPHINX_PATH",
  "VERBATIM_POCKETSPHINX_PAUSE_MS",
  "VERBATIM_POCKETSPHINX_TIMEOUT_FACTOR",
  "VERBATIM_POCKETSPHINX_TMPDIR",
  "VERBATIM_PUBLIC_URL",
  "VERBATIM_RECONCILE_MS",
  "VERBATIM_REDIS_PREFIX",
  "VERBATIM_S3_ACCESS_KEY_ID",
  "VERBATIM_S3_BUCKET",
  "VERBATIM_S3_ENDPOINT",
  "VERBATIM_S3_FORCE_PATH_STYLE",
  "VERBATIM_S3_REGION",
  "VERBATIM_S3_SECRET_ACCESS_KEY",
  "VERBATIM_SEED",
  "VERBATIM_SHUTDOWN_GRACE_MS",
  "VERBATIM_THEMES_CONCURRENCY",
  "VERBATIM_THEMES_ENGINE",
  "VERBATIM_THEMES_MAX_ATTEMPTS",
  "VERBATIM_THEMES_WAIT_MS",
  "VERBATIM_TRANSLATION",
  "VERBATIM_UNKNOWN_SETTINGS",
  "VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND",
  "VERBATIM_UPLOAD_PUT_FLOOR_MS",
  "VERBATIM_WEB",
  "VERBATIM_WEBHOOK_ALLOWED_HOSTS",
  "VERBATIM_WEBHOOK_CONCURRENCY",
  "VERBATIM_WEBHOOK_SCHEDULE",
  "VERBATIM_WEBHOOK_TIMEOUT_MS",
  "VERBATIM_WORKER",
  "VERBATIM_WORKER_CONCURRENCY",
  "VERBATIM_WORKER_HEARTBEAT_FILE",
  "VERBATIM_WORKER_HEARTBEAT_MS",
  "VERBATIM_YOUTUBE_AUDIO_TIMEOUT_MS",
  "VERBATIM_YOUTUBE_BURST",
  "VERBATIM_YOUTUBE_CACHE_SIZE",
  "VERBATIM_YOUTUBE_CACHE_TTL_SECONDS",
  "VERBATIM_YOUTUBE_CONCURRENCY",
  "VERBATIM_YOUTUBE_EGRESS",
  "VERBATIM_YOUTUBE_MIN_INTERVAL_MS",
  "VERBATIM_YOUTUBE_PROXIES",
  "VERBATIM_YOUTUBE_PROXY",
  "VERBATIM_YOUTUBE_RETRIES",
  "VERBATIM_YOUTUBE_RETRY_BASE_MS",
  "VERBATIM_YOUTUBE_TIMEOUT_MS",
  "VERBATIM_YTDLP_PATH"
]

/**
 * `VERBATIM_*` names that belong to the project's tools rather than to a process (the deployment's
 * compose variables, Caddy's upstreams, the tests' and the benchmarks' knobs): an environment that
 * exports them for those tools still starts the apps, silently.
 */
export const toolSettings: ReadonlyArray<string> = [
  "VERBATIM_HTTP_PORT",
  "VERBATIM_IMAGE_TEST",
  "VERBATIM_IMAGE_CACHE",
  "VERBATIM_DEBIAN_MIRROR",
  "VERBATIM_WORKER_REPLICAS",
  "VERBATIM_UPSTREAMS",
  "VERBATIM_FUZZ_RUNS",
  "VERBATIM_TEST_BATCH_SIZE",
  "VERBATIM_YOUTUBE_LIVE",
  "VERBATIM_KEY",
  "VERBATIM_URL",
  "VERBATIM_WEBHOOK_SECRET"
]

const known: ReadonlySet<string> = new Set([
  ...knownSettings,
  ...toolSettings,
  ...secretSettings.map((name) => `${name}_FILE`)
])

/** Whether a value may be printed: a secret's never is. */
const isSecret = (name: string): boolean => (secretSettings as ReadonlyArray<string>).includes(name)

/** The number of edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
export const editDistance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = []
  for (let i = 0; i <= a.length; i++) {
    const row: Array<number> = [i]
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j)
        continue
      }
      const above = rows[i - 1] ?? []
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1)
      }
      row.push(best)
    }
    rows.push(row)
  }
  return rows[a.length]?.[b.length] ?? Math.max(a.length, b.length)
}

/** The known setting closest to `name`, when one is close enough to be what was meant. */
export const closestSetting = (name: string): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of [...knownSettings, ...secretSettings.map((secret) => `${secret}_FILE`)]) {
    const distance = editDistance(name, candidate)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  // A third of the part after VERBATIM_ may be wrong (a typo, a swapped pair, a missing word's letters).
  return bestDistance <= Math.max(2, Math.floor((name.length - "VERBATIM_".length) / 3)) ? best : undefined
}

type Env = Readonly<Record<string, string | undefined>>

/** One line per `VERBATIM_*` variable of `env` that is no setting, naming the closest one. */
export const unknownSettingLines = (env: Env): ReadonlyArray<string> =>
  Object.keys(env)
    .filter((name) => name.startsWith("VERBATIM_") && !known.has(name))
    .sort()
    .map((name) => {
      const closest = closestSetting(name)
      return closest === undefined
        ? `${name} is not a setting of Verbatim (the README's "Settings" lists them)`
        : `${name} is not a setting of Verbatim; did you mean ${closest}?`
    })

/** What an unknown `VERBATIM_*` name does: stop the start (`error`, the default), or only warn. */
export type UnknownSettingsMode = "error" | "warn"

export const UnknownSettingsConfig: Config.Config<UnknownSettingsMode> = Config.literal(
  "error",
  "warn"
)("VERBATIM_UNKNOWN_SETTINGS").pipe(Config.withDefault<UnknownSettingsMode>("error"))

/** The settings refused at start: one line each (an unknown name, or a value and what is allowed). */
export class SettingsRefused extends Data.TaggedError("SettingsRefused")<{
  readonly lines: ReadonlyArray<string>
}> {
  override get message(): string {
    return this.lines.length === 1
      ? `invalid setting: ${this.lines[0]}`
      : `invalid settings:\n${this.lines.map((line) => `  ${line}`).join("\n")}`
  }
}

/** The variable a config error is about: its path, each name once (a nested path repeats it). */
const nameOf = (path: ReadonlyArray<string>): string => [...new Set(path)].join("_")

/**
 * One line for a refused value: the variable, what it expects, and the value it got (unless the
 * message already shows it, or the setting is a secret, whose value is never printed).
 */
const refusedValueLine = (name: string, message: string, env: Env): string => {
  const described = message.replace(
    /^Expected a network port value but received (.*)$/,
    "expected a port number from 1 to 65535, got $1"
  )
  // A message that starts with its variable's name ("NAME: ..." or "NAME must ...") keeps it once.
  const text =
    name === ""
      ? described
      : described.startsWith(`${name}:`) || described.startsWith(`${name} `)
        ? described
        : `${name}: ${described}`
  const value = name === "" ? undefined : env[name]
  if (value === undefined || isSecret(name)) return text
  return text.includes(JSON.stringify(value)) || (value.length > 2 && text.includes(value))
    ? text
    : `${text} (got ${JSON.stringify(value)})`
}

/** Every refused value of a configuration failure, one line each, each once. */
export const configErrorLines = (
  error: ConfigError.ConfigError,
  env: Env = process.env
): ReadonlyArray<string> => {
  const leaves = (current: ConfigError.ConfigError): ReadonlyArray<string> => {
    switch (current._op) {
      case "And":
      case "Or":
        return [...leaves(current.left), ...leaves(current.right)]
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        return [refusedValueLine(nameOf(current.path), current.message, env)]
    }
  }
  return [...new Set(leaves(error))]
}

/**
 * Reads `config` and checks the environment's `VERBATIM_*` names: the settings, and the warnings
 * to log once the logger is up (unknown names under `VERBATIM_UNKNOWN_SETTINGS=warn`); or every
 * problem at once as `SettingsRefused`.
 */
export const checkedSettings = <A>(
  config: Config.Config<A>,
  env: Env = process.env
): Effect.Effect<{ readonly settings: A; readonly warnings: ReadonlyArray<string> }, SettingsRefused> =>
  Effect.gen(function* () {
    const mode = yield* Effect.either(UnknownSettingsConfig)
    const read = yield* Effect.either(config)
    const unknown = unknownSettingLines(env)
    const refusedValues = [
      ...(Either.isLeft(mode) ? configErrorLines(mode.left, env) : []),
      ...(Either.isLeft(read) ? configErrorLines(read.left, env) : [])
    ]
    const stops = Either.getOrElse(mode, () => "error" as const) === "error"
    const lines = [...(stops ? unknown : []), ...refusedValues]
    if (lines.length > 0 || Either.isLeft(read)) return yield* new SettingsRefused({ lines })
    return { settings: read.right, warnings: stops ? [] : unknown }
  })
