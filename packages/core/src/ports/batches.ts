/**
 * Batches: a POST /batch and its videos (items). Every item gets its job id when the batch is
 * accepted; the worker that runs the item records the video's transcribe request as that job, so an
 * item's status, error, credits and transcript are its job's, and an item run twice (its worker
 * died) finds its job instead of running again. An item whose reference named no video fails at
 * once with `error` and never gets a job.
 *
 * Workers take an item with a short lease (compare-and-set, like jobs), mark it done once its job
 * exists, and finish a batch (compare-and-set from `processing`) when every item is done and no
 * item's job is still processing.
 */
import { Api, Ids, Mode } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account } from "./accounts.js"
import type { JobRecord } from "./jobs.js"
import type { TranscriptRecord } from "./transcripts.js"
import type { DeliveryStatus } from "./webhook-deliveries.js"

export const BatchStatus = Schema.Literal("processing", "completed", "partial", "failed")
export type BatchStatus = typeof BatchStatus.Type

/** What every item of a batch is asked with (the request's fields, as sent). */
export const BatchSettings = Schema.Struct({
  language: Schema.optional(Schema.String),
  mode: Schema.optional(Mode.Mode),
  source: Schema.optional(Mode.LegacySource),
  allow_asr: Schema.optional(Schema.Boolean),
  format: Api.FormatOptions,
  asr_options: Schema.Unknown,
  webhook_url: Schema.optional(Schema.String)
})
export type BatchSettings = typeof BatchSettings.Type

export const BatchRecord = Schema.Struct({
  id: Ids.BatchId,
  accountId: Ids.AccountId,
  requestId: Ids.RequestId,
  status: BatchStatus,
  request: BatchSettings,
  total: Schema.Int,
  /** Where the finished batch is delivered. */
  webhookUrl: Schema.NullOr(Schema.String),
  webhookDeliveryId: Schema.NullOr(Schema.UUID),
  /** Fetches of the finished batch in the current 24-hour window (the 61st answers 429). */
  fetchesAfterFinish: Schema.NonNegativeInt,
  fetchWindowStartedAt: Schema.NullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  startedAt: Schema.NullOr(Schema.DateTimeUtc),
  completedAt: Schema.NullOr(Schema.DateTimeUtc)
})
export interface BatchRecord extends Schema.Schema.Type<typeof BatchRecord> {}

export interface BatchItem {
  readonly position: number
  readonly requestId: Ids.RequestId
  /** The video id, or the value sent when it named no video. */
  readonly videoId: string
  readonly jobId: Ids.JobId
  /** Set when the item failed before it could run (no job). */
  readonly error: string | null
  readonly done: boolean
}

/**
 * An item to store: its position is its index in the list (0, 1, ...); done when it failed before
 * it could run; its request and job ids are given, or assigned by the store.
 */
export interface NewBatchItem {
  readonly videoId: string
  readonly error: string | null
  readonly requestId?: Ids.RequestId | undefined
  readonly jobId?: Ids.JobId | undefined
}

/** An item with its job, when the job exists. */
export interface BatchItemView extends BatchItem {
  readonly job: JobRecord | null
}

export interface BatchView {
  readonly batch: BatchRecord
  readonly items: ReadonlyArray<BatchItemView>
  /** The finished batch's delivery, when it has a webhook and finished. */
  readonly delivery: { readonly status: DeliveryStatus; readonly attempts: number } | null
}

/** An item to run: its batch and position, and the batch's account (for fairness). */
export interface PendingItem {
  readonly batchId: Ids.BatchId
  readonly position: number
  readonly accountId: Ids.AccountId
  /** When the lease of the worker that last took it expired; null when it was never taken. */
  readonly leaseExpiresAt: DateTime.Utc | null
}

/** What an attempt to take a batch item found. */
export type ItemClaim =
  | {
      readonly _tag: "Claimed"
      readonly batch: BatchRecord
      /** The batch's account, read by the claim itself; none when it was deleted. */
      readonly account: Option.Option<Account>
      /** The account's available balance as the claim read it (0 when the account is gone). */
      readonly available: number
      /**
       * Whether the account had a transcript (any language, source or status) of the item's video
       * as the claim read it: false spares the item's look for an owned one before the fetch.
       */
      readonly ownsVideo: boolean
      readonly item: BatchItem
      /** Whether a worker had taken the item before (it may have run the item's job already). */
      readonly takenBefore: boolean
    }
  | { readonly _tag: "Waiting" }
  /** `total`: the size of the item's batch (0 when the batch is gone). */
  | { readonly _tag: "Taken"; readonly total: number }

