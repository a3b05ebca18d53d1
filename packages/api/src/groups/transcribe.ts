/**
 * POST /transcribe and POST /transcribe/estimate. A transcribe answer is 200 (completed,
 * requires_asr_confirmation or failed) or 202 (processing): the status follows the answer's
 * `status` literal.
 */
import { HttpApiBuilder, type HttpServerResponse } from "@effect/platform"
import { type ApiFailure, type IdempotencyHeaders, VerbatimApi } from "@verbatim/contract"
import {
  type Account,
  CurrentAccount,
  Idempotency,
  Idempotent,
  PreEncodedCompleted,
  Transcribe
} from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { type Context, Effect } from "effect"
import { completedResponse } from "../answers.js"
import { useCase } from "../use-case.js"

/**
 * POST /transcribe's work, for its endpoint and its hot route (`hot-routes.ts`): the use case under
 * the request's idempotency key; a completed answer as its response (the segments' stored JSON
 * text written as it is: `answers.ts`), any other answer as it is, for the success schema to encode.
 */
export const transcribeAnswer = (
  transcribe: Context.Tag.Service<Transcribe>,
  idempotency: Idempotency,
  account: Account,
  headers: IdempotencyHeaders,
  payload: Api.TranscribeRequest
): Effect.Effect<
  HttpServerResponse.HttpServerResponse | Exclude<Api.TranscribeResponse, Api.TranscribeCompleted>,
  ApiFailure
> =>
  Effect.gen(function* () {
    const answer = yield* useCase(
      Idempotent.transcribePreEncoded(idempotency, transcribe)(account, payload, headers["idempotency-key"])
    )
    return answer instanceof Api.TranscribeCompleted || answer instanceof PreEncodedCompleted
      ? yield* completedResponse(answer)
      : answer
  })

export const TranscribeHttp = HttpApiBuilder.group(VerbatimApi, "transcribe", (handlers) =>
  handlers
    .handle("transcribe", ({ headers, payload }) =>
      Effect.gen(function* () {
        return yield* transcribeAnswer(
          yield* Transcribe,
          yield* Idempotency,
          yield* CurrentAccount,
          headers,
          payload
        )
      })
    )
    .handle("estimate", ({ payload }) =>
      Effect.gen(function* () {
        const transcribe = yield* Transcribe
        return yield* useCase(transcribe.estimate(yield* CurrentAccount, payload))
      })
    )
)
