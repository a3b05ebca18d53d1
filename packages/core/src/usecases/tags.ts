/**
 * The use cases as services. Each is a `Context.Tag` with its interface here and its
 * implementation (a Layer over the ports) in a module of its own, so the HTTP layer, the admin
 * command and the MCP server depend on what a use case does, not on how.
 *
 * Every failure a caller must hear about is an `Errors.ApiError` (code, message, details); store
 * failures are `PersistenceError`, answered as internal errors.
 */
import {
  type Api,
  Caller,
  type Credits,
  type Errors,
  type Ids,
  type Mode,
  type Plan,
  type Transcript
} from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Redacted } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account, AccountWithBalance, ApiKey } from "../ports/accounts.js"
import type { SignedPut } from "../ports/blob-store.js"
import type { RateVerdict } from "../ports/rate-limiter.js"
import type { TranscriptRecord } from "../ports/transcripts.js"
import type { WorkItem } from "../ports/work-queue.js"
import type { TranscribeAnswer } from "./payload.js"

type Fails<A> = Effect.Effect<A, Errors.ApiError | PersistenceError>

/** Who is calling: the account behind the request's API key (the domain's, which the contract provides). */
export const CurrentAccount = Caller.CurrentAccount
export type CurrentAccount = Caller.CurrentAccount

export interface NewAccountInput {
  readonly name: string
  readonly plan: Plan.Plan
  readonly credits: Credits.Credits
  /** Defaults to now; decides the default mode (auto from October 2026). */
  readonly createdAt?: DateTime.Utc | undefined
  /** Defaults to the mode for the creation date. */
  readonly defaultMode?: Mode.Mode | undefined
}

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  readonly key: string
  readonly record: ApiKey
}

/** Accounts, keys and grants: what the admin command does. */
export class AccountAdmin extends Context.Tag("@verbatim/core/AccountAdmin")<
  AccountAdmin,
  {
    readonly createAccount: (input: NewAccountInput) => Fails<AccountWithBalance>
    readonly listAccounts: Fails<ReadonlyArray<AccountWithBalance>>
    readonly getAccount: (id: Ids.AccountId) => Fails<AccountWithBalance>
    readonly setPlan: (id: Ids.AccountId, plan: Plan.Plan) => Fails<AccountWithBalance>
    readonly issueKey: (accountId: Ids.AccountId) => Fails<IssuedKey>
    readonly listKeys: (accountId: Ids.AccountId) => Fails<ReadonlyArray<ApiKey>>
    readonly revokeKey: (keyId: string) => Fails<void>
    /** Adds credits; `key` makes the grant idempotent (the same key never grants twice). */
    readonly grantCredits: (
      accountId: Ids.AccountId,
      amount: Credits.Credits,
      reason: string,
      key?: string
    ) => Fails<AccountWithBalance>
    /**
     * The account's webhook signing secret (Standard Webhooks, `whsec_…`), created on first use;
     * `rotate` replaces it (deliveries from then on are signed with the new one).
     */
    readonly webhookSecret: (accountId: Ids.AccountId, rotate: boolean) => Fails<Redacted.Redacted>
  }
>() {}

/** From an API key to its account, and the account's rate limit. */
export class Access extends Context.Tag("@verbatim/core/Access")<
  Access,
  {
    /** The account of an active key; `invalid_api_key` for a missing, malformed, unknown or revoked one. */
    readonly authenticate: (bearer: string | undefined) => Fails<Account>
    /**
     * Takes `requests` (default 1: a REST request; an MCP POST takes one per JSON-RPC request it
     * carries) at once from the account's bucket (all its keys share it); `admitted` answers it.
     */
    readonly takeRequest: (account: Account, requests?: number) => Effect.Effect<RateVerdict>
  }
>() {}

/** POST /transcribe and POST /transcribe/estimate. */
export class Transcribe extends Context.Tag("@verbatim/core/Transcribe")<
  Transcribe,
  {
    readonly transcribe: (account: Account, request: Api.TranscribeRequest) => Fails<Api.TranscribeResponse>
    /**
     * The same answer for an entry point that writes its JSON itself: an owned transcript's segments
     * may come as the JSON text they were stored as (`PreEncodedCompleted`), never parsed.
     */
    readonly transcribePreEncoded: (
      account: Account,
      request: Api.TranscribeRequest
    ) => Fails<TranscribeAnswer>
    readonly estimate: (account: Account, request: Api.EstimateRequest) => Fails<Api.EstimateResponse>
  }
