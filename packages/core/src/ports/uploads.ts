/**
 * Uploads: media files an account registers, PUTs to storage and then transcribes once.
 *
 * registered --complete (file found)--> uploaded --transcribe--> consumed (spec "Upload status").
 * Every move is a compare-and-set on the current status, so two requests cannot both consume one
 * upload. The file itself lives in the `BlobStore` at `path`; `fileRemovedAt` records when it was
 * deleted (after its job finished, or when the upload expired unused), `putClosesAt` the last moment
 * a signed PUT could still store it.
 */
import { Api, Ids, type Plan } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

export const UploadStatus = Schema.Literal("registered", "uploaded", "consumed")
export type UploadStatus = typeof UploadStatus.Type

export const UploadRecord = Schema.Struct({
  id: Ids.UploadId,
  accountId: Ids.AccountId,
  filename: Api.UploadFilename,
  mimeType: Schema.String,
  sizeBytes: Schema.Int,
  durationSeconds: Schema.Int,
  /** The object's path in the blob store. */
  path: Schema.String,
  status: UploadStatus,
  /** The job that consumed it. */
  jobId: Schema.NullOr(Ids.JobId),
  /** A registered or uploaded upload not consumed by then is removed with its file. */
  expiresAt: Schema.DateTimeUtc,
  createdAt: Schema.DateTimeUtc,
  uploadedAt: Schema.NullOr(Schema.DateTimeUtc),
  consumedAt: Schema.NullOr(Schema.DateTimeUtc),
  fileRemovedAt: Schema.NullOr(Schema.DateTimeUtc),
  /** The last moment a signed PUT of the file could land: the URL's expiry plus its PUT time. */
  putClosesAt: Schema.DateTimeUtc
})
export interface UploadRecord extends Schema.Schema.Type<typeof UploadRecord> {}

/** What an account may hold of uploads (`Plan.uploadQuotaFor`). */
export interface UploadQuota extends Plan.UploadQuota {}
/** What an account holds of uploads. */
export interface UploadUsage extends Plan.UploadUsage {}

/** Whether an upload was registered, and what its account held before. */
export interface UploadInsert {
  readonly inserted: boolean
  readonly usage: UploadUsage
}

export class Uploads extends Context.Tag("@verbatim/core/Uploads")<
  Uploads,
  {
    /**
     * Registers `upload` when the account stays within `quota` with it (one more in flight, its size
     * more stored); what the account held before, and whether it was inserted. Inserts of one account
     * take turns, so concurrent ones cannot together pass the quota.
     */
    readonly insert: (
      upload: UploadRecord,
      quota: UploadQuota
    ) => Effect.Effect<UploadInsert, PersistenceError>
    /** The account's upload; none for an unknown id or another account's (DESIGN decision 13). */
    readonly get: (
      accountId: Ids.AccountId,
      id: Ids.UploadId
    ) => Effect.Effect<Option.Option<UploadRecord>, PersistenceError>
    /** registered -> uploaded (and pushes the expiry out to `expiresAt`); the record after the move, none when it was not registered. */
    readonly markUploaded: (
      id: Ids.UploadId,
      at: DateTime.Utc,
      expiresAt: DateTime.Utc
    ) => Effect.Effect<Option.Option<UploadRecord>, PersistenceError>
    /** uploaded -> consumed by a job; false when it was not uploaded (consumed meanwhile). */
    readonly consume: (
      id: Ids.UploadId,
      jobId: Ids.JobId,
      at: DateTime.Utc
    ) => Effect.Effect<boolean, PersistenceError>
    /**
     * Uploads whose file should go, at most `limit`: unconsumed ones past their expiry and their PUT
     * window, consumed ones whose job has finished (their files not yet removed), and any whose file
     * was removed before its PUT window closed, once it has (a late PUT may have stored it again).
     */
    readonly sweepable: (
      now: DateTime.Utc,
      limit: number
    ) => Effect.Effect<ReadonlyArray<UploadRecord>, PersistenceError>
    /** Records that the file is gone; an expired unconsumed upload is deleted outright. */
    readonly fileRemoved: (id: Ids.UploadId, at: DateTime.Utc) => Effect.Effect<void, PersistenceError>
  }
>() {}
