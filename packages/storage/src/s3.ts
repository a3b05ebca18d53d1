/**
 * The S3-compatible store, for production: AWS S3, or any service speaking its API (MinIO, R2,
 * Ceph, …) through `endpoint` and `forcePathStyle`.
 *
 * `signPut` presigns a SigV4 `PutObject` URL (query-string authentication) whose signed headers are
 * `content-length;content-type;host`. What S3 then enforces, and what it cannot:
 *
 * - Content-Type: signed, so a PUT with any other value (even another letter case, or added
 *   parameters) fails the signature check (403 `SignatureDoesNotMatch`); S3 stores the type signed.
 * - Size: the Content-Length header is signed, so a declared length other than the one signed fails
 *   the signature check; a PUT without Content-Length (chunked) is refused (the signed header is
 *   missing; S3 also requires a length for PutObject). A body that ends before its declared length
 *   never completes (S3 times the request out and stores nothing); a client cannot send more than
 *   it declared (HTTP framing ends the body there).
 * - Expiry: S3 refuses the URL after `X-Amz-Date + X-Amz-Expires` (403 `AccessDenied`, "Request
 *   has expired"). SigV4 presigned URLs live at most 7 days, so terms expiring later are refused
 *   here. The URL expires at most one second before `expiresAt` (SigV4 times are whole seconds).
 *   Terms already expired are signed with a past date, so the URL is refused at once.
 * - Not enforced: single use (the URL works for any number of PUTs until it expires, each replacing
 *   the object with the same type and size, also after its upload was completed or transcribed: a
 *   presigned URL cannot be revoked), how long a PUT started before the expiry may take, and the
 *   bytes themselves (the payload is `UNSIGNED-PAYLOAD`: the client chooses the content, as with the
 *   local store). Core's uploads sweep deletes the object of an ended upload again once its last PUT
 *   could have landed (`UploadRecord.putClosesAt`); a bucket lifecycle rule on `uploads/` is the
 *   backstop for slower clients (README).
 *
 * The client computes request checksums only when an operation requires them
 * (`requestChecksumCalculation: "WHEN_REQUIRED"`): otherwise the SDK would presign a CRC32 of the
 * empty body and every real upload would fail.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  S3ServiceException
} from "@aws-sdk/client-s3"
import { getSignedUrl } from "@aws-sdk/s3-request-presigner"
import {
  type BlobInfo,
  BlobMissing,
  BlobStore,
  BlobStoreError,
  type BlobStoreService,
  type PutTerms
} from "@verbatim/core"
import {
  Clock,
  Config,
  type ConfigError,
  DateTime,
  Duration,
  Effect,
  Layer,
  Option,
  Redacted,
  type Scope,
  Stream
} from "effect"
import { checkPath, checkPut } from "./terms.js"

export interface S3BlobStoreSettings {
  readonly bucket: string
  readonly region: string
  /** The service's URL when it is not AWS (MinIO, R2, …); none means AWS's endpoint for the region. */
  readonly endpoint?: string | undefined
  /** Path-style URLs (`{endpoint}/{bucket}/{key}`), as MinIO and most local servers need. */
  readonly forcePathStyle?: boolean | undefined
  /**
   * The access key; without it (and the secret) the SDK's default credential chain is used
   * (environment, shared files, instance or task role).
   */
  readonly accessKeyId?: Redacted.Redacted<string> | undefined
  readonly secretAccessKey?: Redacted.Redacted<string> | undefined
  /** How long a call to S3 may take before it fails with `BlobStoreError` (default 30 seconds). */
  readonly operationTimeout?: Duration.DurationInput | undefined
}

/** The largest object one PUT may carry on S3 (5 GiB). */
export const maxPutSizeBytes = 5 * 1024 ** 3
/** The longest life of a SigV4 presigned URL (7 days). */
export const maxExpiry = Duration.days(7)

/**
 * Settings from the environment: `VERBATIM_S3_BUCKET` (required), `VERBATIM_S3_REGION` (default
 * `us-east-1`), `VERBATIM_S3_ENDPOINT` (optional), `VERBATIM_S3_FORCE_PATH_STYLE` (default false),
 * `VERBATIM_S3_ACCESS_KEY_ID` and `VERBATIM_S3_SECRET_ACCESS_KEY` (secrets; both or neither:
 * neither means the SDK's default credential chain).
 */
