/**
 * The local folder store, the embedded default: blobs are files under a root folder, and clients
 * upload them with one PUT to a URL that the API server serves (`SignedPutReceiver`), carrying an
 * HMAC-signed token (see `./token.ts`) that binds the path, the content type, the size and the
 * expiry.
 *
 * Layout under the root:
 *
 * - `<path>`: the blob's bytes (paths follow `./path.ts`, so nothing can resolve outside the root);
 * - `<dir>/.<name>.meta.json`: its sidecar, `{"contentType", "sizeBytes"}`, so `stat` reports the
 *   content type the ticket signed (a sidecar whose size disagrees with the file is ignored);
 * - `.partial/`: bodies being received. A body is written there under a random name, synced, and
 *   renamed into place only when every byte arrived and matched the terms, so a reader never sees
 *   half a file; any refusal, failure or interruption deletes it. Files there not modified for
 *   `staleAfter` (15 minutes: a process killed mid-upload) are deleted when the store starts and,
 *   through `layer`, every `sweepEvery` (5 minutes) while it runs.
 *
 * Names starting with `.` are never valid paths, so none of these helpers can collide with a blob.
 *
 * The receiver checks, in order: the token (constant-time MAC: `bad_signature`), the expiry
 * against Effect's `Clock` (`expired`, when now >= expiry), the Content-Type (`content_type`: the
 * media type compared ignoring case, parameters not tolerated: see `./media-type.ts`), the
 * Content-Length when the request has one (`too_large` above the size signed, `size` below), then
 * the body, counted as it streams: more bytes than signed is `too_large` (the rest is read and
 * dropped, up to 16 MiB, so the sender receives the answer), fewer when the body ends (`size`),
 * and a body that fails (the client went away) is `incomplete`. Like a presigned S3 URL, the
 * expiry is checked when the PUT starts, and a token may be used again until it expires (each PUT
 * replaces the blob with the same terms); the caller bounds how long a body may take and says,
 * through `beforeCommit`, whether the bytes are still wanted once they have arrived (core's
 * `MediaUploads.receive`: only while the upload waits for them).
 */
import { randomUUID } from "node:crypto"
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import {
  type BlobInfo,
  BlobMissing,
  BlobStore,
  type BlobStoreCondition,
  BlobStoreError,
  type BlobStoreService,
  PutRejected,
  type PutTerms,
  type SignedPut,
  SignedPutReceiver,
  type SignedPutReceiverService
} from "@verbatim/core"
import {
  Clock,
  Config,
  type ConfigError,
  Context,
  DateTime,
  Duration,
  Effect,
  Either,
  Layer,
  Option,
  Redacted,
  Schedule,
  Schema,
  Stream
} from "effect"
import * as MediaType from "./media-type.js"
import { checkPath, checkPut } from "./terms.js"
import * as Token from "./token.js"

export interface LocalBlobStoreSettings {
  /** The folder that holds the blobs (default `./.data/blobs`); resolved once, when the store starts. */
  readonly root?: string | undefined
  /** The HMAC-SHA256 key of the tokens: at least 32 characters. */
  readonly signingKey: Redacted.Redacted<string>
  /**
   * The public URL of the route that serves `PUT {signedUrlBase}/{token}` by calling
   * `SignedPutReceiver.receive`, e.g. `https://verbatim.example/api/v2/uploads/files` (a trailing
   * `/` is dropped).
   */
  readonly signedUrlBase: string
  /** Reported as `bucket` by `POST /uploads` (default `local`). */
  readonly bucket?: string | undefined
  /** Partial bodies untouched for this long are deleted at start (default 1 hour). */
  readonly staleAfter?: Duration.DurationInput | undefined
  /** How often `layer` sweeps the partial bodies while it runs (default `defaultSweepEvery`). */
  readonly sweepEvery?: Duration.DurationInput | undefined
}

