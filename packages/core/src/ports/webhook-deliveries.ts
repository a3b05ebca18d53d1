/**
 * The webhook outbox: one row per delivery to make, written in the same transaction as the result
 * it carries (so a crash can never lose one), and one row per attempt (the delivery log). Workers
 * take a delivery with a short lease, send it, and record the attempt and what comes next.
 */
import { Ids } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed")
export type DeliveryStatus = typeof DeliveryStatus.Type

export const DeliveryRecord = Schema.Struct({
  /** The `webhook-id`: the same on every attempt, so receivers can drop duplicates. */
  id: Schema.UUID,
  accountId: Ids.AccountId,
  jobId: Schema.NullOr(Ids.JobId),
  /** What happened: `job.completed`, `job.failed`, `batch.completed`. */
  event: Schema.String,
  url: Schema.String,
  /** The JSON body, exactly as signed and sent. */
  payload: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.NonNegativeInt,
  nextAttemptAt: Schema.DateTimeUtc,
  lastStatus: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtc,
  completedAt: Schema.NullOr(Schema.DateTimeUtc)
})
export interface DeliveryRecord extends Schema.Schema.Type<typeof DeliveryRecord> {}

export interface NewDelivery {
  readonly id: string
  readonly accountId: Ids.AccountId
  readonly jobId: Ids.JobId | null
  readonly event: string
  readonly url: string
  readonly payload: string
  readonly at: DateTime.Utc
}

/** One attempt, as the delivery log keeps it. */
export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Int,
  at: Schema.DateTimeUtc,
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.NonNegativeInt
})
export interface DeliveryAttempt extends Schema.Schema.Type<typeof DeliveryAttempt> {}

/** What an attempt leads to. */
export interface AttemptResult {
  readonly attempt: DeliveryAttempt
  /** `pending` with the next attempt's time, or final. */
  readonly status: DeliveryStatus
  readonly nextAttemptAt: DateTime.Utc
}

export interface DueDelivery {
  readonly id: string
  readonly accountId: Ids.AccountId
  readonly attempts: number
}

export class WebhookDeliveries extends Context.Tag("@verbatim/core/WebhookDeliveries")<
  WebhookDeliveries,
  {
    readonly insert: (delivery: NewDelivery) => Effect.Effect<DeliveryRecord, PersistenceError>
    /**
     * Takes the delivery for one attempt when it is pending, due and not leased by another worker;
     * none otherwise (already delivered, not due, in another worker's hands).
     */
    readonly claim: (
      id: string,
      owner: string,
      now: DateTime.Utc,
      leaseMs: number
    ) => Effect.Effect<Option.Option<DeliveryRecord>, PersistenceError>
    /** Records an attempt made under the lease and the delivery's next state; false if the lease was lost. */
    readonly record: (
      id: string,
      owner: string,
      result: AttemptResult
    ) => Effect.Effect<boolean, PersistenceError>
    /** The attempts of a delivery, in order. */
    readonly attempts: (id: string) => Effect.Effect<ReadonlyArray<DeliveryAttempt>, PersistenceError>
    /** The deliveries of a job (for the job's delivery log). */
    readonly ofJob: (jobId: Ids.JobId) => Effect.Effect<ReadonlyArray<DeliveryRecord>, PersistenceError>
    /** Up to `limit` pending deliveries due now and not leased. */
    readonly due: (
      now: DateTime.Utc,
      limit: number
    ) => Effect.Effect<ReadonlyArray<DueDelivery>, PersistenceError>
  }
>() {}
