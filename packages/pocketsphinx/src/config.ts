/**
 * The engine's settings, all from environment variables. A bad value stops the start with a
 * message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_POCKETSPHINX_PATH | pocketsphinx_continuous | the recogniser: a name looked up in PATH, or a path |
 * | VERBATIM_POCKETSPHINX_MODEL_DIR | /usr/share/pocketsphinx/model/en-us | the model: `en-us/` (acoustic), `en-us.lm.bin`, `cmudict-en-us.dict` |
 * | VERBATIM_FFMPEG_PATH | ffmpeg | the converter to 16 kHz mono WAV: a name looked up in PATH, or a path |
 * | VERBATIM_POCKETSPHINX_CONCURRENCY | 1 | recognitions (conversion and recogniser) running at once, for the whole process |
 * | VERBATIM_POCKETSPHINX_TIMEOUT_FACTOR | 3 | the recogniser's time limit, as a multiple of the audio's duration |
 * | VERBATIM_POCKETSPHINX_MIN_TIMEOUT_MS | 60000 | the recogniser's time limit is never shorter than this |
 * | VERBATIM_POCKETSPHINX_CONVERT_TIMEOUT_MS | 600000 | the converter's time limit |
 * | VERBATIM_POCKETSPHINX_PAUSE_MS | 500 | a silence at least this long between two words starts a new segment |
 * | VERBATIM_POCKETSPHINX_MAX_SEGMENT_MS | 15000 | a segment is cut before it would grow longer than this |
 * | VERBATIM_POCKETSPHINX_TMPDIR | the system's | where each recognition makes (and always removes) its working directory |
 */
import { Config, Duration, Option } from "effect"

export interface PocketsphinxSettings {
  readonly recogniser: string
  readonly modelDir: string
  readonly converter: string
  readonly concurrency: number
  readonly timeoutFactor: number
  readonly minTimeout: Duration.Duration
  readonly convertTimeout: Duration.Duration
  readonly pause: Duration.Duration
  readonly maxSegment: Duration.Duration
  readonly tmpDir: Option.Option<string>
}

/** Debian's `pocketsphinx-en-us` model directory. */
export const debianModelDir = "/usr/share/pocketsphinx/model/en-us"

/** The defaults, as the table above gives them. */
export const defaultSettings: PocketsphinxSettings = {
  recogniser: "pocketsphinx_continuous",
  modelDir: debianModelDir,
  converter: "ffmpeg",
  concurrency: 1,
  timeoutFactor: 3,
  minTimeout: Duration.seconds(60),
  convertTimeout: Duration.minutes(10),
  pause: Duration.millis(500),
  maxSegment: Duration.seconds(15),
  tmpDir: Option.none()
}

const integer = (name: string, fallback: number, min: number, rule: string) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be ${rule}`, validation: (n) => n >= min }),
    Config.withDefault(fallback)
  )

const millis = (name: string, fallback: Duration.Duration, min: number) =>
  integer(name, Duration.toMillis(fallback), min, `a whole number of milliseconds, at least ${min}`).pipe(
    Config.map(Duration.millis)
  )

const nonBlank = (name: string, what: string) =>
  Config.string(name).pipe(
    Config.map((s) => s.trim()),
    Config.validate({ message: `${name} must name ${what} (not blank)`, validation: (s) => s !== "" })
  )

/** Every setting of the engine, read from the environment (see the table above). */
export const PocketsphinxConfig: Config.Config<PocketsphinxSettings> = Config.all({
  recogniser: nonBlank("VERBATIM_POCKETSPHINX_PATH", "the recogniser binary").pipe(
    Config.withDefault(defaultSettings.recogniser)
  ),
  modelDir: nonBlank("VERBATIM_POCKETSPHINX_MODEL_DIR", "the model directory").pipe(
    Config.withDefault(defaultSettings.modelDir)
  ),
  converter: nonBlank("VERBATIM_FFMPEG_PATH", "the ffmpeg binary").pipe(
    Config.withDefault(defaultSettings.converter)
  ),
  concurrency: integer(
    "VERBATIM_POCKETSPHINX_CONCURRENCY",
    defaultSettings.concurrency,
    1,
    "a whole number of recognitions, at least 1"
  ),
  timeoutFactor: Config.number("VERBATIM_POCKETSPHINX_TIMEOUT_FACTOR").pipe(
    Config.validate({
      message: "VERBATIM_POCKETSPHINX_TIMEOUT_FACTOR must be a number greater than 0",
      validation: (n) => Number.isFinite(n) && n > 0
    }),
    Config.withDefault(defaultSettings.timeoutFactor)
  ),
  minTimeout: millis("VERBATIM_POCKETSPHINX_MIN_TIMEOUT_MS", defaultSettings.minTimeout, 1),
  convertTimeout: millis("VERBATIM_POCKETSPHINX_CONVERT_TIMEOUT_MS", defaultSettings.convertTimeout, 1),
  pause: millis("VERBATIM_POCKETSPHINX_PAUSE_MS", defaultSettings.pause, 10),
  maxSegment: millis("VERBATIM_POCKETSPHINX_MAX_SEGMENT_MS", defaultSettings.maxSegment, 1000),
  tmpDir: Config.option(nonBlank("VERBATIM_POCKETSPHINX_TMPDIR", "a directory"))
})