export const defaultRoot = "./.data/blobs"
export const defaultBucket = "local"
export const minimumKeyLength = 32

const partialDirectory = ".partial"

/**
 * Settings from the environment: `VERBATIM_BLOB_DIR` (default `./.data/blobs`),
 * `VERBATIM_BLOB_SIGNING_KEY` (secret, at least 32 characters) and `VERBATIM_BLOB_SIGNED_URL_BASE`
 * (the public URL of the signed PUT route, without the token).
 */
export const LocalBlobStoreConfig: Config.Config<LocalBlobStoreSettings> = Config.all({
  root: Config.string("VERBATIM_BLOB_DIR").pipe(Config.withDefault(defaultRoot)),
  signingKey: Config.redacted("VERBATIM_BLOB_SIGNING_KEY").pipe(
    Config.validate({
      message: `VERBATIM_BLOB_SIGNING_KEY must be at least ${minimumKeyLength} characters`,
      validation: (key) => Redacted.value(key).length >= minimumKeyLength
    })
  ),
  signedUrlBase: Config.string("VERBATIM_BLOB_SIGNED_URL_BASE").pipe(
    Config.validate({
      message: "VERBATIM_BLOB_SIGNED_URL_BASE must be an http or https URL",
      validation: (text) => Either.isRight(checkUrlBase(text))
    })
  )
})

const checkUrlBase = (text: string): Either.Either<string, string> => {
  try {
    const url = new URL(text)
    if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left("not http or https")
    if (url.search !== "" || url.hash !== "") return Either.left("has a query or fragment")
    return Either.right(text.replace(/\/+$/, ""))
  } catch {
    return Either.left("not a URL")
  }
}

const Sidecar = Schema.parseJson(
  Schema.Struct({ contentType: Schema.String, sizeBytes: Schema.NonNegativeInt })
)
const decodeSidecar = Schema.decodeUnknownOption(Sidecar)

/** Not there: missing, or a directory or a file stands where the path needs the other. */
const isAbsent = (error: PlatformError): boolean =>
  error._tag === "SystemError" && (error.reason === "NotFound" || error.reason === "BadResource")

/** The errno code of a file system failure (`ENOSPC`, `EACCES`, ...), when node gave one. */
const errnoOf = (error: PlatformError): string | undefined => {
  if (error._tag !== "SystemError") return undefined
  const cause: unknown = error.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined
}

/** The folder is full or refuses this process's writes, by errno; anything else failed. */
export const conditionOf = (error: PlatformError): BlobStoreCondition => {
  switch (errnoOf(error)) {
    case "ENOSPC":
    case "EDQUOT":
      return "full"
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return "refused"
    default:
      return error._tag === "SystemError" && error.reason === "PermissionDenied" ? "refused" : "failed"
  }
}

/** A file system failure as the store reports it: what was done, the path and errno (in the message). */
const failure =
  (what: string) =>
  (error: PlatformError): BlobStoreError =>
    new BlobStoreError({ reason: `${what}: ${error.message}`, condition: conditionOf(error) })

export interface LocalBlobStore {
  readonly store: BlobStoreService
  readonly receiver: SignedPutReceiverService
  /** The absolute root folder. */
  readonly root: string
  /** Deletes the partial bodies idle for `staleAfter` (run at start, then every `sweepEvery` by `layer`). */
  readonly sweep: Effect.Effect<void>
}

/**
 * How long a partial body may go unwritten before it is taken for one a crash left: a body that
 * arrives receives bytes all the time (at least the upload pace's rate), and one abandoned that long
 * is answered 408 long before by a live server.
 */
export const defaultStaleAfter = Duration.minutes(15)

/** How often a running store sweeps (not only when it starts: a crash of another process sharing the folder). */
export const defaultSweepEvery = Duration.minutes(5)

