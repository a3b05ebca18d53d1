/**
 * POST /batch and GET /batch/{batch_id}. A batch answer is processing (202) or finished (200:
 * completed, partial or failed), told apart by `status`. The same shape is the webhook payload of a
 * completed batch. The request schema checks structure only, like the transcribe request; at most
 * `maxBatchSize` ids are accepted here and the plan's batch size is checked later.
 */
import { Schema } from "effect"
import { AsrOptions, defaults as asrDefaults } from "../asr/options.js"
import { Credits } from "../credits.js"
import { BatchId, JobId, RequestId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { LegacySource, Mode } from "../mode/mode.js"
import { maxBatchSize } from "../plan/limits.js"
import { JobStatus } from "../status/job.js"
import { absentUnless, Count, HttpUrl, optionalField, ReferenceInput, requestAnnotations } from "./fields.js"
import { defaultFormat, FormatOptions, TranscribeData } from "./transcribe.js"

export class BatchRequest extends Schema.Class<BatchRequest>("BatchRequest")(
  {
    video_ids: Schema.Array(ReferenceInput).pipe(Schema.minItems(1), Schema.maxItems(maxBatchSize)),
    language: optionalField(LanguageCode),
    mode: optionalField(Mode),
    source: optionalField(LegacySource),
    allow_asr: optionalField(Schema.Boolean),
    format: Schema.optionalWith(FormatOptions, { default: () => defaultFormat, nullable: true }),
    webhook_url: optionalField(HttpUrl),
    asr_options: Schema.optionalWith(AsrOptions, { default: () => asrDefaults, nullable: true })
  },
  requestAnnotations("BatchRequest", `Transcribe 1 to ${maxBatchSize} videos (limited by plan)`)
) {}

/** One video of a batch. `data` is present when the video's status is completed. */
export class BatchResult extends Schema.Class<BatchResult>("BatchResult")(
  {
    request_id: RequestId,
    /** The video id, or the value sent when it named no video. */
    video_id: Schema.String,
    status: JobStatus,
    job_id: Schema.NullOr(JobId),
    error: Schema.NullOr(Schema.String),
    data: absentUnless(TranscribeData),
    credits_used: Credits
  },
  { description: "The result for one video of a batch" }
) {}

export class BatchSummary extends Schema.Class<BatchSummary>("BatchSummary")(
  {
    total: Count,
    succeeded: Count,
    failed: Count,
    processing: Count
  },
  { description: "How many videos of the batch succeeded, failed or are still processing" }
) {}

const batchFields = {
  batch_id: BatchId,
  results: Schema.Array(BatchResult),
  summary: BatchSummary,
  credits_used: Credits,
  poll_url: HttpUrl,
  webhook_delivered: Schema.Boolean,
  webhook_failed: Schema.Boolean,
  webhook_attempts: Count,
  created_at: Schema.DateTimeUtc,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  completed_at: Schema.NullOr(Schema.DateTimeUtc)
}

/** 202: the batch is still running. */
export class BatchProcessing extends Schema.Class<BatchProcessing>("BatchProcessing")(
  { ...batchFields, status: Schema.Literal("processing") },
  { description: "A batch still running (202)" }
) {}

/** 200: the batch is finished and never changes again. */
export class BatchFinished extends Schema.Class<BatchFinished>("BatchFinished")(
  { ...batchFields, status: Schema.Literal("completed", "partial", "failed") },
  { description: "A finished batch (200): completed, partial or failed" }
) {}

export const BatchResponse = Schema.Union(BatchFinished, BatchProcessing).annotations({
  identifier: "BatchResponse",
  description: "A batch and its per-video results"
})
export type BatchResponse = typeof BatchResponse.Type
