/** The Transcribe service: POST /transcribe and its dry run. */
import { Effect, Layer } from "effect"
import { makeEstimate } from "./estimate.js"
import { answerValues } from "./payload.js"
import { Transcribe } from "./tags.js"
import { makeTranscribe } from "./transcribe.js"

export const TranscribeLive = Layer.effect(
  Transcribe,
  Effect.all({ transcribe: makeTranscribe, estimate: makeEstimate }).pipe(
    Effect.map(({ transcribe, estimate }) =>
      Transcribe.of({
        transcribe: (account, request) => Effect.map(transcribe(account, request), answerValues),
        transcribePreEncoded: (account, request) => transcribe(account, request),
        estimate
      })
    )
  )
)