/** The store and its receiver over one folder (created when missing). */
export const make = (
  settings: LocalBlobStoreSettings
): Effect.Effect<LocalBlobStore, BlobStoreError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const paths = yield* Path.Path
    const key = settings.signingKey
    if (Redacted.value(key).length < minimumKeyLength)
      return yield* new BlobStoreError({
        reason: `the signing key must be at least ${minimumKeyLength} characters`
      })
    const urlBase = yield* Either.match(checkUrlBase(settings.signedUrlBase), {
      onLeft: (why) => Effect.fail(new BlobStoreError({ reason: `invalid signedUrlBase (${why})` })),
      onRight: Effect.succeed
    })
    const root = paths.resolve(settings.root ?? defaultRoot)
    const partials = paths.join(root, partialDirectory)
    const bucket = settings.bucket ?? defaultBucket
    yield* fs.makeDirectory(partials, { recursive: true }).pipe(
      Effect.mapError(
        (error) =>
          new BlobStoreError({
            reason: `VERBATIM_BLOB_DIR: the upload folder ${root} cannot be used: ${error.message}; VERBATIM_BLOB_DIR expects a folder this process can create and write`
          })
      )
    )
    const sweep = sweepPartials(
      fs,
      paths,
      partials,
      Duration.decode(settings.staleAfter ?? defaultStaleAfter)
    )
    yield* sweep

    /** The file of a valid path (segments never contain `..`, so it is under the root). */
    const fileOf = (path: string): string => paths.join(root, ...path.split("/"))
    const sidecarOf = (file: string): string =>
      paths.join(paths.dirname(file), `.${paths.basename(file)}.meta.json`)

    const signPut = Effect.fn("LocalBlobStore.signPut")(function* (path: string, terms: PutTerms) {
      yield* checkPut(path, terms, Number.MAX_SAFE_INTEGER)
      const token = Token.sign(key, {
        path,
        contentType: terms.contentType,
        sizeBytes: terms.sizeBytes,
        expiresAtMillis: DateTime.toEpochMillis(terms.expiresAt)
      })
      return { bucket, path, token, url: `${urlBase}/${token}`, expiresAt: terms.expiresAt }
    })

    const stat = Effect.fn("LocalBlobStore.stat")(function* (path: string) {
      const file = fileOf(yield* checkPath(path))
      const info = yield* fs.stat(file).pipe(
        Effect.map(Option.some),
        Effect.catchIf(isAbsent, () => Effect.succeedNone),
        Effect.mapError(failure("cannot stat the blob"))
      )
      if (Option.isNone(info) || info.value.type !== "File") return Option.none<BlobInfo>()
      const sizeBytes = Number(info.value.size)
      const sidecar = yield* fs.readFileString(sidecarOf(file)).pipe(
        Effect.map(decodeSidecar),
        Effect.catchIf(isAbsent, () => Effect.succeedNone),
        Effect.mapError(failure("cannot read the blob's content type"))
      )
      const contentType = Option.match(sidecar, {
        onNone: () => null,
        onSome: (meta) => (meta.sizeBytes === sizeBytes ? meta.contentType : null)
      })
      return Option.some<BlobInfo>({ sizeBytes, contentType })
    })

    const read = (path: string): Stream.Stream<Uint8Array, BlobStoreError | BlobMissing> =>
      Stream.unwrap(
        Effect.map(stat(path), (info) =>
          Option.isNone(info)
            ? Stream.fail(new BlobMissing({ path }))
            : fs
                .stream(fileOf(path))
                .pipe(
                  Stream.mapError((error) =>
                    isAbsent(error) ? new BlobMissing({ path }) : failure("cannot read the blob")(error)
                  )
                )
        )
      ).pipe(Stream.withSpan("LocalBlobStore.read", { attributes: { path } }))

    const remove = Effect.fn("LocalBlobStore.remove")(function* (path: string) {
      const file = fileOf(yield* checkPath(path))
      const removeFile = (target: string) =>
        fs.remove(target, { force: true }).pipe(
          Effect.catchIf(isAbsent, () => Effect.void),
          Effect.mapError(failure("cannot delete the blob"))
        )
      const info = yield* fs.stat(file).pipe(
        Effect.map(Option.some),
        Effect.catchIf(isAbsent, () => Effect.succeedNone),
        Effect.mapError(failure("cannot stat the blob"))
      )
      // A directory at the path is not a blob: nothing to delete.
      if (Option.isSome(info) && info.value.type !== "File") return
      yield* removeFile(file)
      yield* removeFile(sidecarOf(file))
    })

    const reject = (refusal: PutRejected["refusal"], reason: string) => new PutRejected({ refusal, reason })

    /**
     * How much of a body past its signed size is read and dropped before the refusal, so that a
     * sender still sending (a chunked body) receives the 413 rather than a reset connection; past
     * this the body is cut off.
     */
    const maxDrainBytes = 16 * 1024 * 1024

    const claimsOf = (token: string): Effect.Effect<Token.PutClaims, PutRejected> =>
      Either.match(Token.verify(key, token), {
        onLeft: (why) => Effect.fail(reject("bad_signature", why)),
        onRight: Effect.succeed
      })

    const receive = <E, G = never>(
      put: SignedPut<E>,
      beforeCommit: Effect.Effect<void, G> = Effect.void
    ): Effect.Effect<BlobInfo, PutRejected | BlobStoreError | G> =>
      Effect.gen(function* () {
        const claims = yield* claimsOf(put.token)
        yield* Effect.annotateCurrentSpan({ path: claims.path, sizeBytes: claims.sizeBytes })
        const now = yield* Clock.currentTimeMillis
        if (now >= claims.expiresAtMillis) return yield* reject("expired", "the upload URL has expired")
        if (!MediaType.matches(claims.contentType, put.contentType))
          return yield* reject(
            "content_type",
            `the Content-Type must be ${claims.contentType}, as signed (got ${put.contentType ?? "none"})`
          )
        if (put.contentLength !== undefined && put.contentLength !== claims.sizeBytes)
          return yield* reject(
            put.contentLength > claims.sizeBytes ? "too_large" : "size",
            `the Content-Length must be ${claims.sizeBytes}, as signed (got ${put.contentLength})`
          )

        const file = fileOf(claims.path)
        const temp = paths.join(partials, randomUUID())
        const tempSidecar = `${temp}.meta`
        const cleanUp = Effect.forEach([temp, tempSidecar], (target) => fs.remove(target, { force: true }), {
          discard: true
        }).pipe(
          Effect.catchAll((error) => Effect.logWarning("could not delete a partial upload", error.message))
        )

        return yield* Effect.gen(function* () {
          yield* fs
            .makeDirectory(partials, { recursive: true })
            .pipe(Effect.zipRight(fs.makeDirectory(paths.dirname(file), { recursive: true })))
            .pipe(Effect.mapError(failure("cannot create the blob's folder")))
          yield* Effect.scoped(
            Effect.gen(function* () {
              const handle = yield* fs
                .open(temp, { flag: "wx", mode: 0o600 })
                .pipe(Effect.mapError(failure("cannot create a partial file")))
              let received = 0
              const tooLarge = reject(
                "too_large",
                `the body is longer than the ${claims.sizeBytes} bytes signed`
              )
              yield* put.body.pipe(
                Stream.mapError(() => reject("incomplete", "the body could not be read to its end")),
                Stream.runForEach((chunk): Effect.Effect<void, PutRejected | BlobStoreError> => {
                  received += chunk.byteLength
                  if (received <= claims.sizeBytes)
                    return handle.writeAll(chunk).pipe(Effect.mapError(failure(`cannot write ${temp}`)))
                  // Past the signed size, bytes are read and dropped so the sender hears the 413.
                  return received <= claims.sizeBytes + maxDrainBytes ? Effect.void : Effect.fail(tooLarge)
                })
              )
              if (received > claims.sizeBytes) return yield* tooLarge
              if (received < claims.sizeBytes)
                return yield* reject(
                  "size",
                  `the body ended after ${received} of the ${claims.sizeBytes} bytes signed`
                )
              yield* handle.sync.pipe(Effect.mapError(failure(`cannot write ${temp}`)))
            })
          )
          yield* beforeCommit
          // Commit: the sidecar first, then the bytes, without interruption in between.
          yield* Effect.uninterruptible(
            fs
              .writeFileString(
                tempSidecar,
                JSON.stringify({ contentType: claims.contentType, sizeBytes: claims.sizeBytes }),
                { flag: "wx", mode: 0o600 }
              )
              .pipe(
                Effect.zipRight(fs.rename(tempSidecar, sidecarOf(file))),
                Effect.zipRight(fs.rename(temp, file)),
                Effect.mapError(failure(`cannot store ${file}`))
              )
          )
          yield* Effect.logDebug("upload stored")
          return { sizeBytes: claims.sizeBytes, contentType: claims.contentType } satisfies BlobInfo
        }).pipe(Effect.ensuring(cleanUp), Effect.annotateLogs({ path: claims.path }))
      }).pipe(
        Effect.tapError((error) =>
          error instanceof PutRejected
            ? Effect.logInfo("signed upload refused", { refusal: error.refusal, reason: error.reason })
            : Effect.void
        ),
        Effect.withSpan("LocalBlobStore.receive")
      )

    return {
      root,
      sweep,
      store: BlobStore.of({
        bucket,
        signPut,
        stat,
        read,
        remove
      }),
      receiver: SignedPutReceiver.of({ claims: claimsOf, receive })
    }
  })

