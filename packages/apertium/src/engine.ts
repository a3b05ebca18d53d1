/**
 * The `Translator` port on Debian's Apertium: `apertium -u <mode> <in> <out>` as a child process,
 * the segments' texts one per line in its input (Apertium keeps line breaks where they are), one
 * translated line per segment on its output. Long transcripts go in runs of whole segments
 * (`Translation.chunkTexts`); a run that fails (exit status, time limit, a line count that does not
 * match) is run once more, then fails the translation with `TranslationFailed`.
 *
 * The texts go in and out through temporary files (Apertium opens `/dev/stdin`, which a socket
 * cannot be), in a folder named with the owner's process id: a later start removes it if this
 * process was killed before it could (`@verbatim/processes`). A run is `bound` to this process: the
 * script and the pipeline it starts die with it, even on SIGKILL.
 *
 * `supports` reads the installed modes (`apertium -l`, cached for a minute): a pair without a mode
 * is refused naming the pair, the engine and the installed modes; without Apertium, naming how to
 * install it. The layer builds whether or not Apertium is installed.
 */
import { Command, CommandExecutor, FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { TranslationFailed, type TranslationInput, TranslationUnsupported, Translator } from "@verbatim/core"
import { type Language, Translation } from "@verbatim/domain"
import { bound, ownedTempPrefix, setprivWrapper } from "@verbatim/processes"
import { Clock, type ConfigError, Duration, Effect, Layer } from "effect"
import { ApertiumConfig, type ApertiumSettings } from "./config.js"
import { modeFor, parseModes } from "./pairs.js"

export const engine = "apertium"

/** How to install the engine, for messages. */
export const installHint =
  "run scripts/install-translation.sh (as root, or with sudo), or install the Debian packages: apt-get install --no-install-recommends apertium apertium-eng-spa"

const notInstalled = (error: PlatformError) => error._tag === "SystemError" && error.reason === "NotFound"

/** How long the installed modes are trusted before `apertium -l` is run again. */
const modesTtl = Duration.minutes(1)

/**
 * The installed modes (`apertium -l`, bound to this process like every run); empty when Apertium
 * is not installed (under the bound wrapper a missing binary is a shell's exit 127 with no output)
 * or any other failure (logged when the binary could not be started).
 */
const listModes = (binary: string, setpriv: string | undefined) =>
  Command.string(Command.make(...bound(setpriv, binary, ["-l"]))).pipe(
    Effect.map(parseModes),
    Effect.catchAll((error) =>
      Effect.as(
        notInstalled(error) ? Effect.void : Effect.logWarning("apertium -l could not be run", error.message),
        [] as ReadonlyArray<string>
      )
    )
  )

/**
 * The engine; `installed`, the modes the caller has just listed (`installedModes`), serves for the
 * first minute instead of running `apertium -l` again.
 */
export const make = Effect.fn("Apertium.make")(function* (
  settings: ApertiumSettings,
  installed?: ReadonlyArray<string>
) {
  const executor = yield* CommandExecutor.CommandExecutor
  const fs = yield* FileSystem.FileSystem
  const permits = yield* Effect.makeSemaphore(settings.concurrency)
  // A run and the pipeline it starts die with this process, even when it is SIGKILLed.
  const setpriv = yield* setprivWrapper

  /** The installed modes, listed at most once a minute; empty when Apertium is not installed. */
  const listed = yield* Effect.cachedWithTTL(
    Effect.provideService(listModes(settings.binary, setpriv), CommandExecutor.CommandExecutor, executor),
    modesTtl
  )
  const startedAt = yield* Clock.currentTimeMillis
  const modes =
    installed === undefined
      ? listed
      : Effect.flatMap(Clock.currentTimeMillis, (now) =>
          now - startedAt < Duration.toMillis(modesTtl) ? Effect.succeed(installed) : listed
        )

  const first = yield* modes
  yield* first.length === 0
    ? Effect.logInfo(`Apertium: no language pair is installed; ${installHint}`)
    : Effect.logInfo(`Apertium: ${first.join(", ")}`)

  const refuse = (source: string, target: string, reason: string) =>
    new TranslationUnsupported({ engine, source, target, reason })

  const mode = (source: Language.LanguageCode, target: Language.LanguageCode) =>
    Effect.flatMap(modes, (installed) => {
      if (installed.length === 0) {
        return Effect.fail(refuse(source, target, `Apertium is not installed; ${installHint}`))
      }
      const found = modeFor(installed, source, target)
      return found === undefined
        ? Effect.fail(
            refuse(
              source,
              target,
              `Apertium has no ${source}-${target} pair here (installed: ${installed.join(", ")}); more pairs are Debian packages named apertium-<source>-<target>`
            )
          )
        : Effect.succeed(found)
    })

  const translateRun = (direction: string, chunk: Translation.Chunk, index: number) =>
    Effect.gen(function* () {
      // Apertium reads its input from a file (it opens /dev/stdin, which fails on the socket node
      // gives a child as stdin) and writes its output to one.
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: ownedTempPrefix("apertium") })
      const input = `${dir}/in.txt`
      const output = `${dir}/out.txt`
      yield* fs.writeFileString(input, `${chunk.pieces.map((p) => p.text).join("\n")}\n`)
      const exitCode = yield* Command.exitCode(
        Command.make(...bound(setpriv, settings.binary, ["-u", direction, input, output]))
      ).pipe(
        Effect.mapError((error) => `apertium could not be run: ${error.message}`),
        Effect.timeoutFail({
          duration: settings.timeout,
          onTimeout: () => `apertium did not finish within ${Duration.format(settings.timeout)}`
        })
      )
      if (exitCode !== 0) return yield* Effect.fail(`apertium exited with ${exitCode}`)
      const lines = (yield* fs.readFileString(output)).replace(/\n$/, "").split("\n")
      if (lines.length !== chunk.pieces.length) {
        return yield* Effect.fail(`apertium answered ${lines.length} lines for ${chunk.pieces.length}`)
      }
      return chunk.pieces.map((piece, i) => ({ segment: piece.segment, text: lines[i] ?? "" }))
    }).pipe(
      Effect.mapError((error) =>
        typeof error === "string" ? error : `a temporary file failed: ${error.message}`
      ),
      Effect.scoped,
      permits.withPermits(1),
      Effect.tapError((reason) => Effect.logWarning(`apertium run ${index} failed`, reason)),
      Effect.retry({ times: 1 }),
      Effect.mapError(
        (reason) => new TranslationFailed({ engine, reason: `run ${index + 1} failed twice: ${reason}` })
      )
    )

  const translate = (input: TranslationInput) =>
    Effect.gen(function* () {
      const direction = yield* mode(input.source, input.target)
      // One line per segment: line breaks inside a segment are spaces.
      const texts = input.texts.map((t) => t.replace(/\s+/g, " ").trim())
      const chunks = Translation.chunkTexts(texts, settings.maxCharacters)
        .map((chunk) => ({ ...chunk, pieces: chunk.pieces.filter((p) => p.text.length > 0) }))
        .filter((chunk) => chunk.pieces.length > 0)
      const pieces = yield* Effect.forEach(chunks, (chunk, i) => translateRun(direction, chunk, i), {
        concurrency: settings.concurrency
      })
      return Translation.joinPieces(input.texts.length, pieces.flat())
    }).pipe(
      Effect.provideService(CommandExecutor.CommandExecutor, executor),
      Effect.withSpan("Apertium.translate", {
        attributes: { "translation.segments": input.texts.length, "translation.target": input.target },
        captureStackTrace: false
      })
    )

  return Translator.of({
    engine,
    supports: (source, target) => Effect.asVoid(mode(source, target)),
    translate
  })
})

/** The installed modes, for the start-up choice of engine (none: Apertium is not installed). */
export const installedModes = (settings: ApertiumSettings) =>
  Effect.provide(
    Effect.flatMap(setprivWrapper, (setpriv) => listModes(settings.binary, setpriv)),
    NodeContext.layer
  )

/**
 * The engine over these settings; builds whether or not Apertium is installed. `installed`: the
 * modes `installedModes` just found, so the start lists them once.
 */
export const layer = (
  settings: ApertiumSettings,
  installed?: ReadonlyArray<string>
): Layer.Layer<Translator> =>
  Layer.effect(Translator, make(settings, installed)).pipe(Layer.provide(NodeContext.layer))

/** The engine over the environment's settings (`ApertiumConfig`). */
export const layerConfig: Layer.Layer<Translator, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(ApertiumConfig, layer)
)
