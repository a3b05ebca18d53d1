/** The Transcribe service: POST /transcribe and its dry run. */
import { Effect, Layer } from "effect"
import { makeEstimate } from "./estimate.js"
import { Transcribe } from "./tags.js"
import { makeTranscribe } from "./transcribe.js"

export const TranscribeLive = Layer.effect(
  Transcribe,
  Effect.all({ transcribe: makeTranscribe, estimate: makeEstimate }).pipe(Effect.map(Transcribe.of))
)
