/**
 * Speech recognition and upload storage, chosen by settings:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_ASR | auto | `auto`: AssemblyAI when ASSEMBLYAI_API_KEY is set, else pocketsphinx where installed, else none; or `assemblyai`, `pocketsphinx`, `none` |
 * | ASSEMBLYAI_API_KEY, ASSEMBLYAI_* | unset | see `@verbatim/assemblyai` |
 * | VERBATIM_POCKETSPHINX_* | see `@verbatim/pocketsphinx` | the local engine's binary, model and concurrency |
 * | VERBATIM_S3_BUCKET | unset | set: uploads go to this S3-compatible bucket (`VERBATIM_S3_*`, see `@verbatim/storage`) |
 * | VERBATIM_BLOB_DIR | `<data dir>/blobs` | without S3: the folder of uploads, PUT to URLs this server signs and serves |
 * | VERBATIM_BLOB_SIGNING_KEY | a key file in the folder | without S3: the HMAC key of the signed URLs (32+ characters) |
 * | VERBATIM_PUBLIC_URL | the server's own address | the URL clients reach this server at (signed upload URLs start with it) |
 */
import { tmpdir } from "node:os"
import { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { AssemblyAiSpeechToText } from "@verbatim/assemblyai"
import {
  type BlobStore,
  BlobStoreError,
  PutRejected,
  SignedPutReceiver,
  SpeechToText,
  SpeechUnavailable
} from "@verbatim/core"
import {
  Detection,
  detectWith,
  installHint,
  PocketsphinxConfig,
  PocketsphinxSpeech
} from "@verbatim/pocketsphinx"
import { sweepDeadTempFolders } from "@verbatim/processes"
import * as LocalBlobStore from "@verbatim/storage/local"
import { Config, type ConfigError, Effect, Layer, Option, Redacted } from "effect"

export type SpeechEngineName = "auto" | "assemblyai" | "pocketsphinx" | "none"

export const SpeechEngineConfig: Config.Config<SpeechEngineName> = Config.literal(
  "auto",
  "assemblyai",
  "pocketsphinx",
  "none"
)("VERBATIM_ASR").pipe(Config.withDefault("auto" as const))

/** How to get speech recognition going, said by every `asr_unavailable`. */
export const speechHint = `set ASSEMBLYAI_API_KEY for AssemblyAI, or ${installHint}`

/** A server without an engine: every request that needs one answers 503 `asr_unavailable`. */
export const noSpeechToText = (reason: string): Layer.Layer<SpeechToText> =>
  Layer.succeed(SpeechToText, {
    engine: "none",
    supports: () => Effect.fail(new SpeechUnavailable({ reason })),
    transcribe: () => Effect.fail(new SpeechUnavailable({ reason }))
  })

/** The engine the settings choose (`auto`: AssemblyAI with a key, else pocketsphinx where installed). */
export const speechFor = (engine: SpeechEngineName): Layer.Layer<SpeechToText, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const hasKey = Option.isSome(yield* Config.option(Config.redacted("ASSEMBLYAI_API_KEY")))
      const choice = engine === "auto" ? (hasKey ? "assemblyai" : "pocketsphinx") : engine
      switch (choice) {
        case "none":
          return noSpeechToText(`speech recognition is switched off (VERBATIM_ASR=none); ${speechHint}`)
        case "assemblyai":
          return AssemblyAiSpeechToText.layerConfig
        case "pocketsphinx": {
          const settings = yield* PocketsphinxConfig
          const found = yield* detectWith(settings)
          if (Detection.$is("Installed")(found)) return PocketsphinxSpeech.layer(settings)
          const reason = `no speech recognition engine is installed: ${speechHint}`
          if (engine === "pocketsphinx") return PocketsphinxSpeech.layer(settings)
          yield* Effect.logInfo(`speech recognition is off: ${reason}`)
          return noSpeechToText(reason)
        }
      }
    })
  )

/**
 * At start: the temporary folders of recognitions and translations whose process died without
 * removing them (SIGKILL skips every finalizer), in the system's temporary folder and
 * VERBATIM_POCKETSPHINX_TMPDIR. Each folder names its owner's process id and host
 * (`@verbatim/processes`), so a live process's folders, here or on another host, are left alone.
 */
export const leftoversSwept: Layer.Layer<never, ConfigError.ConfigError> = Layer.effectDiscard(
  Effect.gen(function* () {
    const settings = yield* PocketsphinxConfig
    const removed = yield* sweepDeadTempFolders(
      [tmpdir(), ...Option.toArray(settings.tmpDir)],
      ["asr", "apertium"]
    )
    if (removed.length > 0) {
      yield* Effect.logInfo(`removed ${removed.length} temporary folder(s) of processes that died`).pipe(
        Effect.annotateLogs({ folders: removed })
      )
    }
  })
)

export type StorageSettings =
  | {
      readonly _tag: "local"
      readonly root: string
      readonly signingKey: Option.Option<Redacted.Redacted<string>>
    }
  | { readonly _tag: "s3" }