/** Deletes partial bodies not modified for `staleAfter`; failures are logged, never fatal. */
const sweepPartials = (
  fs: FileSystem.FileSystem,
  paths: Path.Path,
  folder: string,
  staleAfter: Duration.Duration
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const names = yield* fs.readDirectory(folder)
    let removed = 0
    for (const name of names) {
      const target = paths.join(folder, name)
      const info = yield* fs.stat(target)
      const modified = Option.getOrElse(
        Option.map(info.mtime, (date) => date.getTime()),
        () => 0
      )
      if (now - modified >= Duration.toMillis(staleAfter)) {
        yield* fs.remove(target, { recursive: true, force: true })
        removed += 1
      }
    }
    if (removed > 0)
      yield* Effect.logInfo(`deleted ${removed} stale partial upload(s)`).pipe(
        Effect.annotateLogs({ removed })
      )
  }).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning(`could not sweep partial uploads: ${error.message}`).pipe(
        Effect.annotateLogs({ folder })
      )
    )
  )

/** `BlobStore` and `SignedPutReceiver` over one folder. */
export const layer = (
  settings: LocalBlobStoreSettings
): Layer.Layer<BlobStore | SignedPutReceiver, BlobStoreError, FileSystem.FileSystem | Path.Path> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const { store, receiver, sweep } = yield* make(settings)
      // Swept again while it runs: a body a crash left (this process's, or another's sharing the folder).
      yield* Effect.forkScoped(
        Effect.repeat(sweep, Schedule.spaced(Duration.decode(settings.sweepEvery ?? defaultSweepEvery))).pipe(
          Effect.delay(Duration.decode(settings.sweepEvery ?? defaultSweepEvery))
        )
      )
      return Context.make(BlobStore, store).pipe(Context.add(SignedPutReceiver, receiver))
    })
  )

/** `layer` with `LocalBlobStoreConfig`. */
export const layerConfig: Layer.Layer<
  BlobStore | SignedPutReceiver,
  BlobStoreError | ConfigError.ConfigError,
  FileSystem.FileSystem | Path.Path
> = Layer.unwrapEffect(Effect.map(LocalBlobStoreConfig, layer))
