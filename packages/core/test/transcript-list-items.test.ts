/**
 * A stored summary as a list item of GET /transcripts (`transcriptListItem`, written field by field
 * for speed): for any summary, with segments or without, the item encodes byte for byte as the
 * schemas' own path does (the summary encoded, its keys renamed, decoded as a list item).
 */
import { describe, expect, it } from "@effect/vitest"
import { Api, Transcript } from "@verbatim/domain"
import { Arbitrary, FastCheck as fc, Schema, String as Str } from "effect"
import { TranscriptSummary } from "../src/ports/transcripts.js"
import { transcriptListItem } from "../src/usecases/stored-transcripts.js"

const Stored = Schema.Struct({
  ...TranscriptSummary.fields,
  segments: Schema.optionalWith(Schema.Array(Transcript.Segment), { exact: true })
})
const encodeItem = Schema.encodeSync(Api.TranscriptListItem)

/** The list item through the schemas alone: every key renamed as the API names it, nothing by hand. */
const bySchema = (stored: typeof Stored.Type): Api.TranscriptListItem => {
  const { accountId: _, ...encoded } = Schema.encodeSync(Stored)(stored)
  // An original has no `translatedFrom` in the record; the API names it as null.
  return Schema.decodeUnknownSync(Api.TranscriptListItem)({
    translated_from: null,
    ...Object.fromEntries(
      Object.entries(encoded)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => [Str.camelToSnake(key), value])
    )
  })
}

describe("transcript list items", () => {
  it("encode exactly as the schemas' own path makes them (property)", () => {
    fc.assert(
      fc.property(Arbitrary.make(Stored), (stored) => {
        expect(JSON.stringify(encodeItem(transcriptListItem(stored)))).toBe(
          JSON.stringify(encodeItem(bySchema(stored)))
        )
      }),
      { numRuns: 100 }
    )
  }, 60_000)
})
