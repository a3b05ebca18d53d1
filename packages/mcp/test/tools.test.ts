import { describe, expect, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { tools } from "../src/tools.js"

const names = [
  "transcribe_video",
  "get_job",
  "get_transcript",
  "search_transcripts",
  "list_transcripts",
  "transcript_languages",
  "estimate_cost",
  "get_credits",
  "run_batch",
  "get_batch",
  "resolve_playlist",
  "resolve_channel"
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
    for (const { listing } of tools) {
      for (const schema of [listing.inputSchema, listing.outputSchema]) {
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
  })
})
