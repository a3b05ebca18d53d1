/** Query strings arrive as strings: defaults, conversions and bounds of every query schema. */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import {
  CollectionHistoryQuery,
  DeleteTranscriptQuery,
  JobListQuery,
  JobQuery,
  LanguagesQuery,
  maxDateInputMillis,
  minDateInputMillis,
  PaginationQuery,
  RecommendationsQuery,
  ThemesQuery,
  TranscriptListQuery,
  TranscriptQuery
} from "../../src/api/index.js"
import { page, pageOffset } from "../../src/plan/index.js"

const rejects = <A, I>(schema: Schema.Schema<A, I>, input: Record<string, string>) =>
  Either.isLeft(Schema.decodeUnknownEither(schema)(input))

const queries = Object.entries({
  CollectionHistoryQuery,
  DeleteTranscriptQuery,
  JobListQuery,
  JobQuery,
  LanguagesQuery,
  PaginationQuery,
  RecommendationsQuery,
  ThemesQuery,
  TranscriptListQuery,
  TranscriptQuery
})

describe("query schemas", () => {
  it.each(queries)("%s encodes every value to strings only", (_, query) => {
    const schema = query as unknown as Schema.Schema<unknown, Record<string, unknown>>
    fc.assert(
      fc.property(Arbitrary.make(schema), (value) => {
        for (const encoded of Object.values(Schema.encodeSync(schema)(value))) {
          expect(typeof encoded).toBe("string")
        }
      }),
      { numRuns: 50 }
    )
  })

  it("pagination: page from 1 (default 1), limit 1 to 100 (default 50)", () => {
    expect(Schema.decodeUnknownSync(PaginationQuery)({})).toStrictEqual({ page: 1, limit: 50 })
    expect(Schema.decodeUnknownSync(PaginationQuery)({ page: "3", limit: "100" })).toStrictEqual({
      page: 3,
      limit: 100
    })
    for (const bad of [
      { page: "0" },
      { page: "1.5" },
      { page: "x" },
      { limit: "0" },
      { limit: "101" },
      { limit: "" }
    ]) {
      expect(rejects(PaginationQuery, bad)).toBe(true)
    }
  })

  it("pagination: any limit from 1 to 100 is accepted and any outside refused", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (limit) => {
        const ok = Either.isRight(Schema.decodeUnknownEither(PaginationQuery)({ limit: String(limit) }))
        expect(ok).toBe(limit >= 1 && limit <= 100)
      })
    )
  })

  it("pagination: page is at most 10,000,000, so its offset stays a count the database holds exactly", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 2 * page.max }), fc.constantFrom(Number.MAX_SAFE_INTEGER, 1e21)),
        (n) => {
          const decoded = Schema.decodeUnknownEither(PaginationQuery)({ page: String(n), limit: "100" })
          expect(Either.isRight(decoded)).toBe(n <= page.max)
          if (Either.isRight(decoded)) expect(pageOffset(n, 100)).toBeLessThan(2 ** 31)
        }
      )
    )
  })

  it("transcript list: dates are refused outside the years 1 to 9999 (the database's timestamps end sooner than JavaScript's)", () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        const millis = date.getTime()
        const decoded = Schema.decodeUnknownEither(TranscriptListQuery)({ date_from: date.toISOString() })
        expect(Either.isRight(decoded)).toBe(millis >= minDateInputMillis && millis <= maxDateInputMillis)
      })
    )
    for (const edge of ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z"]) {
      expect(rejects(TranscriptListQuery, { date_to: edge })).toBe(false)
    }
    for (const beyond of ["-271821-04-20T00:00:00Z", "+275760-09-13T00:00:00Z", "0000-12-31T23:59:59.999Z"]) {
      expect(rejects(TranscriptListQuery, { date_from: beyond })).toBe(true)
    }
  })

  it("jobs: include_segments true, include_paragraphs and include_words false by default", () => {
    expect(Schema.decodeUnknownSync(JobQuery)({})).toStrictEqual({
      include_segments: true,
      include_paragraphs: false,
      include_words: false
    })
    expect(Schema.decodeUnknownSync(JobQuery)({ include_segments: "false" }).include_segments).toBe(false)
    expect(rejects(JobQuery, { include_words: "yes" })).toBe(true)
    expect(rejects(JobQuery, { include_words: "1" })).toBe(true)
  })

  it("job list: status is one of the four job statuses", () => {
    expect(Schema.decodeUnknownSync(JobListQuery)({ status: "requires_asr_confirmation" }).status).toBe(
      "requires_asr_confirmation"
    )
    expect("status" in Schema.decodeUnknownSync(JobListQuery)({})).toBe(false)
    expect(rejects(JobListQuery, { status: "queued" })).toBe(true)
  })

  it("transcript list: status succeeded and include_segments false by default; dates are ISO 8601", () => {
    const query = Schema.decodeUnknownSync(TranscriptListQuery)({})
    expect(query).toStrictEqual({ page: 1, limit: 50, status: "succeeded", include_segments: false })
    const dated = Schema.decodeUnknownSync(TranscriptListQuery)({
      date_from: "2026-01-01T00:00:00Z",
      search: "talk"
    })
    expect(Schema.encodeSync(TranscriptListQuery)(dated).date_from).toBe("2026-01-01T00:00:00.000Z")
    expect(rejects(TranscriptListQuery, { date_to: "last week" })).toBe(true)
    expect(rejects(TranscriptListQuery, { status: "completed" })).toBe(true)
    expect(rejects(TranscriptListQuery, { search: "" })).toBe(true)
  })

  it("one transcript: include_timestamps true and format json by default", () => {
    expect(Schema.decodeUnknownSync(TranscriptQuery)({})).toStrictEqual({
      include_timestamps: true,
      format: "json"
    })
    for (const format of ["srt", "vtt", "txt"]) {
      expect(Schema.decodeUnknownSync(TranscriptQuery)({ format }).format).toBe(format)
    }
    expect(rejects(TranscriptQuery, { format: "pdf" })).toBe(true)
    expect(rejects(TranscriptQuery, { id: "123" })).toBe(true)
    expect(rejects(TranscriptQuery, { source: "human" })).toBe(true)
    expect(rejects(ThemesQuery, { source: "human" })).toBe(true)
    expect(rejects(DeleteTranscriptQuery, { language: "english" })).toBe(true)
  })

  it("languages: include_youtube_default true by default", () => {
    expect(Schema.decodeUnknownSync(LanguagesQuery)({})).toStrictEqual({ include_youtube_default: true })
  })

  it("recommendations: limit 1 to 30 (default 6), channels 1 to 10 (default 3)", () => {
    expect(Schema.decodeUnknownSync(RecommendationsQuery)({})).toStrictEqual({ limit: 6, channels: 3 })
    expect(Schema.decodeUnknownSync(RecommendationsQuery)({ limit: "30", channels: "10" })).toStrictEqual({
      limit: 30,
      channels: 10
    })
    expect(rejects(RecommendationsQuery, { limit: "31" })).toBe(true)
    expect(rejects(RecommendationsQuery, { channels: "11" })).toBe(true)
    expect(rejects(RecommendationsQuery, { channels: "0" })).toBe(true)
  })

  it("collection history: limit 1 to 100, default 50", () => {
    expect(Schema.decodeUnknownSync(CollectionHistoryQuery)({})).toStrictEqual({ limit: 50 })
    expect(rejects(CollectionHistoryQuery, { limit: "101" })).toBe(true)
  })
})
