/**
 * The completed transcribe answer, encoded with its timed pieces as they are: the JSON is the
 * schema's, byte for byte, whatever the answer holds (segments with and without words, paragraphs,
 * word lists, ASR intelligence or none), and whether its segments are values or JSON text
 * (`PreEncodedCompleted`: a `Transcript.SegmentsJson`, such as the stored text of an owned
 * transcript, `ServedTranscript.segmentsJson`).
 */
import { describe, expect, it } from "@effect/vitest"
import {
  completedValues,
  type PayloadParts,
  PreEncodedCompleted,
  preEncodedCompleted,
  ServedTranscript,
  transcribeData
} from "@verbatim/core"
import { Api, Ids, Transcript } from "@verbatim/domain"
import { Arbitrary, Effect, FastCheck as fc, Option, Schema } from "effect"
import { completedBody } from "../src/answers.js"

const encodeWithSchema = Schema.encodeSync(Api.TranscribeCompleted)
const encodeSegments = Schema.encodeSync(Schema.Array(Transcript.Segment))

const fields = {
  request_id: Ids.RequestId.make("6f9619ff-8b86-4d11-b42d-00c04fc964ff"),
  mode: "captions_only",
  status: "completed",
  credits_used: 0,
  job_id: Ids.JobId.make("7f9619ff-8b86-4d11-b42d-00c04fc964ff")
} as const

/** The answer serving `record` with `parts`, its segments as values. */
const answerOf = (record: ServedTranscript, parts: PayloadParts) =>
  new Api.TranscribeCompleted({ ...fields, data: transcribeData(record, parts) })

/** The answer serving `record` with `parts` as POST /transcribe builds it: stored text where it is carried as stored. */
const preEncodedOf = (record: ServedTranscript, parts: PayloadParts) =>
  preEncodedCompleted(fields, record, parts)

/** The record as the store serves it with its segments' text: segments parsed from it when read. */
const withStoredText = (record: ServedTranscript, reads: { count: number }): ServedTranscript => {
  const segmentsJson = Transcript.encodeSegmentsJson(record.segments)
  return {
    ...record,
    segmentsJson,
    get segments() {
      reads.count++
      return Schema.decodeUnknownSync(Schema.Array(Transcript.Segment))(JSON.parse(segmentsJson))
    }
  }
}

/** `answer` with its segments as their JSON text (`Transcript.encodeSegmentsJson`), its `segments` emptied. */
const withSegmentsText = (answer: Api.TranscribeCompleted): PreEncodedCompleted => {
  const { transcript } = answer.data
  return new PreEncodedCompleted({
    answer: new Api.TranscribeCompleted({
      ...answer,
      data: new Api.TranscribeData({
        ...answer.data,
        transcript: new Api.TranscriptPayload({ ...transcript, segments: [] })
      })
    }),
    segmentsJson: Option.some(Transcript.encodeSegmentsJson(transcript.segments))
  })
}

describe("completed transcribe answers", () => {
  it("serialise exactly as the schema encodes them (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(Api.TranscribeCompleted), (answer) => {
        expect(Effect.runSync(completedBody(answer))).toBe(JSON.stringify(encodeWithSchema(answer)))
      }),
      { numRuns: 200 }
    )
  })

  it("serialise exactly as the schema encodes them with or without their segments as JSON text (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(Api.TranscribeCompleted), (answer) => {
        const expected = JSON.stringify(encodeWithSchema(answer))
        const asText = withSegmentsText(answer)
        expect(Effect.runSync(completedBody(asText))).toBe(expected)
        expect(
          Effect.runSync(completedBody(new PreEncodedCompleted({ answer, segmentsJson: Option.none() })))
        ).toBe(expected)
        // The text is the schema's own encoding, and decodes to the same values.
        expect(JSON.stringify(encodeWithSchema(completedValues(asText)))).toBe(expected)
      }),
      { numRuns: 200 }
    )
  })

  it("keeps a transcript's segments, paragraphs and words", () => {
    const segment = { text: "Hello there", start: 0, end: 1_200 }
    const transcript = {
      text: "Hello there",
      language: "en",
      source: "manual",
      segments: [{ ...segment, words: [{ text: "Hello", start: 0, end: 500 }] }],
      paragraphs: [segment],
      words: [{ text: "there", start: 600, end: 1_200 }]
    }
    const answer = Schema.decodeUnknownSync(Api.TranscribeCompleted)({
      request_id: "6f9619ff-8b86-4d11-b42d-00c04fc964ff",
      mode: "captions_only",
      status: "completed",
      data: {
        video_id: "dQw4w9WgXcQ",
        video_title: null,
        transcript
      },
      credits_used: 0,
      job_id: null
    })
    const json = JSON.parse(Effect.runSync(completedBody(answer)))
    expect(json.data.transcript).toEqual(transcript)
  })

  it("serialise exactly as the schema encodes them with the stored text of segments (property)", () => {
    const parts = fc.record({ segments: fc.boolean(), paragraphs: fc.boolean(), words: fc.boolean() })
    fc.assert(
      fc.property(Arbitrary.make(ServedTranscript), parts, (record, asked) => {
        const stored = withStoredText(record, { count: 0 })
        const answer = preEncodedOf(stored, asked)
        const expected = JSON.stringify(encodeWithSchema(answerOf(record, asked)))
        expect(Effect.runSync(completedBody(answer))).toBe(expected)
        // Values for every other caller (MCP, batch results, idempotency records): the same answer.
        expect(JSON.stringify(encodeWithSchema(completedValues(answer)))).toBe(expected)
        expect(JSON.stringify(encodeWithSchema(answerOf(stored, asked)))).toBe(expected)
        // The text is taken whenever segments are asked for and carry no words the answer leaves out.
        const taken =
          asked.segments && (asked.words || record.segments.every((segment) => segment.words === undefined))
        expect(Option.isSome(answer.segmentsJson)).toBe(taken)
      }),
      { numRuns: 300 }
    )
  })

  it("put an owned transcript's stored segments in the answer without reading them as values", () => {
    const segments = [
      new Transcript.Segment({ text: 'He said "words": \\ \u0001 café 𝄞', start: 0, end: 1_200 }),
      new Transcript.Segment({ text: "Goodbye", start: 1_200, end: 2_000 })
    ]
    const record: ServedTranscript = {
      id: "8f9619ff-8b86-4d11-b42d-00c04fc964ff" as ServedTranscript["id"],
      videoId: "dQw4w9WgXcQ",
      videoTitle: "A title",
      language: "en" as ServedTranscript["language"],
      sourceKind: "manual",
      text: 'He said "words": \\ \u0001 café 𝄞 Goodbye',
      segments,
      asrIntelligence: null
    }
    const reads = { count: 0 }
    const answer = preEncodedOf(withStoredText(record, reads), {
      segments: true,
      paragraphs: false,
      words: false
    })
    const body = Effect.runSync(completedBody(answer))
    expect(reads.count).toBe(0)
    expect(body).toBe(
      JSON.stringify(encodeWithSchema(answerOf(record, { segments: true, paragraphs: false, words: false })))
    )
    expect(body).toContain(`"segments":${JSON.stringify(encodeSegments(segments))},"paragraphs":null`)
  })
})