export const S3BlobStoreConfig: Config.Config<S3BlobStoreSettings> = Config.all({
  bucket: Config.nonEmptyString("VERBATIM_S3_BUCKET"),
  region: Config.nonEmptyString("VERBATIM_S3_REGION").pipe(Config.withDefault("us-east-1")),
  endpoint: Config.option(Config.url("VERBATIM_S3_ENDPOINT")),
  forcePathStyle: Config.boolean("VERBATIM_S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false)),
  accessKeyId: Config.option(Config.redacted("VERBATIM_S3_ACCESS_KEY_ID")),
  secretAccessKey: Config.option(Config.redacted("VERBATIM_S3_SECRET_ACCESS_KEY"))
}).pipe(
  Config.validate({
    message: "VERBATIM_S3_ACCESS_KEY_ID and VERBATIM_S3_SECRET_ACCESS_KEY must be set together",
    validation: ({ accessKeyId, secretAccessKey }) =>
      Option.isSome(accessKeyId) === Option.isSome(secretAccessKey)
  }),
  Config.map(({ endpoint, accessKeyId, secretAccessKey, ...rest }) => ({
    ...rest,
    endpoint: Option.getOrUndefined(Option.map(endpoint, (url) => url.toString().replace(/\/+$/, ""))),
    accessKeyId: Option.getOrUndefined(accessKeyId),
    secretAccessKey: Option.getOrUndefined(secretAccessKey)
  }))
)

const statusOf = (error: unknown): number | undefined =>
  error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined

/** No object at the key (a missing bucket is a misconfiguration, not a missing object). */
const isNotFound = (error: unknown): boolean =>
  error instanceof Error &&
  error.name !== "NoSuchBucket" &&
  (error.name === "NotFound" || error.name === "NoSuchKey" || statusOf(error) === 404)

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error)

/** Builds the client (closed when the scope closes). */
export const makeClient = (
  settings: S3BlobStoreSettings
): Effect.Effect<S3Client, BlobStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    if ((settings.accessKeyId === undefined) !== (settings.secretAccessKey === undefined))
      return yield* new BlobStoreError({ reason: "the S3 access key id and secret must be given together" })
    const config: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle ?? false,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
      ...(settings.accessKeyId === undefined || settings.secretAccessKey === undefined
        ? {}
        : {
            credentials: {
              accessKeyId: Redacted.value(settings.accessKeyId),
              secretAccessKey: Redacted.value(settings.secretAccessKey)
            }
          })
    }
    return yield* Effect.acquireRelease(
      Effect.try({
        try: () => new S3Client(config),
        catch: (error) => new BlobStoreError({ reason: `cannot configure the S3 client: ${describe(error)}` })
      }),
      (client) => Effect.sync(() => client.destroy())
    )
  })

/** The store over one bucket, on a client made from the settings. */
export const make = (
  settings: S3BlobStoreSettings
): Effect.Effect<BlobStoreService, BlobStoreError, Scope.Scope> =>
  Effect.flatMap(makeClient(settings), (client) => fromClient(client, settings))

