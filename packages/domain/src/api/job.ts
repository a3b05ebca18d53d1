/**
 * GET /jobs/{job_id} and GET /jobs. A job is one variant per status, so the 200 answers (completed,
 * failed, requires_asr_confirmation) and the 202 answer (processing) are told apart by `status`.
 * `data` is present on completed jobs only and `error` on failed jobs only.
 */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { JobId, RequestId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { JobStatus } from "../status/job.js"
import { SourceKind } from "../transcript/segment.js"
import { allErrors, booleanQuery, Count, optionalQuery } from "./fields.js"
import { Pagination, paginationQueryFields } from "./pagination.js"
import { TranscribeData } from "./transcribe.js"

const jobFields = {
  job_id: JobId,
  request_id: RequestId,
  credits_used: Credits,
  created_at: Schema.DateTimeUtc,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  completed_at: Schema.NullOr(Schema.DateTimeUtc)
}

export class JobCompleted extends Schema.Class<JobCompleted>("JobCompleted")(
  { ...jobFields, status: Schema.Literal("completed"), data: TranscribeData },
  { description: "A finished job with its transcript (200)" }
) {}

export class JobProcessing extends Schema.Class<JobProcessing>("JobProcessing")(
  { ...jobFields, status: Schema.Literal("processing") },
  { description: "A running job (202)" }
) {}

export class JobFailed extends Schema.Class<JobFailed>("JobFailed")(
  { ...jobFields, status: Schema.Literal("failed"), error: Schema.String },
  { description: "A failed job and its reason (200)" }
) {}

export class JobConfirmation extends Schema.Class<JobConfirmation>("JobConfirmation")(
  { ...jobFields, status: Schema.Literal("requires_asr_confirmation") },
  { description: "A request that stopped at the ASR quote (200)" }
) {}

/** The answers GET /jobs/{job_id} gives with status 200. */
export const JobFinished = Schema.Union(JobCompleted, JobFailed, JobConfirmation).annotations({
  identifier: "JobFinished",
  description: "A job that is no longer running"
})
export type JobFinished = typeof JobFinished.Type

export const Job = Schema.Union(JobCompleted, JobProcessing, JobFailed, JobConfirmation).annotations({
  identifier: "Job",
  description: "A transcription job"
})
export type Job = typeof Job.Type

/** GET /jobs/{job_id} query. */
export const JobQuery = Schema.Struct({
  include_segments: booleanQuery(true),
  include_paragraphs: booleanQuery(false),
  /** ASR jobs only. */
  include_words: booleanQuery(false)
}).annotations({
  identifier: "JobQuery",
  description:
    "include_segments (default true), include_paragraphs (default false), include_words (default false)",
  ...allErrors
})
export type JobQuery = typeof JobQuery.Type

/** GET /jobs query: newest first. */
export const JobListQuery = Schema.Struct({
  ...paginationQueryFields,
  status: optionalQuery(JobStatus)
}).annotations({
  identifier: "JobListQuery",
  description: "page, limit and an optional status filter",
  ...allErrors
})
export type JobListQuery = typeof JobListQuery.Type

export class JobListItem extends Schema.Class<JobListItem>("JobListItem")(
  {
    job_id: JobId,
    /** The video id; for uploads, the upload id. */
    video_id: Schema.String,
    video_title: Schema.NullOr(Schema.String),
    language: Schema.NullOr(LanguageCode),
    source: Schema.NullOr(SourceKind),
    status: JobStatus,
    error: Schema.NullOr(Schema.String),
    credits_used: Credits,
    created_at: Schema.DateTimeUtc,
    started_at: Schema.NullOr(Schema.DateTimeUtc),
    completed_at: Schema.NullOr(Schema.DateTimeUtc)
  },
  { description: "A job in the list of GET /jobs" }
) {}

export class JobList extends Schema.Class<JobList>("JobList")(
  {
    jobs: Schema.Array(JobListItem),
    count: Count,
    pagination: Pagination
  },
  { description: "A page of jobs, newest first" }
) {}
