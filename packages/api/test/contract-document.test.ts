/**
 * The contract moved into `@verbatim/contract` without changing a byte of what it documents: the
 * OpenAPI document (`/api/v2/openapi.json`) and the GPT Actions document are compared with the ones
 * `main` produced before the move (`fixtures/`, since updated on purpose for GET /videos/info and
 * GET /transcripts/{video_id}/pages, for the `source` filter of GET /transcripts, for `translated_from`, and for the rate limit headers of a 413 after authentication). A change to either is a change of the API and must
 * update the fixture on purpose.
 */
import { readFileSync } from "node:fs"
import { OpenApi } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { describe, expect, it } from "vitest"
import { gptDocument } from "../src/index.js"

/** The fixture as the server sends it: compact JSON, keys in the order written (the file's layout is Biome's). */
const fixture = (name: string): string =>
  JSON.stringify(JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")))
const served = (document: unknown): string => JSON.stringify(document)

describe("the contract's documents", () => {
  it("the OpenAPI document is byte for byte the one main served before the contract package", () => {
    expect(served(OpenApi.fromApi(VerbatimApi))).toBe(fixture("openapi.json"))
  })

  it("the GPT Actions document is byte for byte the one main served before the contract package", () => {
    expect(served(gptDocument("https://verbatim.example"))).toBe(fixture("gpt-openapi.json"))
  })
})
