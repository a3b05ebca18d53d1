/** The timed pieces of a transcript. All times are integer milliseconds. */
import { Order, Schema } from "effect"

export const Millis = Schema.NonNegativeInt.annotations({
  identifier: "Millis",
  description: "A time in integer milliseconds"
})
export type Millis = typeof Millis.Type

export class Word extends Schema.Class<Word>("Word")({
  text: Schema.String,
  start: Millis,
  end: Millis
}) {}

export class Segment extends Schema.Class<Segment>("Segment")({
  text: Schema.String,
  start: Millis,
  end: Millis,
  /** Present only when word timestamps were requested. */
  words: Schema.optionalWith(Schema.Array(Word), { exact: true })
}) {}

/** Where a transcript's text came from. */
export const SourceKind = Schema.Literal("manual", "auto", "asr").annotations({
  identifier: "SourceKind",
  description: "manual: human captions; auto: auto-generated captions; asr: speech recognition"
})
export type SourceKind = typeof SourceKind.Type

const sourceKindRank: Record<SourceKind, number> = { manual: 0, auto: 1, asr: 2 }

/** Source kinds best first: human captions, auto captions, speech recognition. */
export const bySourceKind: Order.Order<SourceKind> = Order.mapInput(
  Order.number,
  (kind: SourceKind) => sourceKindRank[kind]
)
