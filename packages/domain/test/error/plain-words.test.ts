import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, type ParseResult, Schema } from "effect"
import {
  PlaylistResolveRequest,
  TranscribeRequest,
  TranscriptListQuery,
  UploadCreateRequest
} from "../../src/api/index.js"
import { invalidRequest } from "../../src/error/index.js"

const rejected = <A, I>(schema: Schema.Schema<A, I>, input: unknown): ParseResult.ParseError => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all" })(input)
  if (Either.isRight(result)) throw new Error(`accepted ${JSON.stringify(input)}`)
  return result.left
}

const library = /Expected|Encoded side|Struct|Unable to decode|actual /

describe("plain words for rejected values", () => {
  it("names the field, its limit and the value received", () => {
    const error = invalidRequest(rejected(TranscriptListQuery, { limit: "500" }))
    expect(error.message).toBe("limit must be at most 100 (got 500)")
  })

  it("a rule over several fields is said on the field it names, in its own words", () => {
    const error = invalidRequest(rejected(PlaylistResolveRequest, {}))
    expect(error.message).toBe("playlist_id: one of playlist_url or playlist_id is required")
    expect(error.details).toMatchObject({
      issues: [{ path: ["playlist_id"], message: "one of playlist_url or playlist_id is required" }]
    })
  })

  it("says a date must be an ISO 8601 date-time", () => {
    const error = invalidRequest(rejected(TranscriptListQuery, { date_from: "yesterday" }))
    expect(error.message).toBe('date_from must be an ISO 8601 date-time (got "yesterday")')
  })

  it("says the body must be an object, with no library wording", () => {
    const error = invalidRequest(rejected(TranscribeRequest, "hello"))
    expect(error.message).not.toMatch(library)
    expect(error.message).toContain("must be an object")
  })

  it("never uses the library's wording and always names the field", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(
          "limit",
          "page",
          "date_from",
          "date_to",
          "status",
          "source",
          "language",
          "include_segments"
        ),
        fc.oneof(
          fc.string(),
          fc.integer().map(String),
          fc.constantFrom("0", "101", "-1", "1.5", "yesterday", "xx!", "")
        ),
        (field, value) => {
          const result = Schema.decodeUnknownEither(TranscriptListQuery, { errors: "all" })({
            [field]: value
          })
          if (Either.isRight(result)) return
          const error = invalidRequest(result.left)
          expect(error.message).not.toMatch(library)
          expect(error.message.startsWith(`${field} `)).toBe(true)
        }
      )
    ))

  it("words every issue of a body the same way", () =>
    fc.assert(
      fc.property(
        fc.record({
          filename: fc.oneof(fc.string(), fc.integer()),
          mime_type: fc.oneof(fc.string(), fc.constant(null)),
          size_bytes: fc.oneof(fc.integer(), fc.string())
        }),
        (body) => {
          const result = Schema.decodeUnknownEither(UploadCreateRequest, { errors: "all" })(body)
          if (Either.isRight(result)) return
          const issues = invalidRequest(result.left).details.issues as ReadonlyArray<{ message: string }>
          for (const issue of issues) expect(issue.message).not.toMatch(library)
        }
      )
    ))
})