/** The store over one bucket, on a given client (its checksum settings are the caller's affair). */
export const fromClient = (
  client: S3Client,
  settings: Pick<S3BlobStoreSettings, "bucket" | "operationTimeout">
): Effect.Effect<BlobStoreService> =>
  Effect.sync(() => {
    const bucket = settings.bucket
    const timeout = Duration.decode(settings.operationTimeout ?? Duration.seconds(30))

    /** One call to S3, abortable, bounded by the operation timeout. */
    const call = <A>(operation: string, run: (signal: AbortSignal) => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (error) => error }).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new Error(`timed out after ${Duration.format(timeout)}`)
        }),
        Effect.mapError((error) => ({ operation, error }))
      )
    const failure = ({ operation, error }: { operation: string; error: unknown }) =>
      new BlobStoreError({ reason: `S3 ${operation} failed: ${describe(error)}` })

    const signPut = Effect.fn("S3BlobStore.signPut")(function* (path: string, terms: PutTerms) {
      yield* checkPut(path, terms, maxPutSizeBytes)
      const now = yield* Clock.currentTimeMillis
      const expiresAt = DateTime.toEpochMillis(terms.expiresAt)
      if (expiresAt - now > Duration.toMillis(maxExpiry))
        return yield* new BlobStoreError({ reason: "an S3 upload URL cannot live longer than 7 days" })
      // SigV4 times are whole seconds: the URL expires at signedAt + expiresIn <= expiresAt.
      const signedAtSeconds = Math.floor(now / 1000)
      const lifeSeconds = Math.floor(expiresAt / 1000) - signedAtSeconds
      const [signingDate, expiresIn] =
        lifeSeconds >= 1
          ? [new Date(signedAtSeconds * 1000), lifeSeconds]
          : // Already over: signed in the past so that S3 refuses it at once.
            [new Date((Math.floor(expiresAt / 1000) - 1) * 1000), 1]
      const url = yield* call("presign", () =>
        getSignedUrl(
          client,
          new PutObjectCommand({
            Bucket: bucket,
            Key: path,
            ContentType: terms.contentType,
            ContentLength: terms.sizeBytes
          }),
          { expiresIn, signingDate, signableHeaders: new Set(["content-type", "content-length"]) }
        )
      ).pipe(Effect.mapError(failure))
      const token = new URL(url).searchParams.get("X-Amz-Signature") ?? ""
      return { bucket, path, token, url, expiresAt: terms.expiresAt }
    })

    const stat = Effect.fn("S3BlobStore.stat")(function* (path: string) {
      yield* checkPath(path)
      return yield* call("HeadObject", (abortSignal) =>
        client.send(new HeadObjectCommand({ Bucket: bucket, Key: path }), { abortSignal })
      ).pipe(
        Effect.map((head) =>
          Option.some<BlobInfo>({ sizeBytes: head.ContentLength ?? 0, contentType: head.ContentType ?? null })
        ),
        Effect.catchIf(
          ({ error }) => isNotFound(error),
          () => Effect.succeedNone
        ),
        Effect.mapError(failure)
      )
    })

    const read = (path: string): Stream.Stream<Uint8Array, BlobStoreError | BlobMissing> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          yield* checkPath(path)
          const object = yield* call("GetObject", (abortSignal) =>
            client.send(new GetObjectCommand({ Bucket: bucket, Key: path }), { abortSignal })
          ).pipe(
            Effect.mapError((failed) =>
              isNotFound(failed.error) ? new BlobMissing({ path }) : failure(failed)
            )
          )
          const body = object.Body
          if (body === undefined) return Stream.empty
          // Frees the connection however the stream ends (the web stream's cancel covers most cases,
          // but not a stream dropped before its first pull).
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              if ("destroy" in body && typeof body.destroy === "function") body.destroy()
            })
          )
          return Stream.fromReadableStream({
            evaluate: () => body.transformToWebStream(),
            onError: (error) => failure({ operation: "GetObject body", error })
          })
        })
      ).pipe(Stream.withSpan("S3BlobStore.read", { attributes: { path } }))

    const remove = Effect.fn("S3BlobStore.remove")(function* (path: string) {
      yield* checkPath(path)
      yield* call("DeleteObject", (abortSignal) =>
        client.send(new DeleteObjectCommand({ Bucket: bucket, Key: path }), { abortSignal })
      ).pipe(
        Effect.asVoid,
        Effect.catchIf(
          ({ error }) => isNotFound(error),
          () => Effect.void
        ),
        Effect.mapError(failure)
      )
    })

    return BlobStore.of({ bucket, signPut, stat, read, remove })
  })

export const layer = (settings: S3BlobStoreSettings): Layer.Layer<BlobStore, BlobStoreError> =>
  Layer.scoped(BlobStore, make(settings))

/** `layer` with `S3BlobStoreConfig`. */
export const layerConfig: Layer.Layer<BlobStore, BlobStoreError | ConfigError.ConfigError> =
  Layer.unwrapEffect(Effect.map(S3BlobStoreConfig, layer))
