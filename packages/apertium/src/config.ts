/**
 * The Apertium engine's settings, from environment variables.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_APERTIUM_BIN | apertium | the `apertium` command (a name through PATH, or a path) |
 * | VERBATIM_APERTIUM_TIMEOUT_MS | 120000 | time limit of one run (one chunk of a transcript) |
 * | VERBATIM_APERTIUM_CONCURRENCY | 2 | runs at once in one process (each is a pipeline of several programs) |
 */
import { Config, Duration } from "effect"

export interface ApertiumSettings {
  readonly binary: string
  readonly timeout: Duration.Duration
  readonly concurrency: number
  /** Characters of text per run; a transcript is split into runs of whole segments. */
  readonly maxCharacters: number
}

export const defaultSettings: ApertiumSettings = {
  binary: "apertium",
  timeout: Duration.minutes(2),
  concurrency: 2,
  maxCharacters: 50_000
}

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a whole number of at least 1`, validation: (n) => n >= 1 }),
    Config.withDefault(fallback)
  )

export const ApertiumConfig: Config.Config<ApertiumSettings> = Config.all({
  binary: Config.string("VERBATIM_APERTIUM_BIN").pipe(Config.withDefault(defaultSettings.binary)),
  timeoutMs: positive("VERBATIM_APERTIUM_TIMEOUT_MS", 120_000),
  concurrency: positive("VERBATIM_APERTIUM_CONCURRENCY", defaultSettings.concurrency)
}).pipe(
  Config.map(({ binary, timeoutMs, concurrency }) => ({
    ...defaultSettings,
    binary,
    concurrency,
    timeout: Duration.millis(timeoutMs)
  }))
)
