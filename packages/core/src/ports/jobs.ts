/**
 * Jobs: every transcribe request and every piece of asynchronous work, with its outcome.
 *
 * A job is created in its first state (a request answered at once is created finished; work for a
 * worker is created `processing`). A worker claims a processing job with a lease (owner and
 * expiry) before working on it, extends the lease while it works, and settles the job (completed or
 * failed) only while it still holds the lease; a job whose lease expired (its worker died) can be
 * claimed again. Every move is checked against `Status.JobMachine` by core before it reaches the
 * store; the store applies moves as compare-and-set on the current status (and lease owner), so two
 * workers can never both settle one job.
 */
import { Api, Credits, Ids, Language, Mode, Status, Transcript } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"
import type { ChargeRequest, InsufficientCredits } from "./ledger.js"
import type { OwnedFilter, ServedTranscript, TranscriptRecord } from "./transcripts.js"

/**
 * What a job does. `transcribe` is a request answered within itself (captions, a quote, a refusal);
 * `asr` is speech recognition of a video's audio or an upload, run by a worker; `test.delay` is
 * work for tests and benchmarks (waits, then completes and charges as told), stored like any job but
 * run only by the test wiring (`@verbatim/runtime/testing`): no production worker consumes its lane.
 */
export const JobKind = Schema.Literal("transcribe", "asr", "test.delay")
export type JobKind = typeof JobKind.Type

/** One job: the row, the queue's subject and what tools show, in one schema (dates as ISO text). */
export const JobRecord = Schema.Struct({
  id: Ids.JobId,
  accountId: Ids.AccountId,
  requestId: Ids.RequestId,
  kind: JobKind,
  /** The video id; for uploads, the upload id. */
  videoId: Schema.String,
  videoTitle: Schema.NullOr(Schema.String),
  /** The language of the transcript served, when one was. */
  language: Schema.NullOr(Language.LanguageCode),
  source: Schema.NullOr(Transcript.SourceKind),
  mode: Mode.Mode,
  status: Status.JobStatus,
  error: Schema.NullOr(Schema.String),
  creditsUsed: Credits.Credits,
  /** The stored transcript the job produced or served (null once its owner deleted it). */
  transcriptId: Schema.NullOr(Ids.TranscriptId),
  /** What the worker needs, as JSON (its schema belongs to the job's kind). */
  payload: Schema.NullOr(Api.FreeFormObject),
  /** Where the result is delivered when the job finishes. */
  webhookUrl: Schema.NullOr(Schema.String),
  /** How many times a worker claimed the job. */
  attempts: Schema.NonNegativeInt,
  leaseOwner: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Schema.DateTimeUtc),
  /** A processing job is not claimed before this time (a retry's backoff). */
  nextRunAt: Schema.NullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  startedAt: Schema.NullOr(Schema.DateTimeUtc),
  completedAt: Schema.NullOr(Schema.DateTimeUtc)
})
export interface JobRecord extends Schema.Schema.Type<typeof JobRecord> {}

/** A job a claim took: the record, and the owner of the expired lease it took over (or null). */
export interface ClaimedJob extends JobRecord {
  readonly takenOverFrom: string | null
}

/** The fields every new job starts with when its kind needs nothing more. */
export const jobDefaults = {
  payload: null,
  webhookUrl: null,
  attempts: 0,
  leaseOwner: null,
  leaseExpiresAt: null,
  nextRunAt: null
} as const satisfies Partial<JobRecord>

export interface JobPage {
  readonly items: ReadonlyArray<JobRecord>
  readonly total: number
}

export interface JobListFilter {
  readonly status?: Status.JobStatus | undefined
  readonly offset: number
  readonly limit: number
}

export interface Claim {
  readonly id: Ids.JobId
  /** Who takes the lease (a worker process and fiber). */
  readonly owner: string
  readonly now: DateTime.Utc
  readonly leaseMs: number
}

/** Claims of several jobs by one owner at once (each as `Claim` would take it). */
export interface ClaimMany {
  readonly ids: ReadonlyArray<Ids.JobId>
  readonly owner: string
  readonly now: DateTime.Utc
  readonly leaseMs: number
}

/** A finished job's outcome fields. */
export interface Settlement {
  readonly status: Status.JobStatus
  readonly error: string | null
  readonly creditsUsed: Credits.Credits
  readonly transcriptId: Ids.TranscriptId | null
  readonly videoTitle: string | null
  readonly language: Language.LanguageCode | null
  readonly source: Transcript.SourceKind | null
  readonly completedAt: DateTime.Utc
}

/** One job's settlement in `settleMany`, with the charge posted when it moves. */
export interface JobSettlement extends Settlement {
  readonly id: Ids.JobId
  readonly charge: ChargeRequest | null
}

/** What `settleMany` did with one job. */
export type SettleResult =
  /** Moved to its outcome, its charge posted; its transcript reference as stored (null when gone). */
  | { readonly _tag: "Settled"; readonly transcriptId: Ids.TranscriptId | null }
  /** Still held, not moved, nothing written: its account cannot cover the charges of its jobs here. */
  | { readonly _tag: "Unpaid"; readonly required: number; readonly balance: number }
  /** No longer processing, or held by someone else: nothing written. */
  | { readonly _tag: "NotHeld" }