/** S3 when `VERBATIM_S3_BUCKET` is set, else the local folder. */
export const StorageConfig: Config.Config<StorageSettings> = Config.all({
  bucket: Config.option(Config.string("VERBATIM_S3_BUCKET")),
  dataDir: Config.string("VERBATIM_DATA_DIR").pipe(Config.withDefault("./.data")),
  root: Config.option(Config.string("VERBATIM_BLOB_DIR")),
  signingKey: Config.option(
    Config.redacted("VERBATIM_BLOB_SIGNING_KEY").pipe(
      Config.validate({
        message: `VERBATIM_BLOB_SIGNING_KEY must be at least ${LocalBlobStore.minimumKeyLength} characters`,
        validation: (key) => Redacted.value(key).length >= LocalBlobStore.minimumKeyLength
      })
    )
  )
}).pipe(
  Config.map(
    ({ bucket, dataDir, root, signingKey }): StorageSettings =>
      Option.isSome(bucket)
        ? { _tag: "s3" }
        : {
            _tag: "local",
            root: Option.getOrElse(root, () => `${dataDir.replace(/\/+$/, "")}/blobs`),
            signingKey
          }
  )
)

export const PublicUrlConfig: Config.Config<Option.Option<string>> = Config.option(
  Config.string("VERBATIM_PUBLIC_URL").pipe(
    Config.validate({
      message: "VERBATIM_PUBLIC_URL must be an http or https URL such as https://verbatim.example",
      validation: (text) => /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(text)
    })
  )
)

/** The signing key of the local store: the setting, else a key kept in the store's folder (made once). */
const localKey = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(root, ".signing-key")
    const failed = (error: { readonly message: string }) =>
      new BlobStoreError({ reason: `the signing key ${file}: ${error.message}` })
    yield* fs.makeDirectory(root, { recursive: true }).pipe(
      Effect.mapError(
        (error) =>
          new BlobStoreError({
            reason: `VERBATIM_BLOB_DIR: the upload folder ${root} cannot be used: ${error.message}; VERBATIM_BLOB_DIR expects a folder this process can create and write`
          })
      )
    )
    if (!(yield* fs.exists(file).pipe(Effect.mapError(failed)))) {
      const bytes = crypto.getRandomValues(new Uint8Array(32))
      const key = Buffer.from(bytes).toString("base64url")
      // Another process may have made it first (EEXIST: its key is read below); any other failure
      // (a read-only or full folder: EROFS, ENOSPC...) is the folder's, named as such.
      yield* fs.writeFileString(file, key, { mode: 0o600, flag: "wx" }).pipe(
        Effect.catchAll((error) =>
          error._tag === "SystemError" && error.reason === "AlreadyExists"
            ? Effect.void
            : Effect.fail(
                new BlobStoreError({
                  reason: `VERBATIM_BLOB_DIR: the upload folder ${root} cannot be used: ${error.message}; VERBATIM_BLOB_DIR expects a folder this process can create and write`
                })
              )
        )
      )
    }
    const key = (yield* fs.readFileString(file).pipe(Effect.mapError(failed))).trim()
    if (key.length < LocalBlobStore.minimumKeyLength) {
      return yield* new BlobStoreError({ reason: `the signing key in ${file} is too short` })
    }
    return Redacted.make(key)
  })

/** With S3 the client PUTs to the bucket: this server's own PUT route refuses every token. */
const inS3 = new PutRejected({
  refusal: "bad_signature",
  reason: "this server keeps uploads in S3: PUT the bytes to the signed_url that POST /uploads gave"
})
const notReceiving = Layer.succeed(SignedPutReceiver, {
  claims: () => Effect.fail(inS3),
  receive: () => Effect.fail(inS3)
})

/** Where the local store's signed PUTs go on this server. */
export const signedPutPath = "/api/v2/uploads/files"

/**
 * The upload storage of the settings. `publicUrl` is where clients reach the server that receives
 * the local store's PUTs (VERBATIM_PUBLIC_URL, else the server's own address).
 */
export const storageFor = (
  settings: StorageSettings,
  publicUrl: string
): Layer.Layer<BlobStore | SignedPutReceiver, BlobStoreError | ConfigError.ConfigError> => {
  if (settings._tag === "s3") {
    // Loaded only with a bucket configured (the AWS SDK is a large module).
    return Layer.unwrapEffect(
      Effect.map(
        Effect.promise(() => import("@verbatim/storage/s3")),
        (S3BlobStore) => Layer.merge(S3BlobStore.layerConfig, notReceiving)
      )
    )
  }
  return Layer.unwrapEffect(
    Effect.gen(function* () {
      const signingKey = Option.isSome(settings.signingKey)
        ? settings.signingKey.value
        : yield* localKey(settings.root)
      return LocalBlobStore.layer({
        root: settings.root,
        signingKey,
        signedUrlBase: `${publicUrl.replace(/\/+$/, "")}${signedPutPath}`
      })
    })
  ).pipe(Layer.provide(NodeContext.layer))
}
