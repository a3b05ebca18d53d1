/**
 * The GPT Actions document at /api/v2/gpt/openapi.json: the operations an assistant needs, within
 * the Actions limits, with the service's absolute URL, valid for `redocly lint`.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { gptDocument, gptLimits, gptOpenApiPath } from "../src/index.js"
import { makeHandler } from "./stubs.js"

const { handler, dispose } = makeHandler()
afterAll(() => dispose())

interface Operation {
  readonly operationId: string
  readonly summary: string
  readonly description: string
  readonly security?: ReadonlyArray<unknown>
  readonly parameters?: ReadonlyArray<{ readonly description?: string }>
}

interface Document {
  readonly openapi: string
  readonly servers: ReadonlyArray<{ readonly url: string }>
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, unknown>; readonly securitySchemes: unknown }
  readonly security: ReadonlyArray<unknown>
}

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, ...operation }))
  )

const expected = [
  ["post", "/transcribe", "transcribeVideo"],
  ["post", "/transcribe/estimate", "estimateCost"],
  ["get", "/videos/info", "getVideoInfo"],
  ["get", "/jobs/{job_id}", "getJob"],
  ["get", "/transcripts", "listTranscripts"],
  ["get", "/transcripts/{video_id}", "getTranscript"],
  ["get", "/transcripts/{video_id}/pages", "readTranscript"],
  ["get", "/transcripts/{video_id}/languages", "getTranscriptLanguages"],
  ["post", "/transcripts/{video_id}/translate", "translateTranscript"],
  ["get", "/transcripts/{video_id}/themes", "getThemes"],
  ["post", "/transcripts/{video_id}/themes", "unlockThemes"],
  ["get", "/credits", "getCredits"],
  ["post", "/batch", "createBatch"],
  ["get", "/batch/{batch_id}", "getBatch"],
  ["post", "/playlists/resolve", "resolvePlaylist"],
  ["post", "/channels/resolve", "resolveChannel"],
  ["get", "/recommendations/videos", "getRecommendedVideos"]
]

const redocly = join(dirname(fileURLToPath(import.meta.url)), "../node_modules/.bin/redocly")

const lint = (document: unknown) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    const file = join(mkdtempSync(join(tmpdir(), "verbatim-gpt-")), "openapi.json")
    writeFileSync(file, JSON.stringify(document))
    execFile(
      redocly,
      ["lint", file, "--format=stylish"],
      { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: `${stdout}\n${stderr}` })
    )
  })

describe("GPT Actions document", () => {
  it("is served without a key, with the operations an assistant needs and the service's absolute URL", async () => {
    const response = await handler(
      new Request(`http://verbatim.test${gptOpenApiPath}`, { headers: { host: "verbatim.test" } })
    )
    expect(response.status).toBe(200)
    const document = (await response.json()) as Document
    // The contract alone has no ServiceUrl: the request's origin stands in.
    expect(document.servers).toEqual([{ url: "http://verbatim.test/api/v2/gpt", description: "Verbatim" }])
    expect(operations(document).map((op) => [op.method, op.path, op.operationId])).toEqual(
      expect.arrayContaining(expected)
    )
    expect(operations(document)).toHaveLength(expected.length)
  })

  it("keeps to the Actions limits: operation ids, summaries and descriptions, at most 30 operations", () => {
    const document = gptDocument("https://verbatim.example/") as unknown as Document
    expect(document.servers[0]?.url).toBe("https://verbatim.example/api/v2/gpt")
    const all = operations(document)
    expect(all.length).toBeLessThanOrEqual(gptLimits.operations)
    expect(new Set(all.map((op) => op.operationId)).size).toBe(all.length)
    for (const op of all) {
      expect(op.operationId).toMatch(/^[a-zA-Z][a-zA-Z0-9_]*$/)
      expect(op.summary.length, op.operationId).toBeLessThanOrEqual(300)
      expect(op.description.length, op.operationId).toBeLessThanOrEqual(300)
      expect(op.description.length, op.operationId).toBeGreaterThan(20)
      expect(op.security).toEqual([{ bearer: [] }])
      for (const parameter of op.parameters ?? []) {
        expect(parameter.description?.length ?? 0).toBeLessThanOrEqual(700)
      }
    }
    expect(document.security).toEqual([{ bearer: [] }])
    expect(document.components.securitySchemes).toMatchObject({ bearer: { type: "http", scheme: "bearer" } })
    // What the REST API takes: an API key (OAuth access tokens are refused there, see apps/mcp/test/oauth.test.ts).
    const bearer = (document.components.securitySchemes as { bearer: { description: string } }).bearer
    expect(bearer.description).toMatch(/^A Verbatim API key/)
    // Only what the kept operations use: no deletions, no upload requests.
    const names = Object.keys(document.components.schemas)
    expect(names.filter((name) => /BulkDelete|UploadRequest|UploadCreate/.test(name))).toEqual([])
    const text = JSON.stringify(document)
    for (const ref of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(document.components.schemas, ref[1]).toHaveProperty([ref[1] as string])
    }
  })

  it("validates with redocly lint", async () => {
    const { code, output } = await lint(gptDocument("https://verbatim.example"))
    expect(code, output).toBe(0)
  }, 60_000)
})