/** A job that a worker may claim: processing, lease free or expired, due. */
export interface Runnable {
  readonly id: Ids.JobId
  readonly kind: JobKind
  readonly accountId: Ids.AccountId
  /** Claims so far: the queue key of a re-offer names it, so each attempt is offered once. */
  readonly attempts: number
}

export class Jobs extends Context.Tag("@verbatim/core/Jobs")<
  Jobs,
  {
    /**
     * Records a new job. Its transcript reference is kept only if that transcript still exists (a
     * transcript deleted by a concurrent request leaves the job without one, never an error).
     */
    readonly insert: (job: JobRecord) => Effect.Effect<JobRecord, PersistenceError>
    /**
     * Records a completed job with the new transcript it made (the job names it) and the job's
     * charge, as one write: all three, or nothing. Nothing, answered `"exists"`, when the account
     * already owns a transcript of the same video, language and source kind (the caller serves that
     * one instead); nothing, failing with `InsufficientCredits`, when the available balance cannot
     * cover the charge. The charge is posted as `Ledger.charge` posts it (the account's row lock
     * first, then its balance), last.
     */
    readonly insertPaid: (
      job: JobRecord,
      transcript: TranscriptRecord,
      charge: ChargeRequest
    ) => Effect.Effect<"stored" | "exists", InsufficientCredits | PersistenceError>
    /**
     * Serves an owned transcript again in one step: reads the account's newest succeeded transcript
     * of the job's video matching `filter` (as `Transcripts.owned` orders them) and records `job`
     * with that transcript's reference, video title, language and source; what an answer carries
     * of the transcript. None, and nothing written, when the account owns no such transcript.
     */
    readonly insertServing: (
      job: JobRecord,
      filter: OwnedFilter
    ) => Effect.Effect<Option.Option<ServedTranscript>, PersistenceError>
    /** The account's job with this id; another account's job is none. */
    readonly get: (
      accountId: Ids.AccountId,
      id: Ids.JobId
    ) => Effect.Effect<Option.Option<JobRecord>, PersistenceError>
    /** The job with this id, whoever owns it (for workers). */
    readonly find: (id: Ids.JobId) => Effect.Effect<Option.Option<JobRecord>, PersistenceError>
    /** The account's jobs, newest first. */
    readonly list: (
      accountId: Ids.AccountId,
      filter: JobListFilter
    ) => Effect.Effect<JobPage, PersistenceError>
    /**
     * Takes the job's lease when it is processing, due, and its lease is free or expired: counts the
     * attempt and sets `startedAt` the first time. None when another worker holds it or it is done.
     */
    readonly claim: (claim: Claim) => Effect.Effect<Option.Option<JobRecord>, PersistenceError>
    /**
     * `claim` of several jobs in one step: the jobs taken, in no particular order; an id that is
     * held, done, not due, unknown or being taken by another worker at the same moment is left out
     * (never waited for), so two workers claiming the same ids never both get one.
     */
    readonly claimMany: (claim: ClaimMany) => Effect.Effect<ReadonlyArray<ClaimedJob>, PersistenceError>
    /** Extends a lease the owner still holds; false when it was lost. */
    readonly extendLease: (claim: Claim) => Effect.Effect<boolean, PersistenceError>
    /** `extendLease` of several jobs in one step: the ids whose lease the owner still holds. */
    readonly extendLeases: (claim: ClaimMany) => Effect.Effect<ReadonlyArray<Ids.JobId>, PersistenceError>
    /** Gives a held lease back: the job may be claimed again from `nextRunAt`. */
    readonly release: (
      id: Ids.JobId,
      owner: string,
      nextRunAt: DateTime.Utc
    ) => Effect.Effect<boolean, PersistenceError>
    /**
     * Moves a processing job held by `owner` to its outcome (compare-and-set on status and lease);
     * none when the job is no longer processing or the lease is someone else's.
     */
    readonly settle: (
      id: Ids.JobId,
      owner: string,
      settlement: Settlement
    ) => Effect.Effect<Option.Option<JobRecord>, PersistenceError>
    /**
     * `settle` of several jobs held by `owner`, with their charges, in ONE statement; the results in
     * the order of the settlements. The charges follow the ledger's rules (`Ledger.charge`: keyed,
     * the balance never below zero and always the sum of the entries) and are posted only for the
     * jobs that move. Per account all or nothing: when an account cannot cover the sum of its jobs'
     * charges here, none of those jobs move (`Unpaid`), and the caller settles them again.
     */
    readonly settleMany: (
      owner: string,
      settlements: ReadonlyArray<JobSettlement>
    ) => Effect.Effect<ReadonlyArray<SettleResult>, PersistenceError>
    /** Up to `limit` jobs a worker may claim now, oldest first. */
    readonly runnable: (
      now: DateTime.Utc,
      limit: number
    ) => Effect.Effect<ReadonlyArray<Runnable>, PersistenceError>
  }
>() {}
