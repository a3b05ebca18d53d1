/**
 * POST /uploads and POST /uploads/{upload_id}/complete (spec "Upload status", DESIGN decision 12),
 * the signed PUT of the local store, and the sweep of files nobody needs any more.
 *
 * - create: registers the upload and signs a PUT for exactly its declared type and size, valid
 *   for `uploadTicketTtlMs`.
 * - complete: the file must be in storage with the declared size: then `uploaded` (200, again
 *   200 on a second call before consumption), 400 when it is not there, 404 for an unknown id or
 *   another account's, 409 once consumed. An uploaded file waits `uploadedTtlMs` to be
 *   transcribed.
 * - receive (the local store's signed PUT): bytes are taken only while the upload waits for them
 *   (registered): checked before the body is read and again once it has arrived, before it is kept;
 *   a completed or transcribed upload answers 409 `conflict`, an expired URL or a swept upload 410
 *   `gone`. A body must arrive within `putTimeMillis` of its signed size (`UploadPace`), else 408
 *   `request_timeout`, and nothing is kept.
 * - sweep: unconsumed uploads past their expiry lose their file and their record; consumed ones lose
 *   their file once their job has finished (the transcript is what is kept). A signed URL cannot be
 *   revoked everywhere (S3's presigned PUT works until it expires, and a PUT started before then may
 *   end later), so an ended upload whose file was removed before its last PUT could have landed
 *   (`putClosesAt`: the URL's expiry plus the PUT time of its size) is swept once more after that.
 */
import { Api, Errors, Ids, Plan } from "@verbatim/domain"
import {
  Config,
  Context,
  DateTime,
  Duration,
  Effect,
  HashSet,
  Layer,
  Option,
  Ref,
  Schema,
  Stream
} from "effect"
import { storageRetryAfterSeconds } from "../boundary.js"
import type { Account } from "../ports/accounts.js"
import {
  BlobStore,
  type BlobStoreError,
  type PutRejected,
  type SignedPut,
  SignedPutReceiver
} from "../ports/blob-store.js"
import { Secrets } from "../ports/secrets.js"
import { type UploadRecord, Uploads } from "../ports/uploads.js"
import { notFound } from "./failures.js"
import { MediaUploads } from "./tags.js"

/** How long a signed PUT URL is valid. */
export const uploadTicketTtlMs = 60 * 60 * 1000
/** How long an uploaded, unconsumed file is kept for a transcribe request. */
export const uploadedTtlMs = 24 * 60 * 60 * 1000

/**
 * How long a signed PUT may take to deliver its body: its size at `minBytesPerSecond`, and never
 * less than `floorMillis` (a small file on a slow start).
 */
export interface UploadPaceSettings {
  readonly minBytesPerSecond: number
  readonly floorMillis: number
}

/** 512 KiB/s (4 Mbit/s) and at least a minute: a 2 GiB upload may take 68 minutes. */
export const defaultUploadPace: UploadPaceSettings = { minBytesPerSecond: 512 * 1024, floorMillis: 60_000 }

/** `VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND` (default 524288) and `VERBATIM_UPLOAD_PUT_FLOOR_MS` (60000). */
export const uploadPaceConfig: Config.Config<UploadPaceSettings> = Config.all({
  minBytesPerSecond: Config.integer("VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND").pipe(
    Config.validate({
      message: "VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND must be a whole number of bytes per second, 1 or more",
      validation: (n) => n >= 1
    }),
    Config.withDefault(defaultUploadPace.minBytesPerSecond)
  ),
  floorMillis: Config.integer("VERBATIM_UPLOAD_PUT_FLOOR_MS").pipe(
    Config.validate({
      message: "VERBATIM_UPLOAD_PUT_FLOOR_MS must be a whole number of milliseconds, 1 or more",
      validation: (n) => n >= 1
    }),
    Config.withDefault(defaultUploadPace.floorMillis)
  )
})

/** The pace signed PUTs are held to (`defaultUploadPace` unless the settings say otherwise). */
export class UploadPace extends Context.Reference<UploadPace>()("@verbatim/core/UploadPace", {
  defaultValue: () => defaultUploadPace
}) {}

/** The time a signed PUT of `sizeBytes` may take: its size at the minimum rate, at least the floor. */
export const putTimeMillis = (pace: UploadPaceSettings, sizeBytes: number): number =>
  Math.max(pace.floorMillis, Math.ceil((sizeBytes * 1000) / pace.minBytesPerSecond))

/** The longest any signed PUT may take (the largest upload at the minimum rate). */
export const longestPutMillis = (pace: UploadPaceSettings): number =>
  putTimeMillis(pace, Plan.maxUploadSizeBytes)

/**
 * A storage failure as the caller hears it: 507 `insufficient_storage` when the store is full, 503
 * `storage_unavailable` otherwise (unreachable, or refusing this server's writes); the operator's
 * log gets the store's reason, with the path and errno, as an error.
 */
