/**
 * Storage for uploaded media. The client PUTs the bytes straight to a signed, expiring URL; the
 * server only signs, checks that the object arrived, reads it for recognition and deletes it.
 *
 * Two implementations pass one shared suite (`@verbatim/storage` tests): a local folder whose
 * signed URLs the API server itself serves (`SignedPutReceiver`, HMAC-checked), and an
 * S3-compatible bucket (presigned PUT). Paths are relative keys such as `uploads/<account>/<id>`.
 */
import { Context, type DateTime, type Effect, type Option, Schema, type Stream } from "effect"

/** What the store holds at a path. */
export interface BlobInfo {
  readonly sizeBytes: number
  readonly contentType: string | null
}

/** Where and how a client uploads one object. */
export interface PutTicket {
  readonly bucket: string
  readonly path: string
  /** The signed token the URL carries. */
  readonly token: string
  /** The URL that takes one PUT of exactly `sizeBytes` bytes with `contentType`, until `expiresAt`. */
  readonly url: string
  readonly expiresAt: DateTime.Utc
}

export interface PutTerms {
  readonly contentType: string
  readonly sizeBytes: number
  readonly expiresAt: DateTime.Utc
}

/**
 * What kind of failure a store's was: `full` (no space left, or a quota: ENOSPC, EDQUOT), `refused`
 * (the store refuses this server's writes: a read-only or forbidden folder, EACCES, EPERM, EROFS),
 * or `failed` (anything else: unreachable, timed out, a bug). Callers answer `full` with 507
 * `insufficient_storage` and the others with 503 `storage_unavailable`.
 */
export const BlobStoreCondition = Schema.Literal("full", "refused", "failed")
export type BlobStoreCondition = typeof BlobStoreCondition.Type

/** The store could not be reached or failed; `reason` names the path where there is one. */
export class BlobStoreError extends Schema.TaggedError<BlobStoreError>()("BlobStoreError", {
  reason: Schema.String,
  condition: Schema.optionalWith(BlobStoreCondition, { default: () => "failed" })
}) {}

/** Nothing is stored at the path. */
export class BlobMissing extends Schema.TaggedError<BlobMissing>()("BlobMissing", {
  path: Schema.String
}) {}

export interface BlobStoreService {
  /** The bucket (S3) or folder name reported as `bucket` by `POST /uploads`. */
  readonly bucket: string
  readonly signPut: (path: string, terms: PutTerms) => Effect.Effect<PutTicket, BlobStoreError>
  readonly stat: (path: string) => Effect.Effect<Option.Option<BlobInfo>, BlobStoreError>
  /** The object's bytes; `BlobMissing` when nothing is stored there. */
  readonly read: (path: string) => Stream.Stream<Uint8Array, BlobStoreError | BlobMissing>
  /** Deletes the object; deleting a missing object succeeds. */
  readonly remove: (path: string) => Effect.Effect<void, BlobStoreError>
}

export class BlobStore extends Context.Tag("@verbatim/core/BlobStore")<BlobStore, BlobStoreService>() {}

/** Why a signed PUT was refused; nothing of it is kept. */
export const PutRefusal = Schema.Literal(
  /** The token is malformed or its signature does not match. */
  "bad_signature",
  /** The token's time is over. */
  "expired",
  /** The request's Content-Type is not the one signed. */
  "content_type",
  /** The body is shorter than the size signed, or Content-Length says so. */
  "size",
  /** The body is longer than the size signed, or Content-Length says so (413). */
  "too_large",
  /** The body could not be read to its end (the client went away). */
  "incomplete"
)
export type PutRefusal = typeof PutRefusal.Type

export class PutRejected extends Schema.TaggedError<PutRejected>()("PutRejected", {
  refusal: PutRefusal,
  reason: Schema.String
}) {}

export interface SignedPut<E> {
  readonly token: string
  readonly contentType: string | undefined
  readonly contentLength: number | undefined
  readonly body: Stream.Stream<Uint8Array, E>
}

/** What a genuine signed PUT token binds. */
export interface SignedPutClaims {
  readonly path: string
  readonly contentType: string
  readonly sizeBytes: number
  /** When the URL stops taking new PUTs (epoch milliseconds). */
  readonly expiresAtMillis: number
}

/**
 * The receiving end of the local store's signed URLs, served by the API server. The object is
 * written under a temporary name and renamed into place only when every byte arrived and matched
 * the signed terms, so a reader never sees half a file.
 */
export interface SignedPutReceiverService {
  /** The claims of a genuine token (`bad_signature` otherwise); its expiry is not checked here. */
  readonly claims: (token: string) => Effect.Effect<SignedPutClaims, PutRejected>
  /**
   * Receives the body: the expiry is checked when the PUT starts (as S3 does); `beforeCommit` runs
   * once every byte has arrived, before the object is put in place, and its failure keeps nothing.
   */
  readonly receive: <E, G = never>(
    put: SignedPut<E>,
    beforeCommit?: Effect.Effect<void, G>
  ) => Effect.Effect<BlobInfo, PutRejected | BlobStoreError | G>
}

export class SignedPutReceiver extends Context.Tag("@verbatim/core/SignedPutReceiver")<
  SignedPutReceiver,
  SignedPutReceiverService
>() {}
