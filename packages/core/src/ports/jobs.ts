/** Jobs: every transcribe request (and, later, every batch item), with its outcome. */
import type { Credits, Ids, Language, Mode, Status, Transcript } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../errors.js"

export interface JobRecord {
  readonly id: Ids.JobId
  readonly accountId: Ids.AccountId
  readonly requestId: Ids.RequestId
  /** The video id; for uploads, the upload id. */
  readonly videoId: string
  readonly videoTitle: string | null
  /** The language of the transcript served, when one was. */
  readonly language: Language.LanguageCode | null
  readonly source: Transcript.SourceKind | null
  readonly mode: Mode.Mode
  readonly status: Status.JobStatus
  readonly error: string | null
  readonly creditsUsed: Credits.Credits
  /** The stored transcript the job produced or served. */
  readonly transcriptId: Ids.TranscriptId | null
  readonly createdAt: DateTime.Utc
  readonly startedAt: DateTime.Utc | null
  readonly completedAt: DateTime.Utc | null
}

export interface JobPage {
  readonly items: ReadonlyArray<JobRecord>
  readonly total: number
}

export interface JobListFilter {
  readonly status?: Status.JobStatus | undefined
  readonly offset: number
  readonly limit: number
}

export class Jobs extends Context.Tag("@verbatim/core/Jobs")<
  Jobs,
  {
    readonly insert: (job: JobRecord) => Effect.Effect<JobRecord, PersistenceError>
    /** The account's job with this id; another account's job is none. */
    readonly get: (
      accountId: Ids.AccountId,
      id: Ids.JobId
    ) => Effect.Effect<Option.Option<JobRecord>, PersistenceError>
    /** The account's jobs, newest first. */
    readonly list: (
      accountId: Ids.AccountId,
      filter: JobListFilter
    ) => Effect.Effect<JobPage, PersistenceError>
  }
>() {}