export const storageFailure = (error: BlobStoreError): Effect.Effect<never, Errors.ApiError> =>
  Effect.zipRight(
    Effect.logError(`media storage ${error.condition}: ${error.reason}`),
    Effect.fail(
      error.condition === "full"
        ? Errors.apiError(
            "insufficient_storage",
            "the media storage is full; nothing of the upload was kept",
            {
              retry_after_seconds: storageRetryAfterSeconds
            }
          )
        : Errors.apiError(
            "storage_unavailable",
            "the media storage failed or refused the write; retry later",
            {
              retry_after_seconds: storageRetryAfterSeconds
            }
          )
    )
  )

/**
 * A refused signed PUT as the caller hears it: 403 for a bad signature, 410 once expired, 413 for
 * a body longer than signed (as the API's body limit answers), 400 for the rest of the body's faults.
 */
export const putFailure = (error: PutRejected): Errors.ApiError => {
  switch (error.refusal) {
    case "bad_signature":
      return Errors.apiError("forbidden", `the upload URL is not valid: ${error.reason}`, {
        refusal: error.refusal
      })
    case "expired":
      return Errors.apiError("gone", `the upload URL has ended: ${error.reason}`, { refusal: error.refusal })
    case "too_large":
      return Errors.apiError("request_too_large", `the upload was refused: ${error.reason}`, {
        refusal: error.refusal
      })
    case "content_type":
    case "size":
    case "incomplete":
      return Errors.apiError("invalid_request", `the upload was refused: ${error.reason}`, {
        refusal: error.refusal
      })
  }
}

export const uploadPath = (accountId: Ids.AccountId, id: Ids.UploadId): string => `uploads/${accountId}/${id}`

const UploadPathParts = Schema.Tuple(Schema.Literal("uploads"), Ids.AccountId, Ids.UploadId)
/** The account and upload of a path `uploadPath` made. */
const parseUploadPath = (path: string) => Schema.decodeUnknownOption(UploadPathParts)(path.split("/"))

/** A signed PUT of an upload that no longer waits for its bytes (`refusal` names why). */
const ended = (id: string, refusal: "completed" | "transcribed" | "removed") =>
  refusal === "completed" || refusal === "transcribed"
    ? Errors.apiError("conflict", `upload ${id} was already ${refusal}: its URL takes no more bytes`, {
        upload_id: id,
        refusal
      })
    : Errors.apiError("gone", `upload ${id} has ended (${refusal}): its URL takes no more bytes`, {
        upload_id: id,
        refusal
      })

/** 408 for a body that did not arrive within its time; the connection is closed after the answer. */
const tooSlow = (sizeBytes: number, pace: UploadPaceSettings) =>
  Errors.apiError(
    "request_timeout",
    `the upload's ${sizeBytes} bytes did not arrive within ${putTimeMillis(pace, sizeBytes)} ms ` +
      `(at least ${pace.minBytesPerSecond} bytes per second, never less than ${pace.floorMillis} ms): ` +
      "nothing was kept; PUT the file again",
    {
      refusal: "too_slow",
      limit_ms: putTimeMillis(pace, sizeBytes),
      min_bytes_per_second: pace.minBytesPerSecond
    }
  )

/** How long a refused upload's caller is told to wait: an unused upload expires within the hour. */
const quotaRetryAfterSeconds = 60

/**
 * An upload past the account's plan quota: 429 `rate_limit_exceeded` for one upload too many in
 * flight (they end as they are transcribed or expire), 413 `request_too_large` for too many bytes.
 */
const quotaRefusal = (
  account: Account,
  quota: Plan.UploadQuota,
  usage: Plan.UploadUsage,
  sizeBytes: number
): Errors.ApiError =>
  Plan.uploadQuotaExceeded(quota, usage, sizeBytes) === "in_flight"
    ? Errors.apiError(
        "rate_limit_exceeded",
        `the ${account.plan} plan allows ${quota.inFlight} uploads in flight (registered or uploaded, not yet ` +
          `transcribed) and this account has ${usage.inFlight}: transcribe or let one expire first`,
        {
          quota: "uploads_in_flight",
          limit: quota.inFlight,
          in_flight: usage.inFlight,
          retry_after_seconds: quotaRetryAfterSeconds
        }
      )
    : Errors.apiError(
        "request_too_large",
        `the ${account.plan} plan allows ${quota.bytesStored} bytes of uploads stored and this account holds ` +
          `${usage.bytesStored}: an upload of ${sizeBytes} bytes does not fit until earlier ones are transcribed or expire`,
        {
          quota: "upload_bytes_stored",
          limit: quota.bytesStored,
          stored: usage.bytesStored,
          size_bytes: sizeBytes
        }
      )

