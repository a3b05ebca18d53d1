/**
 * The answer of GET /transcripts, encoded by hand: the JSON is the schema's, byte for byte, whatever
 * the page holds (items with and without segments, titles or none, any pagination).
 */
import { describe, expect, it } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { transcriptListJson } from "../src/transcript-list.js"

const encodeWithSchema = Schema.encodeSync(Api.TranscriptList)

describe("transcript list answers", () => {
  // Each run is a whole page (items, their segments and words): 100 runs cover the shapes (with and
  // without segments, titles, any pagination) in about a second on an idle machine; 200 took 12 s
  // on a busy 2-core one, past vitest's 5 s default, so the bound is explicit.
  it("serialise exactly as the schema encodes them (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(Api.TranscriptList), (list) => {
        expect(JSON.stringify(transcriptListJson(list))).toBe(JSON.stringify(encodeWithSchema(list)))
      }),
      { numRuns: 100 }
    )
  }, 60_000)

  it("writes the creation time as ISO text and segments only when the item has them", () => {
    const item = {
      id: "6f9619ff-8b86-4d11-b42d-00c04fc964ff",
      video_id: "dQw4w9WgXcQ",
      video_title: null,
      language: "en",
      source_kind: "manual",
      translated_from: null,
      status: "succeeded",
      created_at: "2026-10-03T12:00:00.000Z",
      word_count: 2,
      segment_count: 1,
      duration_seconds: 1,
      credits_used: 1
    }
    const segments = [
      { text: "Hello there", start: 0, end: 1_200, words: [{ text: "Hello", start: 0, end: 500 }] }
    ]
    const body = {
      history: [item, { ...item, id: "7f9619ff-8b86-4d11-b42d-00c04fc964ff", segments }],
      count: 2,
      pagination: { page: 2, limit: 2, total: 5, totalPages: 3, hasMore: true }
    }
    const list = Schema.decodeUnknownSync(Api.TranscriptList)(body)
    expect(JSON.parse(JSON.stringify(transcriptListJson(list)))).toEqual(body)
  })
})
