/**
 * The local `SpeechToText`: Debian's pocketsphinx (0.8+5prealpha, `pocketsphinx_continuous`) run
 * as a child process on a 16 kHz mono WAV that ffmpeg makes from the input.
 *
 * One recognition: a fresh working directory; the input's bytes streamed into it; ffmpeg converts
 * them (any common audio or video container) to `audio.wav`, whose length is the real duration;
 * the recogniser prints its words with their times; the words become segments split at pauses.
 * The directory is removed and every child process killed whenever the recognition ends: success,
 * failure, time limit or interruption. When the process itself dies without a chance to clean up
 * (SIGKILL), its children die with it (`bound`: the kernel's parent-death signal) and the directory,
 * named with the owner's process id, is removed by the next start (`sweepDeadTempFolders`). At most `concurrency` recognitions convert or recognise at
 * once (the input is read while waiting for a turn).
 *
 * Failures: the engine missing is `SpeechUnavailable` (with how to install it); an input the
 * converter cannot read, or no speech in it, is `SpeechFailed` that a retry cannot help; an
 * `AudioReadError` from the input is `SpeechFailed` with the same `retryable`; a time limit
 * reached or a child killed by someone else is `SpeechFailed` that a retry may help. A failure's
 * reason reaches the job's error, so it names no file system path (the working directory, the
 * model or the binaries: each path becomes its last part); the full message is logged.
 */
