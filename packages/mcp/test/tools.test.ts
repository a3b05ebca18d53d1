import { describe, expect, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { Errors } from "@verbatim/domain"
import { Either, Schema } from "effect"
import { renameFields } from "../src/tool.js"
import { tools } from "../src/tools/index.js"
import { VideoIdInput } from "../src/tools/shared.js"

const names = [
  "get_video_info",
  "transcribe_video",
  "get_job",
  "get_transcript",
  "search_transcripts",
  "list_transcripts",
  "transcript_languages",
  "translate_transcript",
  "estimate_cost",
  "get_credits",
  "run_batch",
  "get_batch",
  "resolve_playlist",
  "resolve_channel",
  "get_themes"
]

describe("tool listings", () => {
  it("name every tool once, with a description for a model", () => {
    expect(tools.map((tool) => tool.name)).toEqual(names)
    for (const { listing } of tools) {
      expect(listing.name).toMatch(/^[a-z_]+$/)
      expect(listing.description?.length ?? 0).toBeGreaterThan(40)
      expect(listing.title).toBeTruthy()
    }
  })

  it("have self-contained object schemas that a JSON Schema validator compiles", () => {
    const validator = new AjvJsonSchemaValidator()
    for (const { listing, outputSchema } of tools) {
      expect(listing.outputSchema).toBeUndefined()
      for (const schema of [listing.inputSchema, outputSchema]) {
        expect(schema?.type).toBe("object")
        const text = JSON.stringify(schema)
        expect(text).not.toContain("$ref")
        expect(text).not.toContain("$defs")
        expect(() => validator.getValidator(schema as never)).not.toThrow()
      }
    }
  })

  it("describe every input field", () => {
    for (const { listing } of tools) {
      for (const [name, field] of Object.entries(listing.inputSchema.properties ?? {})) {
        expect((field as { description?: string }).description, `${listing.name}.${name}`).toBeTruthy()
      }
    }
  })

  it("ask for what they must: the video to transcribe, the job to check, the words to find", () => {
    const required = Object.fromEntries(tools.map((t) => [t.name, t.listing.inputSchema.required ?? []]))
    expect(required.transcribe_video).toEqual(["video"])
    expect(required.get_job).toEqual(["job_id"])
    expect(required.get_transcript).toEqual(["video_id"])
    expect(required.search_transcripts).toEqual(["query"])
    expect(required.get_credits).toEqual([])
    expect(required.run_batch).toEqual(["video_ids"])
    expect(required.get_batch).toEqual(["batch_id"])
    expect(required.resolve_playlist).toEqual(["playlist"])
    expect(required.resolve_channel).toEqual(["channel"])
    expect(required.translate_transcript).toEqual(["video_id", "target_language"])
  })

  it("offer an optional idempotency_key exactly where the REST endpoint honours Idempotency-Key", () => {
    const validator = new AjvJsonSchemaValidator()
    const withKey = tools.filter((t) => "idempotency_key" in (t.listing.inputSchema.properties ?? {}))
    expect(withKey.map((t) => t.name)).toEqual([
      "transcribe_video",
      "run_batch",
      "resolve_playlist",
      "resolve_channel"
    ])
    for (const { listing } of withKey) {
      expect(listing.inputSchema.required ?? []).not.toContain("idempotency_key")
      const field = (listing.inputSchema.properties as Record<string, object>).idempotency_key
      const check = validator.getValidator(field as never)
      expect(check("0b7f6c2e-retry").valid).toBe(true)
      for (const bad of ["", "with space", "x".repeat(256)]) {
        expect(check(bad).valid, `${listing.name} ${JSON.stringify(bad)}`).toBe(false)
      }
    }
  })
})

describe("renameFields", () => {
  it("names the tool's fields in the message and the issues, leaving other words and fields alone", () => {
    const refused = new Errors.ApiError({
      code: "invalid_request",
      message: "playlist_url: not a playlist_url we know; limit is fine",
      details: {
        issues: [
          { path: ["playlist_url"], message: "playlist_url must name a playlist" },
          { path: ["limit", 0], message: "too big" }
        ],
        other: 1
      }
    })
    const renamed = renameFields({ playlist_url: "playlist" })(refused)
    expect(renamed.toBody()).toEqual({
      error: "invalid_request",
      message: "playlist: not a playlist we know; limit is fine",
      details: {
        issues: [
          { path: ["playlist"], message: "playlist must name a playlist" },
          { path: ["limit", 0], message: "too big" }
        ],
        other: 1
      }
    })
    const unrelated = Errors.apiError("not_found", "no playlist_urls here")
    expect(renameFields({ playlist_url: "playlist" })(unrelated).toBody()).toEqual(unrelated.toBody())
  })
})

describe("a video named by URL", () => {
  it("get_transcript, transcript_languages, translate_transcript and get_themes take a URL as every other tool does", () => {
    const decode = Schema.decodeUnknownEither(VideoIdInput)
    for (const [video, id] of [
      ["dQw4w9WgXcQ", "dQw4w9WgXcQ"],
      ["https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42", "dQw4w9WgXcQ"],
      ["https://youtu.be/dQw4w9WgXcQ", "dQw4w9WgXcQ"],
      ["https://www.youtube.com/shorts/dQw4w9WgXcQ", "dQw4w9WgXcQ"],
      ["upload_0f9d2c1e-5b7a", "upload_0f9d2c1e-5b7a"]
    ] as const) {
      expect(decode(video), video).toEqual(Either.right(id))
    }
    for (const video of ["https://example.com/watch?v=dQw4w9WgXcQ", "not a video", ""]) {
      expect(Either.isLeft(decode(video)), video).toBe(true)
    }
    for (const name of ["get_transcript", "transcript_languages", "translate_transcript", "get_themes"]) {
      const field = tools.find((tool) => tool.name === name)?.listing.inputSchema.properties?.video_id as
        | { readonly description?: string }
        | undefined
      expect(field?.description, name).toContain("YouTube URL")
    }
  })
})