export class Batches extends Context.Tag("@verbatim/core/Batches")<
  Batches,
  {
    /**
     * The batch and all its items (at their index), in one transaction (one statement for the items,
     * however many); an item without ids gets fresh ones.
     */
    readonly insert: (
      batch: BatchRecord,
      items: ReadonlyArray<NewBatchItem>
    ) => Effect.Effect<void, PersistenceError>
    /** The account's batch with its items (by position) and their jobs; none for another account's. */
    readonly view: (
      accountId: Ids.AccountId,
      id: Ids.BatchId
    ) => Effect.Effect<Option.Option<BatchView>, PersistenceError>
    /**
     * Takes an item that is not done, when its lease is free or expired, and marks the batch started
     * (one statement; the batch row is written only by its first claim);
     * `Waiting` while an earlier item of the account's batches names the same video and is not done
     * (so one video is fetched once, whatever the batches that name it); `Taken` when the item is
     * done or another worker holds it.
     */
    readonly claimItem: (claim: {
      readonly batchId: Ids.BatchId
      readonly position: number
      readonly owner: string
      readonly now: DateTime.Utc
      readonly leaseMs: number
    }) => Effect.Effect<ItemClaim, PersistenceError>
    /**
     * Extends the lease of an item the owner holds and has not marked done (its heartbeat); false
     * when the item is done or another worker took it.
     */
    readonly extendItemLease: (lease: {
      readonly batchId: Ids.BatchId
      readonly position: number
      readonly owner: string
      readonly now: DateTime.Utc
      readonly leaseMs: number
    }) => Effect.Effect<boolean, PersistenceError>
    /**
     * Marks an item done (its job exists), while the lease is the owner's, and tells whether it was
     * the batch's last: `last` when no item of the batch is left undone, `marked` when some are,
     * `not held` (nothing written) when the item is done or another's. Of two items marked at once,
     * at most one misses the other's mark, so a batch's last mark always answers `last`.
     */
    readonly itemDone: (
      batchId: Ids.BatchId,
      position: number,
      owner: string
    ) => Effect.Effect<"last" | "marked" | "not held", PersistenceError>
    /**
     * Records the error of an item refused before its job was recorded (there is no job to tell
     * it), while the lease is the owner's and the item is not done; its done mark follows, so the
     * item counts as failed and the batch finishes. False when nothing was written.
     */
    readonly itemFailed: (
      batchId: Ids.BatchId,
      position: number,
      owner: string,
      error: string
    ) => Effect.Effect<boolean, PersistenceError>
    /**
     * Items to offer again, of processing batches: those not done whose lease expired, and those
     * never taken that are inside their batch's offer window (the first `window` positions, or the
     * item `window` positions before was taken or is done) when the batch was accepted before
     * `acceptedBefore`. Each batch's lowest positions first, then the oldest batches, so every
     * batch gets its turn whatever the limit.
     */
    readonly pending: (
      now: DateTime.Utc,
      limit: number,
      options: { readonly window: number; readonly acceptedBefore: DateTime.Utc }
    ) => Effect.Effect<ReadonlyArray<PendingItem>, PersistenceError>
    /** Whether an item of the batch is not done yet (one index look-up, however large the batch). */
    readonly hasUndone: (id: Ids.BatchId) => Effect.Effect<boolean, PersistenceError>
    /**
     * Processing batches whose items are all done and whose items' jobs are all finished (an item
     * done with neither a job nor an error is not finished: such a batch is never taken, so it
     * cannot keep others from their turn), oldest first.
     */
    readonly finishable: (
      limit: number
    ) => Effect.Effect<
      ReadonlyArray<{ readonly id: Ids.BatchId; readonly accountId: Ids.AccountId }>,
      PersistenceError
    >
    /** processing -> a final status; false when it was already finished. */
    readonly finish: (
      id: Ids.BatchId,
      status: Exclude<BatchStatus, "processing">,
      at: DateTime.Utc,
      deliveryId: string | null
    ) => Effect.Effect<boolean, PersistenceError>
    /**
     * Counts a fetch of a finished batch in its 24-hour window (a new window starts when the last
     * one is over) and answers the count in the window, including this one.
     */
    readonly countFetch: (id: Ids.BatchId, now: DateTime.Utc) => Effect.Effect<number, PersistenceError>
    /** The account's transcripts with these ids (the results of a batch), by id. */
    readonly transcriptsOf: (
      accountId: Ids.AccountId,
      ids: ReadonlyArray<Ids.TranscriptId>
    ) => Effect.Effect<ReadonlyMap<string, TranscriptRecord>, PersistenceError>
    /** The video ids among `videoIds` the account owns a transcript of. */
    readonly ownedVideos: (
      accountId: Ids.AccountId,
      videoIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlySet<string>, PersistenceError>
  }
>() {}

/** The public address of the service (`poll_url` and the like start with it). */
export class ServiceUrl extends Context.Tag("@verbatim/core/ServiceUrl")<ServiceUrl, string>() {}
