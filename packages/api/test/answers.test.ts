/**
 * The completed transcribe answer, encoded with its timed pieces as they are: the JSON is the
 * schema's, byte for byte, whatever the answer holds (segments with and without words, paragraphs,
 * word lists, ASR intelligence or none).
 */
import { describe, expect, it } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { Arbitrary, Effect, FastCheck as fc, Schema } from "effect"
import { completedJson } from "../src/answers.js"

const encodeWithSchema = Schema.encodeSync(Api.TranscribeCompleted)

describe("completed transcribe answers", () => {
  it("serialise exactly as the schema encodes them (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(Api.TranscribeCompleted), (answer) => {
        const fast = JSON.stringify(Effect.runSync(completedJson(answer)))
        expect(fast).toBe(JSON.stringify(encodeWithSchema(answer)))
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
    const json = JSON.parse(JSON.stringify(Effect.runSync(completedJson(answer))))
    expect(json.data.transcript).toEqual(transcript)
  })
})
