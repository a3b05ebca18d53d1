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
    webhook_url: optionalField(HttpUrl).annotations({
      description:
        "Receives the completed batch (the GET /batch/{batch_id} answer), signed (Standard Webhooks). " +
        "Required with mode auto or speech_to_text_only and with the legacy allow_asr=true or source=asr; " +
        "when mode is omitted, an ASR account default applies only when webhook_url is set. " +
        "Must not resolve to a private, loopback, link-local or metadata address."
    }),
    asr_options: Schema.optionalWith(AsrOptions, { default: () => asrDefaults, nullable: true }),
    /** Not in the spec: refuse the batch (402) when its known caption cost is more than this. */
    max_credits: optionalField(Credits)
  },
  requestAnnotations("BatchRequest", `Transcribe 1 to ${maxBatchSize} videos (limited by plan)`)
) {}

/** What one video of a batch would cost (POST /batch/estimate; nothing is charged). */
export const BatchEstimateStatus = Schema.Literal(
  "owned",
  "captions",
  "asr",
  "requires_asr_confirmation",
  "no_captions",
  "failed"
).annotations({
  identifier: "BatchEstimateStatus",
  description:
    "owned: served again free; captions: 1 credit; asr: speech recognition at the quoted price; requires_asr_confirmation: ASR is only the account default (quoted, not started); no_captions: nothing to serve in this mode; failed: the video cannot be read"
})

export class BatchEstimateItem extends Schema.Class<BatchEstimateItem>("BatchEstimateItem")(
  {
    video_id: Schema.String,
    status: BatchEstimateStatus,
    estimated_credits: Credits,
    duration_minutes: Schema.NullOr(Schema.NonNegative),
    error: Schema.NullOr(Schema.String)
  },
  { description: "What one video of the batch would cost" }
) {}

export class BatchEstimate extends Schema.Class<BatchEstimate>("BatchEstimate")(
  {
    total: Count,
    /** Credits of every video: captions, and speech recognition at its quote. */
    estimated_credits: Credits,
    /** Credits of the videos served from captions (what POST /batch checks up front). */
    caption_credits: Credits,
    /** Credits of the videos that need speech recognition. */
    asr_credits: Credits,
    needs_asr: Count,
    items: Schema.Array(BatchEstimateItem)
  },
  { description: "What a batch would cost, video by video; nothing is charged" }
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
