/**
 * `transcripts` rows mapped to values by hand (`transcript-rows.ts`, for speed): for any row, the
 * same values as the schemas' own decoding, byte for byte once encoded, and segments that serialise
 * as their schema encodes them (an answer writes them as they are).
 */
import { describe, expect, it } from "@effect/vitest"
import { ServedTranscript, TranscriptRecord, TranscriptSummary } from "@verbatim/core"
import { Transcript } from "@verbatim/domain"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { Timestamp } from "../../src/repositories/columns.js"
import { RecordRow, ServedRow, SummaryRow, servedOf } from "../../src/repositories/transcript-rows.js"

/** The rows as the schemas alone read them: the core's values, the date as the driver gives it. */
const SummaryBySchema = Schema.Struct({ ...TranscriptSummary.fields, createdAt: Timestamp })
const RecordBySchema = Schema.Struct({ ...TranscriptRecord.fields, createdAt: Timestamp })

const encodeSummary = Schema.encodeSync(TranscriptSummary)
const encodeRecord = Schema.encodeSync(TranscriptRecord)
const encodeSegments = Schema.encodeSync(Schema.Array(Transcript.Segment))

describe("transcript rows", () => {
  it("a summary row reads as the schema reads it (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(TranscriptSummary), (summary) => {
        const row = Schema.encodeSync(SummaryBySchema)(summary)
        const byHand = Schema.decodeUnknownSync(SummaryRow)(row)
        const bySchema = Schema.decodeUnknownSync(SummaryBySchema)(row)
        expect(JSON.stringify(encodeSummary(byHand))).toBe(JSON.stringify(encodeSummary(bySchema)))
        expect(JSON.stringify(encodeSummary(byHand))).toBe(JSON.stringify(encodeSummary(summary)))
      }),
      { numRuns: 200 }
    )
  })

  it("a record row reads as the schema reads it, its segments serialising as encoded (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(TranscriptRecord), (record) => {
        const row = Schema.encodeSync(RecordBySchema)(record)
        const byHand = Schema.decodeUnknownSync(RecordRow)(row)
        const bySchema = Schema.decodeUnknownSync(RecordBySchema)(row)
        expect(JSON.stringify(encodeRecord(byHand))).toBe(JSON.stringify(encodeRecord(bySchema)))
        expect(JSON.stringify(byHand.segments)).toBe(JSON.stringify(encodeSegments(bySchema.segments)))
      }),
      { numRuns: 100 }
    )
  }, 60_000)

  it("a served row reads its segments from their JSON text, or from jsonb without it (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(ServedTranscript), fc.boolean(), (served, withText) => {
        const encoded = encodeSegments(served.segments)
        const text = JSON.stringify(encoded)
        const row = Schema.encodeSync(ServedRow)({
          ...served,
          segments: withText ? null : served.segments,
          segmentsJson: withText ? text : null
        })
        const byHand = servedOf(Schema.decodeUnknownSync(ServedRow)(row))
        expect(byHand.segmentsJson).toBe(withText ? text : undefined)
        expect(JSON.stringify(byHand.segments)).toBe(text)
        expect(JSON.stringify(Schema.encodeSync(ServedTranscript)(byHand))).toBe(
          JSON.stringify(Schema.encodeSync(ServedTranscript)(served))
        )
      }),
      { numRuns: 100 }
    )
  }, 60_000)
})
