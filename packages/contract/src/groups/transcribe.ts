/**
 * POST /transcribe and POST /transcribe/estimate. A transcribe answer is 200 (completed,
 * requires_asr_confirmation or failed) or 202 (processing): the status follows the answer's
 * `status` literal.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { basePath } from "../base.js"
import { BadRequest, Conflict, NotFound, PaymentRequired, ServiceUnavailable } from "../errors.js"
import { IdempotencyHeaders, idempotencyDescription } from "../idempotency.js"
import { plainWords } from "../plain-words.js"
import { Authentication } from "../security.js"

export class TranscribeGroup extends HttpApiGroup.make("transcribe")
  .add(
    HttpApiEndpoint.post("transcribe", "/transcribe")
      .setPayload(plainWords(Api.TranscribeRequest))
      .setHeaders(plainWords(IdempotencyHeaders))
      .annotate(OpenApi.Description, idempotencyDescription)
      .addSuccess(Api.TranscribeDone)
      .addSuccess(Api.TranscribeProcessing, { status: 202 })
      .addError(PaymentRequired)
      .addError(NotFound)
      .addError(Conflict)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Transcribe one video or one finalized upload")
  )
  .add(
    HttpApiEndpoint.post("estimate", "/transcribe/estimate")
      .setPayload(plainWords(Api.EstimateRequest))
      .addSuccess(Api.EstimateResponse)
      .addError(NotFound)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Price a transcription without starting it (nothing is charged)")
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Transcribe videos and uploads, and estimate the cost")
  .prefix(basePath) {}