>() {}

/** GET /jobs/{job_id} and GET /jobs. */
export class JobQueries extends Context.Tag("@verbatim/core/JobQueries")<
  JobQueries,
  {
    readonly get: (account: Account, id: Ids.JobId, query: Api.JobQuery) => Fails<Api.Job>
    readonly list: (account: Account, query: Api.JobListQuery) => Fails<Api.JobList>
  }
>() {}

/** A stored transcript chosen for GET /transcripts/{video_id}, with the record for exports. */
export interface ChosenTranscript {
  readonly response: Api.StoredTranscript
  readonly record: TranscriptRecord
  readonly segments: ReadonlyArray<Transcript.Segment>
}

/** The stored-transcript endpoints. */
export class StoredTranscripts extends Context.Tag("@verbatim/core/StoredTranscripts")<
  StoredTranscripts,
  {
    readonly list: (account: Account, query: Api.TranscriptListQuery) => Fails<Api.TranscriptList>
    readonly get: (account: Account, videoId: string, query: Api.TranscriptQuery) => Fails<ChosenTranscript>
    readonly remove: (
      account: Account,
      videoId: string,
      query: Api.DeleteTranscriptQuery
    ) => Fails<Api.DeleteResponse>
    readonly bulkRemove: (account: Account, request: Api.BulkDeleteRequest) => Fails<Api.DeleteResponse>
    readonly languages: (
      account: Account,
      videoId: string,
      query: Api.LanguagesQuery
    ) => Fails<Api.LanguagesResponse>
  }
>() {}

/** POST /transcripts/{video_id}/translate. */
export class Translate extends Context.Tag("@verbatim/core/Translate")<
  Translate,
  {
    readonly translate: (
      account: Account,
      videoId: string,
      request: Api.TranslateRequest
    ) => Fails<Api.TranslateResponse>
  }
>() {}

/** GET /credits. */
export class Balance extends Context.Tag("@verbatim/core/Balance")<
  Balance,
  {
    readonly credits: (account: Account) => Fails<Api.CreditsResponse>
  }
>() {}

/** POST /uploads, POST /uploads/{upload_id}/complete, the local store's signed PUT, and the sweep. */
export class MediaUploads extends Context.Tag("@verbatim/core/MediaUploads")<
  MediaUploads,
  {
    readonly create: (account: Account, request: Api.UploadCreateRequest) => Fails<Api.UploadCreateResponse>
    readonly complete: (account: Account, id: Ids.UploadId) => Fails<Api.UploadCompleteResponse>
    /**
     * Receives the bytes of a signed PUT, where this server serves its store's URLs (404 elsewhere),
     * only while its upload waits for them (409, 410 otherwise) and within its size's time (408).
     */
    readonly receive: <E>(put: SignedPut<E>) => Fails<void>
    /** Removes files nobody needs any more; how many. */
    readonly sweep: Effect.Effect<number, PersistenceError>
  }
>() {}

/** POST /batch and GET /batch/{batch_id}, and the work of a batch's items (`batch.ts`). */
export class BatchWork extends Context.Tag("@verbatim/core/BatchWork")<
  BatchWork,
  {
    readonly create: (account: Account, request: Api.BatchRequest) => Fails<Api.BatchProcessing>
    /** What the batch would cost, video by video; nothing is stored or charged. */
    readonly estimate: (account: Account, request: Api.BatchRequest) => Fails<Api.BatchEstimate>
    readonly get: (account: Account, id: Ids.BatchId) => Fails<Api.BatchResponse>
    /** Runs one item (id `<batch id>:<position>`) under this worker's lease; never fails. */
    readonly runItem: (item: WorkItem, owner: string, leaseMs: number) => Effect.Effect<void>
    /** Offers the items the queue lost and finishes the batches that are done; how many items. */
    readonly reconcile: Effect.Effect<number>
  }
>() {}
