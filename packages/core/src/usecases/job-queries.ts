/**
 * GET /jobs/{job_id} and GET /jobs. A completed job's data is built from its stored transcript
 * with the include_* parts asked for; when the owner has since deleted that transcript the job
 * keeps its status and metadata and its transcript comes back empty (the text is gone, as asked).
 */
import { Api, Plan } from "@verbatim/domain"
import { Effect, Layer, Option } from "effect"
import type { Account } from "../ports/accounts.js"
import { type JobRecord, Jobs } from "../ports/jobs.js"
import { Transcripts } from "../ports/transcripts.js"
import { notFound } from "./failures.js"
import { transcribeData } from "./payload.js"
import { JobQueries } from "./tags.js"

const common = (job: JobRecord) => ({
  job_id: job.id,
  request_id: job.requestId,
  credits_used: job.creditsUsed,
  created_at: job.createdAt,
  started_at: job.startedAt,
  completed_at: job.completedAt
})

const listItem = (job: JobRecord) =>
  new Api.JobListItem({
    job_id: job.id,
    video_id: job.videoId,
    video_title: job.videoTitle,
    language: job.language,
    source: job.source,
    status: job.status,
    error: job.error,
    credits_used: job.creditsUsed,
    created_at: job.createdAt,
    started_at: job.startedAt,
    completed_at: job.completedAt
  })

/** The data of a completed job whose transcript was deleted: the video, and no text. */
const emptyData = (
  job: JobRecord,
  language: Api.TranscriptPayload["language"],
  source: Api.TranscriptPayload["source"]
) =>
  new Api.TranscribeData({
    video_id: job.videoId,
    video_title: job.videoTitle,
    transcript: new Api.TranscriptPayload({
      text: "",
      language,
      source,
      segments: [],
      paragraphs: null,
      words: null
    })
  })

export const JobQueriesLive = Layer.effect(
  JobQueries,
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const transcripts = yield* Transcripts

    const completedData = (account: Account, job: JobRecord, query: Api.JobQuery) =>
      Effect.gen(function* () {
        const record =
          job.transcriptId === null ? Option.none() : yield* transcripts.get(account.id, job.transcriptId)
        const parts = {
          segments: query.include_segments,
          paragraphs: query.include_paragraphs,
          words: query.include_words
        }
        return Option.match(record, {
          onSome: (r) => transcribeData(r, parts),
          onNone: () =>
            emptyData(
              job,
              job.language ?? ("en" as Api.TranscriptPayload["language"]),
              job.source ?? "manual"
            )
        })
      })

    return JobQueries.of({
      get: (account, id, query) =>
        Effect.gen(function* () {
          const found = yield* jobs.get(account.id, id)
          if (Option.isNone(found)) return yield* notFound(`job ${id}`, { job_id: id })
          const job = found.value
          switch (job.status) {
            case "completed":
              return new Api.JobCompleted({
                ...common(job),
                status: "completed",
                data: yield* completedData(account, job, query)
              })
            case "processing":
              return new Api.JobProcessing({ ...common(job), status: "processing" })
            case "failed":
              return new Api.JobFailed({ ...common(job), status: "failed", error: job.error ?? "failed" })
            case "requires_asr_confirmation":
              return new Api.JobConfirmation({ ...common(job), status: "requires_asr_confirmation" })
          }
        }),
      list: (account, query) =>
        jobs
          .list(account.id, {
            status: query.status,
            offset: Plan.pageOffset(query.page, query.limit),
            limit: query.limit
          })
          .pipe(
            Effect.map(
              (page) =>
                new Api.JobList({
                  jobs: page.items.map(listItem),
                  count: page.items.length,
                  pagination: Plan.paginate(page.total, query.page, query.limit)
                })
            )
          )
    })
  })
)
