/**
 * POST /batch (202 processing, at once) and GET /batch/{batch_id} (202 while running, 200 when
 * finished; 429 with Retry-After after 60 fetches of a finished batch in 24 hours).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api, Ids } from "@verbatim/domain"
import { Schema } from "effect"
import { basePath } from "../base.js"
import { BadRequest, NotFound, PaymentRequired, TooManyRequests } from "../errors.js"
import { IdempotencyHeaders, idempotencyDescription } from "../idempotency.js"
import { plainWords } from "../plain-words.js"
import { Authentication } from "../security.js"

export const BatchPath = Schema.Struct({ batch_id: Ids.BatchId })

export class BatchGroup extends HttpApiGroup.make("batch")
  .add(
    HttpApiEndpoint.post("createBatch", "/batch")
      .setPayload(plainWords(Api.BatchRequest))
      .setHeaders(plainWords(IdempotencyHeaders))
      .annotate(OpenApi.Description, idempotencyDescription)
      .addSuccess(Api.BatchProcessing, { status: 202 })
      .addError(PaymentRequired)
      .annotate(
        OpenApi.Summary,
        "Transcribe up to 3,000 videos (by plan); answers 202 at once, poll poll_url or wait for the webhook"
      )
  )
  .add(
    HttpApiEndpoint.post("estimateBatch", "/batch/estimate")
      .setPayload(plainWords(Api.BatchRequest))
      .addSuccess(Api.BatchEstimate)
      .annotate(
        OpenApi.Summary,
        "What a batch would cost, video by video, and which videos need speech recognition (nothing is charged)"
      )
  )
  .add(
    HttpApiEndpoint.get("batch", "/batch/:batch_id")
      .setPath(plainWords(BatchPath))
      .addSuccess(Api.BatchFinished)
      .addSuccess(Api.BatchProcessing, { status: 202 })
      .addError(NotFound)
      .addError(TooManyRequests)
      .annotate(OpenApi.Summary, "A batch: 202 while running, 200 with every result once finished")
      .annotate(
        OpenApi.Description,
        "202 while the batch is processing: every video's result (status, job_id, error, credits_used) " +
          "without `data`, so a poll reads no transcript (the 202 of POST /batch lists no result yet). " +
          "200 once completed, partial or failed (final): each completed result with its `data`, cut " +
          "to the batch's `format`. A finished batch answers 60 fetches in 24 hours, then 429 with " +
          "Retry-After."
      )
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Many videos in one request")
  .prefix(basePath) {}