/** The bytes a window of `floorMillis` must bring at the minimum rate. */
const windowBytes = (pace: UploadPaceSettings): number =>
  Math.ceil((pace.minBytesPerSecond * pace.floorMillis) / 1000)

/** 408 for a body that brought fewer bytes in a window than the minimum rate asks. */
const tooSlowInWindow = (sizeBytes: number, got: number, pace: UploadPaceSettings) =>
  Errors.apiError(
    "request_timeout",
    `the upload's body brought ${got} bytes in ${pace.floorMillis} ms, under the minimum of ` +
      `${pace.minBytesPerSecond} bytes per second held over every ${pace.floorMillis} ms: nothing was kept; PUT the file again`,
    {
      refusal: "too_slow",
      window_ms: pace.floorMillis,
      min_bytes_per_second: pace.minBytesPerSecond,
      size_bytes: sizeBytes
    }
  )

export const makeMediaUploads = Effect.gen(function* () {
  const uploads = yield* Uploads
  const blobs = yield* BlobStore
  const secrets = yield* Secrets
  const pace = yield* UploadPace

  const owned = (account: Account, id: Ids.UploadId) =>
    uploads.get(account.id, id).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => notFound(`upload ${id}`, { upload_id: id }),
          onSome: Effect.succeed
        })
      )
    )

  const completeAnswer = (upload: UploadRecord) =>
    new Api.UploadCompleteResponse({
      upload_id: upload.id,
      status: "uploaded",
      filename: upload.filename,
      duration_sec: upload.durationSeconds
    })

  const create = (account: Account, request: Api.UploadCreateRequest) =>
    Effect.gen(function* () {
      const id = (yield* secrets.uuid) as Ids.UploadId
      const now = yield* DateTime.now
      const expiresAt = DateTime.add(now, { millis: uploadTicketTtlMs })
      const path = uploadPath(account.id, id)
      const ticket = yield* blobs
        .signPut(path, { contentType: request.mime_type, sizeBytes: request.size_bytes, expiresAt })
        .pipe(Effect.catchTag("BlobStoreError", storageFailure))
      const quota = Plan.uploadQuotaFor(account.plan)
      const { inserted, usage } = yield* uploads.insert(
        {
          id,
          accountId: account.id,
          filename: request.filename,
          mimeType: request.mime_type,
          sizeBytes: request.size_bytes,
          durationSeconds: request.duration_sec,
          path,
          status: "registered",
          jobId: null,
          expiresAt,
          createdAt: now,
          uploadedAt: null,
          consumedAt: null,
          fileRemovedAt: null,
          putClosesAt: DateTime.add(expiresAt, { millis: putTimeMillis(pace, request.size_bytes) })
        },
        quota
      )
      if (!inserted) return yield* Effect.fail(quotaRefusal(account, quota, usage, request.size_bytes))
      return new Api.UploadCreateResponse({
        upload_id: id,
        bucket: ticket.bucket,
        path: ticket.path,
        token: ticket.token,
        signed_url: ticket.url
      })
    }).pipe(Effect.withSpan("verbatim.uploads.create"))

  const complete = (account: Account, id: Ids.UploadId) =>
    Effect.gen(function* () {
      const upload = yield* owned(account, id)
      switch (upload.status) {
        case "consumed":
          return yield* Effect.fail(
            Errors.apiError("conflict", `upload ${id} was already transcribed`, { upload_id: id })
          )
        case "uploaded":
          return completeAnswer(upload)
        case "registered":
          break
      }
      const stored = yield* blobs.stat(upload.path).pipe(Effect.catchTag("BlobStoreError", storageFailure))
      if (Option.isNone(stored)) {
        return yield* Effect.fail(
          Errors.apiError(
            "invalid_request",
            `the file of upload ${id} is not in storage: PUT its bytes to the signed_url first`,
            { upload_id: id }
          )
        )
      }
      if (stored.value.sizeBytes !== upload.sizeBytes) {
        return yield* Effect.fail(
          Errors.apiError(
            "invalid_request",
            `the stored file of upload ${id} has ${stored.value.sizeBytes} bytes, not the ${upload.sizeBytes} declared`,
            { upload_id: id }
          )
        )
      }
      const now = yield* DateTime.now
      const marked = yield* uploads.markUploaded(id, now, DateTime.add(now, { millis: uploadedTtlMs }))
      if (Option.isSome(marked)) return completeAnswer(marked.value)
      // A concurrent complete (or transcribe) moved it first: answer from where it is now.
      const again = yield* owned(account, id)
      return again.status === "consumed"
        ? yield* Effect.fail(
            Errors.apiError("conflict", `upload ${id} was already transcribed`, { upload_id: id })
          )
        : completeAnswer(again)
    }).pipe(Effect.withSpan("verbatim.uploads.complete"))

  /** Removes the files (and expired records) nobody needs; how many were swept. */
  const sweep = Effect.gen(function* () {
    const now = yield* DateTime.now
    const due = yield* uploads.sweepable(now, 500)
    let swept = 0
    for (const upload of due) {
      const removed = yield* blobs.remove(upload.path).pipe(
        Effect.as(true),
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning(`could not remove the file of upload ${upload.id}`, error.reason),
            false
          )
        )
      )
      if (removed) {
        yield* uploads.fileRemoved(upload.id, now)
        swept++
      }
    }
    return swept
  }).pipe(Effect.withSpan("verbatim.uploads.sweep"))

  const receiver = yield* Effect.serviceOption(SignedPutReceiver)

  /** Succeeds while the upload at `path` waits for its bytes (registered). */
  const waiting = (path: string) =>
    Effect.gen(function* () {
      const parts = parseUploadPath(path)
      if (Option.isNone(parts)) return yield* ended(path, "removed")
      const [, accountId, id] = parts.value
      const upload = yield* uploads.get(accountId, id)
      if (Option.isNone(upload)) return yield* ended(id, "removed")
      switch (upload.value.status) {
        case "uploaded":
          return yield* ended(id, "completed")
        case "consumed":
          return yield* ended(id, "transcribed")
        case "registered":
          return
      }
    })

  /**
   * Fails with 408 once a window (`floorMillis`) passes in which the body did not bring the minimum
   * rate's worth of bytes (or the rest of the file, when less): a PUT is held to the pace all along,
   * not only on average to its deadline. Only windows that end before the deadline are checked (the
   * deadline answers for the last). Never succeeds; raced against the receipt.
   */
  const keptToPace = (
    received: Ref.Ref<number>,
    sizeBytes: number,
    before: number,
    windowsLeft: number
  ): Effect.Effect<never, Errors.ApiError> =>
    windowsLeft <= 0
      ? Effect.never
      : Effect.sleep(Duration.millis(pace.floorMillis)).pipe(
          Effect.zipRight(Ref.get(received)),
          Effect.flatMap((now) =>
            now - before < Math.min(windowBytes(pace), sizeBytes - before)
              ? Effect.fail(tooSlowInWindow(sizeBytes, now - before, pace))
              : keptToPace(received, sizeBytes, now, windowsLeft - 1)
          )
        )

  /** The paths a PUT is being received for on this server: one PUT per signed URL at a time. */
  const receiving = yield* Ref.make(HashSet.empty<string>())
  const oneAtATime =
    (path: string) =>
    <A, E2, R>(work: Effect.Effect<A, E2, R>): Effect.Effect<A, E2 | Errors.ApiError, R> =>
      Effect.acquireUseRelease(
        Ref.modify(receiving, (paths) =>
          HashSet.has(paths, path) ? [false, paths] : [true, HashSet.add(paths, path)]
        ),
        (claimed): Effect.Effect<A, E2 | Errors.ApiError, R> =>
          claimed
            ? work
            : Effect.fail(
                Errors.apiError(
                  "conflict",
                  "another PUT of this upload is in progress: one PUT per signed URL at a time",
                  { refusal: "put_in_progress" }
                )
              ),
        (claimed) => (claimed ? Ref.update(receiving, HashSet.remove(path)) : Effect.void)
      )

  const receive = <E>(put: SignedPut<E>) =>
    Option.match(receiver, {
      onNone: () =>
        Effect.fail(
          Errors.apiError(
            "not_found",
            "this server does not receive uploads: PUT the bytes to the signed_url"
          )
        ),
      onSome: (store) =>
        Effect.gen(function* () {
          const claims = yield* store.claims(put.token)
          yield* waiting(claims.path)
          const received = yield* Ref.make(0)
          const counted: SignedPut<E> = {
            ...put,
            body: Stream.tap(put.body, (chunk) => Ref.update(received, (n) => n + chunk.byteLength))
          }
          yield* Effect.raceFirst(
            store.receive(counted, waiting(claims.path)),
            keptToPace(
              received,
              claims.sizeBytes,
              0,
              Math.ceil(putTimeMillis(pace, claims.sizeBytes) / pace.floorMillis) - 1
            )
          ).pipe(
            Effect.timeoutFail({
              duration: Duration.millis(putTimeMillis(pace, claims.sizeBytes)),
              onTimeout: () => tooSlow(claims.sizeBytes, pace)
            }),
            oneAtATime(claims.path)
          )
        }).pipe(
          Effect.catchTags({
            PutRejected: (error) => Effect.fail(putFailure(error)),
            BlobStoreError: storageFailure
          })
        )
    }).pipe(Effect.withSpan("verbatim.uploads.receive"))

  return MediaUploads.of({ create, complete, receive, sweep })
})

export const MediaUploadsLive = Layer.effect(MediaUploads, makeMediaUploads)