import { Command, CommandExecutor, FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import * as NodeContext from "@effect/platform-node/NodeContext"
import {
  type AudioInput,
  type Recognition,
  SpeechFailed,
  SpeechToText,
  type SpeechToTextService,
  SpeechUnavailable
} from "@verbatim/core"
import type { Asr } from "@verbatim/domain"
import { bound, ownedTempPrefix, setprivWrapper } from "@verbatim/processes"
import { Clock, type ConfigError, type Data, Duration, Effect, Layer, Option, Stream } from "effect"
import { PocketsphinxConfig, type PocketsphinxSettings } from "./config.js"
import { type Detection, detectIn, installHint, modelFiles } from "./detect.js"
import { engine, refusal, reportedLanguage } from "./options.js"
import { build, bytesPerMs, parseWordTimes, wavDataBytes } from "./recognition.js"

type Installed = Data.TaggedEnum.Value<Detection, "Installed">

/** How long a detection is trusted: an engine installed meanwhile is seen within this time. */
const detectionTtl = Duration.seconds(30)

/** An absolute path (POSIX or Windows) inside a message, after its start, a space, quote, bracket or `=`. */
const absolutePath = /(^|[\s'"([=,])((?:[A-Za-z]:)?[\\/][^\s'"()[\],:|]*)/g

/** A message without file system paths: each one becomes its last part (`/tmp/verbatim-asr-x/input` -> `input`). */
export const withoutPaths = (text: string): string =>
  text.replace(absolutePath, (_, lead: string, found: string) => {
    const parts = found.split(/[\\/]/).filter((part) => part !== "")
    return `${lead}${parts.at(-1) ?? ""}`
  })

/** A failure whose reason a caller may see: paths removed (the full reason is logged where it has them). */
const failed = (reason: string, retryable: boolean) =>
  new SpeechFailed({ engine, reason: withoutPaths(reason), retryable })

/** Logs the full reason (with its paths), then fails with the reason without them. */
const failedLogged = (reason: string, retryable: boolean) =>
  Effect.zipRight(
    Effect.logWarning("pocketsphinx recognition failed", reason),
    Effect.fail(failed(reason, retryable))
  )

interface Ran {
  /** The exit code, or none when a signal ended the process. */
  readonly exitCode: Option.Option<number>
  readonly stdout: string
  /** The last few kB of stderr. */
  readonly stderr: string
}

const keepLast = 4096

/** Runs a command to its end, reading stdout whole and the end of stderr; killed when interrupted. */
const run = (command: Command.Command) =>
  Effect.scoped(
    Effect.gen(function* () {
      const child = yield* Command.start(command)
      const [stdout, stderr, exitCode] = yield* Effect.all(
        [
          child.stdout.pipe(Stream.decodeText(), Stream.mkString),
          child.stderr.pipe(
            Stream.decodeText(),
            Stream.runFold("", (kept, text) => (kept + text).slice(-keepLast))
          ),
          Effect.option(child.exitCode)
        ],
        { concurrency: "unbounded" }
      )
      return { exitCode: Option.map(exitCode, Number), stdout, stderr } satisfies Ran
    })
  )

/** The last non-empty lines of a tool's messages, for a failure's reason. */
const lastLines = (text: string, n = 3): string =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .slice(-n)
    .join(" | ")

/** A child that could not be started: missing means the engine is not installed. */
const notStarted =
  (what: string) =>
  (error: PlatformError): SpeechUnavailable | SpeechFailed =>
    error._tag === "SystemError" && error.reason === "NotFound"
      ? new SpeechUnavailable({ reason: `${what} is not installed; ${installHint}` })
      : failed(`${what} could not be run: ${error.message}`, true)

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** The engine over these settings, on the platform's file system and processes. */
export const make = Effect.fn("Pocketsphinx.make")(function* (settings: PocketsphinxSettings) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const executor = yield* CommandExecutor.CommandExecutor
  const permits = yield* Effect.makeSemaphore(settings.concurrency)
  // Children die with this process, even when it is SIGKILLed (`@verbatim/processes`).
  const setpriv = yield* setprivWrapper
  const detection = yield* Effect.cachedWithTTL(detectIn(settings), detectionTtl)

  const first = yield* detection
  if (first._tag === "Missing") yield* Effect.logWarning(first.reason)
  else yield* Effect.logDebug("pocketsphinx is installed", first)

  const installed: Effect.Effect<Installed, SpeechUnavailable> = Effect.flatMap(detection, (found) =>
    found._tag === "Installed"
      ? Effect.succeed(found)
      : Effect.fail(new SpeechUnavailable({ reason: found.reason }))
  )

  const supports: SpeechToTextService["supports"] = (options) =>
    Effect.flatMap(installed, () => {
      const refused = refusal(options)
      return refused === undefined ? Effect.void : Effect.fail(refused)
    })

  /** The input's bytes into `file`: a source failure keeps its `retryable`. */
  const save = (audio: AudioInput, file: string) =>
    audio.bytes.pipe(
      Stream.run(fs.sink(file)),
      Effect.catchTags({
        AudioReadError: (e) => Effect.fail(failed(`the audio could not be read: ${e.reason}`, e.retryable)),
        BadArgument: (e) => failedLogged(`the audio could not be stored for recognition: ${e.message}`, true),
        SystemError: (e) => failedLogged(`the audio could not be stored for recognition: ${e.message}`, true)
      }),
      Effect.withSpan("Pocketsphinx.save")
    )

  /** Any container to 16 kHz mono 16-bit WAV with a plain 44-byte header, as the recogniser reads it. */
  const convert = (converter: string, input: string, wav: string) =>
    run(
      Command.make(
        ...bound(setpriv, converter, [
          ...["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", input],
          ...["-vn", "-sn", "-dn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le"],
          ...["-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-f", "wav", wav]
        ])
      )
    ).pipe(
      Effect.mapError(notStarted(`the converter (${converter})`)),
      Effect.timeoutFail({
        duration: settings.convertTimeout,
        onTimeout: () =>
          failed(
            `converting the audio took longer than ${seconds(Duration.toMillis(settings.convertTimeout))}`,
            true
          )
      }),
      Effect.flatMap((ran) =>
        Option.match(ran.exitCode, {
          onNone: () => Effect.fail(failed("the converter was stopped by a signal", true)),
          onSome: (code) =>
            code === 0
              ? Effect.void
              : failedLogged(`the input is not audio the converter can read: ${lastLines(ran.stderr)}`, false)
        })
      ),
      Effect.withSpan("Pocketsphinx.convert")
    )

  /** The real duration of the converted audio, in ms. */
  const durationOf = (wav: string) =>
    Effect.scoped(
      Effect.gen(function* () {
        const size = Number((yield* fs.stat(wav)).size)
        const file = yield* fs.open(wav)
        const head = yield* file.readAlloc(4096)
        const bytes = Option.flatMap(head, (h) => Option.fromNullable(wavDataBytes(h, size)))
        return Option.map(bytes, (b) => Math.floor(b / bytesPerMs))
      })
    ).pipe(
      Effect.catchAll((e) => failedLogged(`the converted audio could not be read: ${e.message}`, true)),
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.fail(failed("the converter did not write a WAV file", false)),
          onSome: (ms) =>
            ms > 0 ? Effect.succeed(ms) : Effect.fail(failed("the input holds no sound", false))
        })
      )
    )

  const recognise = (found: Installed, dir: string, wav: string, durationMs: number) => {
    const files = modelFiles(found.modelDir, path)
    const log = path.join(dir, "pocketsphinx.log")
    const limit = Math.max(
      Duration.toMillis(settings.minTimeout),
      Math.ceil(durationMs * settings.timeoutFactor)
    )
    return run(
      Command.make(
        ...bound(setpriv, found.recogniser, [
          ...["-infile", wav, "-time", "yes", "-logfn", log],
          ...["-hmm", files.hmm, "-lm", files.lm, "-dict", files.dict]
        ])
      )
    ).pipe(
      Effect.mapError(notStarted(`the recogniser (${found.recogniser})`)),
      Effect.timeoutFail({
        duration: Duration.millis(limit),
        onTimeout: () =>
          failed(`recognising ${seconds(durationMs)} of audio took longer than ${seconds(limit)}`, true)
      }),
      Effect.flatMap((ran) =>
        Option.match(ran.exitCode, {
          onNone: () => Effect.fail(failed("the recogniser was stopped by a signal", true)),
          onSome: (code) =>
            code === 0
              ? Effect.succeed(ran.stdout)
              : fs.readFileString(log).pipe(
                  Effect.orElseSucceed(() => ran.stderr),
                  Effect.flatMap((messages) =>
                    failedLogged(`the recogniser failed (exit ${code}): ${lastLines(messages)}`, false)
                  )
                )
        })
      ),
      Effect.withSpan("Pocketsphinx.recognise", { attributes: { durationMs, limitMs: limit } })
    )
  }

  const tempDir = fs
    .makeTempDirectoryScoped(
      Option.match(settings.tmpDir, {
        onNone: () => ({ prefix: ownedTempPrefix("asr") }),
        onSome: (directory) => ({ prefix: ownedTempPrefix("asr"), directory })
      })
    )
    .pipe(Effect.catchAll((e) => failedLogged(`no working directory for recognition: ${e.message}`, true)))

  const transcribe = Effect.fn("Pocketsphinx.transcribe")(
    function* (audio: AudioInput, options: Asr.EffectiveAsrOptions) {
      const found = yield* installed
      const refused = refusal(options)
      if (refused !== undefined) return yield* refused
      const started = yield* Clock.currentTimeMillis
      const dir = yield* tempDir
      const input = path.join(dir, "input")
      const wav = path.join(dir, "audio.wav")
      yield* save(audio, input)
      const [durationMs, stdout] = yield* permits.withPermits(1)(
        Effect.gen(function* () {
          yield* convert(found.converter, input, wav)
          const durationMs = yield* durationOf(wav)
          const stdout = yield* recognise(found, dir, wav, durationMs)
          return [durationMs, stdout] as const
        })
      )
      const o = options.options
      const built = build(parseWordTimes(stdout, durationMs), {
        autoPunctuation: o.autoPunctuation,
        textFormatting: o.textFormatting,
        fillerWords: o.fillerWords,
        keyTerms: o.keyTerms,
        pauseMs: Duration.toMillis(settings.pause),
        maxSegmentMs: Duration.toMillis(settings.maxSegment)
      })
      if (built.words.length === 0) {
        return yield* failed(`no speech was recognised in ${seconds(durationMs)} of audio`, false)
      }
      const elapsed = (yield* Clock.currentTimeMillis) - started
      yield* Effect.logInfo("speech recognised").pipe(
        Effect.annotateLogs({
          durationMs,
          words: built.words.length,
          segments: built.segments.length,
          elapsedMs: elapsed,
          realTimeFactor: Math.round((elapsed / durationMs) * 1000) / 1000
        })
      )
      return {
        language: reportedLanguage(options),
        durationMs,
        text: built.text,
        segments: built.segments,
        words: built.words,
        intelligence: null,
        translations: []
      } satisfies Recognition
    },
    Effect.scoped,
    (effect, audio) => Effect.annotateLogs(effect, { engine, audio: audio.name })
  )

  return SpeechToText.of({
    engine,
    supports,
    transcribe: (audio, options) =>
      transcribe(audio, options).pipe(Effect.provideService(CommandExecutor.CommandExecutor, executor))
  })
})

/** The engine over these settings. Builds whether or not pocketsphinx is installed (see `detect`). */
export const layer = (settings: PocketsphinxSettings): Layer.Layer<SpeechToText> =>
  Layer.effect(SpeechToText, make(settings)).pipe(Layer.provide(NodeContext.layer))

/** The engine over the settings of the environment (`PocketsphinxConfig`). */
export const layerConfig: Layer.Layer<SpeechToText, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(PocketsphinxConfig, layer)
)
