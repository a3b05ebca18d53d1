/**
 * A job as GET /jobs/{job_id} answers it, and as its webhook delivers it: the status, the credits,
 * the times and, once completed, the transcript cut to the parts asked for. A completed job whose
 * transcript its owner has since deleted keeps its status and metadata and an empty transcript.
 */
import { Api } from "@verbatim/domain"
import { Option } from "effect"
import type { JobRecord } from "../ports/jobs.js"
import type { TranscriptRecord } from "../ports/transcripts.js"
import { alreadyChecked, type PayloadParts, transcribeData } from "./payload.js"

const common = (job: JobRecord) => ({
  job_id: job.id,
  request_id: job.requestId,
  credits_used: job.creditsUsed,
  created_at: job.createdAt,
  started_at: job.startedAt,
  completed_at: job.completedAt
})

export const listItem = (job: JobRecord) =>
  new Api.JobListItem(
    {
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
    },
    alreadyChecked
  )

/** The data of a completed job whose transcript was deleted: the video, and no text. */
const emptyData = (
  job: JobRecord,
  language: Api.TranscriptPayload["language"],
  source: Api.TranscriptPayload["source"]
) =>
  new Api.TranscribeData(
    {
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
    },
    alreadyChecked
  )

/** The job object, with the transcript (when completed and still stored) cut to `parts`. */
export const jobBody = (
  job: JobRecord,
  transcript: Option.Option<TranscriptRecord>,
  parts: PayloadParts
): Api.Job => {
  switch (job.status) {
    case "completed":
      return new Api.JobCompleted(
        {
          ...common(job),
          status: "completed",
          data: Option.match(transcript, {
            onSome: (record) => transcribeData(record, parts),
            onNone: () =>
              emptyData(
                job,
                job.language ?? ("en" as Api.TranscriptPayload["language"]),
                job.source ?? "manual"
              )
          })
        },
        alreadyChecked
      )
    case "processing":
      return new Api.JobProcessing({ ...common(job), status: "processing" })
    case "failed":
      return new Api.JobFailed({ ...common(job), status: "failed", error: job.error ?? "failed" })
    case "requires_asr_confirmation":
      return new Api.JobConfirmation({ ...common(job), status: "requires_asr_confirmation" })
  }
}
