/**
 * Whether the local engine can run here: the recogniser, its English model and the converter,
 * found the way the engine will run them (a name through PATH, or a path). Only the file system is
 * read; nothing is started, so it is cheap enough for a start-up decision and for `supports`.
 */
import { delimiter } from "node:path"
import { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { type ConfigError, Data, Effect, Option } from "effect"
import { PocketsphinxConfig, type PocketsphinxSettings } from "./config.js"

export type Detection = Data.TaggedEnum<{
  /** Everything is there: the resolved paths the engine runs. */
  Installed: { readonly recogniser: string; readonly converter: string; readonly modelDir: string }
  /** Something is missing: each missing piece, and a message that says how to install it. */
  Missing: { readonly missing: ReadonlyArray<string>; readonly reason: string }
}>
export const Detection = Data.taggedEnum<Detection>()

/** The Debian packages the engine needs, as `scripts/install-speech.sh` installs them. */
export const debianPackages: ReadonlyArray<string> = ["pocketsphinx", "pocketsphinx-en-us", "ffmpeg"]

/** How to install the engine, for messages. */
export const installHint = `run scripts/install-speech.sh (as root, or with sudo), or install the Debian packages: apt-get install --no-install-recommends ${debianPackages.join(" ")}`

/** The files of the model the recogniser is given (`-hmm`, `-lm`, `-dict`). */
export const modelFiles = (modelDir: string, path: Path.Path) => ({
  hmm: path.join(modelDir, "en-us"),
  lm: path.join(modelDir, "en-us.lm.bin"),
  dict: path.join(modelDir, "cmudict-en-us.dict")
})

const isExecutable = (fs: FileSystem.FileSystem, file: string) =>
  fs.stat(file).pipe(
    Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
    Effect.orElseSucceed(() => false)
  )

/** A binary as a child process would find it: the path itself when it has a slash, else through PATH. */
export const resolveBinary = Effect.fn("Pocketsphinx.resolveBinary")(function* (name: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if (name.includes("/")) {
    return (yield* isExecutable(fs, name)) ? Option.some(path.resolve(name)) : Option.none<string>()
  }
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir.length > 0)
  for (const dir of dirs) {
    const candidate = path.join(dir, name)
    if (yield* isExecutable(fs, candidate)) return Option.some(candidate)
  }
  return Option.none<string>()
})

/** Whether the engine these settings describe is installed, on the given file system. */
export const detectIn = Effect.fn("Pocketsphinx.detect")(function* (settings: PocketsphinxSettings) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const recogniser = yield* resolveBinary(settings.recogniser)
  const converter = yield* resolveBinary(settings.converter)
  const files = modelFiles(settings.modelDir, path)
  const model = yield* Effect.forEach([path.join(files.hmm, "mdef"), files.lm, files.dict], (file) =>
    fs.exists(file).pipe(Effect.orElseSucceed(() => false))
  )
  const missing = [
    ...(Option.isNone(recogniser) ? [`${settings.recogniser} (Debian package pocketsphinx)`] : []),
    ...(model.every(Boolean)
      ? []
      : [`the English model in ${settings.modelDir} (Debian package pocketsphinx-en-us)`]),
    ...(Option.isNone(converter) ? [`${settings.converter} (Debian package ffmpeg)`] : [])
  ]
  if (Option.isSome(recogniser) && Option.isSome(converter) && missing.length === 0) {
    return Detection.Installed({
      recogniser: recogniser.value,
      converter: converter.value,
      modelDir: settings.modelDir
    })
  }
  return Detection.Missing({
    missing,
    reason: `local speech recognition (pocketsphinx) is not installed: missing ${missing.join(", ")}; ${installHint}`
  })
})

/** `detectIn` on this machine's file system. */
export const detectWith = (settings: PocketsphinxSettings): Effect.Effect<Detection> =>
  detectIn(settings).pipe(Effect.provide(NodeContext.layer))

/**
 * Whether the engine is installed, with the settings of the environment (`PocketsphinxConfig`):
 * the runtime's way to choose an engine.
 */
export const detect: Effect.Effect<Detection, ConfigError.ConfigError> = Effect.flatMap(
  PocketsphinxConfig,
  detectWith
)
