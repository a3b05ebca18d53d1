/**
 * Segments as JSON text: a value of its own, so that text known to be the schema's encoding of a
 * list of segments is told apart, by type, from any other string.
 *
 * Serving an owned transcript again writes its segments as the text they were stored as, without
 * parsing them and writing them back (that was about a fifth of POST /transcribe's CPU).
 * Such text may stand in an answer only when it is, byte for byte, what `JSON.stringify` writes of
 * the segments encoded with `Schema.Array(Segment)`. The brand says that it is: text gets it from
 * `encodeSegmentsJson`, or from a store that only ever keeps text made so (`trustedSegmentsJson`).
 */
import { Schema } from "effect"
import { Segment, Word } from "./segment.js"

/** JSON text that is the encoding of a `ReadonlyArray<Segment>` by `Schema.Array(Segment)`, as `JSON.stringify` writes it. */
export const SegmentsJson = Schema.String.pipe(Schema.brand("SegmentsJson"))
export type SegmentsJson = typeof SegmentsJson.Type

const encodeSegments = Schema.encodeSync(Schema.Array(Segment))

/** The segments' JSON text, as the schema encodes them. */
export const encodeSegmentsJson = (segments: ReadonlyArray<Segment>): SegmentsJson =>
  JSON.stringify(encodeSegments(segments)) as SegmentsJson

/**
 * Text a store wrote with `encodeSegmentsJson` (or wrote of the same encoding with `JSON.stringify`)
 * and read back unchanged. Nothing is checked: the store vouches for it.
 */
export const trustedSegmentsJson = (text: string): SegmentsJson => text as SegmentsJson

interface Timed {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly words?: ReadonlyArray<Timed>
}

/** Built field by field, in the schema's order, so that an answer lists them as the schema does. */
const wordOf = (word: Timed) => new Word({ text: word.text, start: word.start, end: word.end }, true)

const segmentOf = (segment: Timed) =>
  new Segment(
    segment.words === undefined
      ? { text: segment.text, start: segment.start, end: segment.end }
      : { text: segment.text, start: segment.start, end: segment.end, words: segment.words.map(wordOf) },
    true
  )

/**
 * The segments a `SegmentsJson` encodes, without checking every field again (the brand says the
 * text is the schema's encoding): validating the 80-odd segments of a transcript field by field
 * cost more than a third of a millisecond per read.
 */
export const decodeSegmentsJson = (json: SegmentsJson): ReadonlyArray<Segment> =>
  segmentsOfEncoded(JSON.parse(json))

/** Segments from their encoding as this service wrote it (a parsed `SegmentsJson`, a `jsonb` column). */
export const segmentsOfEncoded = (encoded: unknown): ReadonlyArray<Segment> =>
  (encoded as ReadonlyArray<Timed>).map(segmentOf)
