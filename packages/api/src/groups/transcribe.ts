/**
 * POST /transcribe and POST /transcribe/estimate. A transcribe answer is 200 (completed,
 * requires_asr_confirmation or failed) or 202 (processing): the status follows the answer's
 * `status` literal.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CurrentAccount, Idempotency, idempotentEndpoints, Transcribe } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { completedResponse } from "../answers.js"
import { apiId, basePath } from "../base.js"
import { BadRequest, Conflict, NotFound, PaymentRequired, ServiceUnavailable } from "../errors.js"
import { IdempotencyHeaders, idempotencyDescription } from "../idempotency.js"
import { Authentication } from "../security.js"
import { useCase } from "../use-case.js"

export class TranscribeGroup extends HttpApiGroup.make("transcribe")
  .add(
    HttpApiEndpoint.post("transcribe", "/transcribe")
      .setPayload(Api.TranscribeRequest)
      .setHeaders(IdempotencyHeaders)
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
      .setPayload(Api.EstimateRequest)
      .addSuccess(Api.EstimateResponse)
      .addError(NotFound)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Price a transcription without starting it (nothing is charged)")
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Transcribe videos and uploads, and estimate the cost")
  .prefix(basePath) {}

export const TranscribeHttp = HttpApiBuilder.group(
  HttpApi.make(apiId).add(TranscribeGroup),
  "transcribe",
  (handlers) =>
    handlers
      .handle("transcribe", ({ headers, payload }) =>
        Effect.gen(function* () {
          const transcribe = yield* Transcribe
          const idempotency = yield* Idempotency
          const account = yield* CurrentAccount
          const answer = yield* useCase(
            idempotency.run(
              account,
              idempotentEndpoints.transcribe,
              headers["idempotency-key"],
              () => Schema.encodeSync(Api.TranscribeRequest)(payload),
              Api.TranscribeResponse,
              transcribe.transcribe(account, payload)
            )
          )
          return answer instanceof Api.TranscribeCompleted ? yield* completedResponse(answer) : answer
        })
      )
      .handle("estimate", ({ payload }) =>
        Effect.gen(function* () {
          const transcribe = yield* Transcribe
          return yield* useCase(transcribe.estimate(yield* CurrentAccount, payload))
        })
      )
)
