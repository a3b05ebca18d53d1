import { OpenApi } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { title, VerbatimApi, version } from "@verbatim/contract"
import { makeHandler } from "./stubs.js"

const { handler, dispose } = makeHandler()
afterAll(() => dispose())

const get = (path: string) => handler(new Request(`http://verbatim.test${path}`))

const specPaths = [
  "/ping",
  "/health",
  "/credits",
  "/transcribe",
  "/transcribe/estimate",
  "/jobs/{job_id}",
  "/jobs",
  "/transcripts",
  "/transcripts/{video_id}",
  "/transcripts/bulk-delete",
  "/transcripts/{video_id}/languages",
  "/transcripts/{video_id}/themes",
  "/transcripts/{video_id}/translate",
  "/uploads",
  "/uploads/{upload_id}/complete",
  "/batch",
  "/batch/estimate",
  "/batch/{batch_id}",
  "/playlists/resolve",
  "/playlists/history",
  "/playlists/{playlist_id}",
  "/channels/resolve",
  "/channels/history",
  "/channels/{channel_id}",
  "/recommendations/videos"
]

/** Paths beyond the spec's (additive): the paged read GPT Actions use and the free look at a video. */
const ourPaths = ["/transcripts/{video_id}/pages", "/videos/info"]

interface Document {
  readonly openapi: string
  readonly info: { readonly title: string; readonly version: string }
  readonly servers: ReadonlyArray<{ readonly url: string }>
  readonly paths: Record<
    string,
    Record<string, { security: ReadonlyArray<unknown>; responses: Record<string, unknown> }>
  >
  readonly components: { readonly schemas: Record<string, unknown> }
}

describe("OpenAPI document", () => {
  it("is served at /api/v2/openapi.json, titled, versioned 2.1.0, with the spec's paths under /api/v2", async () => {
    const response = await get("/api/v2/openapi.json")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/json")
    const document = (await response.json()) as Document
    expect(document.openapi).toBe("3.1.0")
    expect(document.info).toMatchObject({ title: "Transcript Service API", version: "2.1.0" })
    expect(title).toBe(document.info.title)
    expect(version).toBe(document.info.version)
    // Templated, so tools that ignore relative server URLs (Prism) can use it.
    expect(document.servers).toEqual([
      {
        url: "{origin}/api/v2",
        description: "A Verbatim server",
        variables: {
          origin: {
            default: "http://localhost:3000",
            description: "The server's origin: scheme, host and port"
          }
        }
      }
    ])
    expect(Object.keys(document.paths).sort()).toEqual([...specPaths, ...ourPaths].sort())
    expect(document).toEqual(JSON.parse(JSON.stringify(OpenApi.fromApi(VerbatimApi))))
  })

  it("has no built-in decode error: every error is { error, message, details, request_id? } and nothing else", () => {
    const document = OpenApi.fromApi(VerbatimApi) as unknown as Document
    const text = JSON.stringify(document)
    expect(text).not.toContain("HttpApiDecodeError")
    const errorSchemas = Object.entries(document.components.schemas).filter(([name]) =>
      name.endsWith("Error")
    )
    expect(errorSchemas.map(([name]) => name).sort()).toEqual(
      [
        "BadRequestError",
        "ConflictError",
        "ForbiddenError",
        "InternalError",
        "NotFoundError",
        "PayloadTooLargeError",
        "PaymentRequiredError",
        "ServiceUnavailableError",
        "TooManyRequestsError",
        "UnauthorizedError"
      ].sort()
    )
    for (const [, schema] of errorSchemas) {
      expect(schema).toMatchObject({
        type: "object",
        required: ["error", "message", "details"]
      })
      expect(Object.keys((schema as { properties: object }).properties).sort()).toEqual([
        "details",
        "error",
        "message",
        "request_id"
      ])
    }
  })

  it("no schema says additionalProperties: false: unknown request fields are ignored and responses may gain fields", () => {
    const text = JSON.stringify(OpenApi.fromApi(VerbatimApi))
    expect(text).not.toContain('"additionalProperties":false')
    // Free-form objects still say they are open.
    expect(text).toContain('"additionalProperties":true')
  })

  it("every endpoint but /ping and /health needs the bearer key and documents 401 and 429", () => {
    const document = OpenApi.fromApi(VerbatimApi) as unknown as Document
    for (const [path, item] of Object.entries(document.paths)) {
      for (const operation of Object.values(item)) {
        if (path === "/ping" || path === "/health") {
          expect(operation.security).toEqual([])
        } else {
          expect(operation.security).toEqual([{ bearer: [] }])
          expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["401", "429", "500"]))
        }
      }
    }
  })

  it("documents 200 and 202 for POST /transcribe and GET /jobs/{job_id}, and the text exports", () => {
    const document = OpenApi.fromApi(VerbatimApi) as unknown as Document
    expect(Object.keys(document.paths["/transcribe"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "202", "400", "402", "404"])
    )
    expect(Object.keys(document.paths["/jobs/{job_id}"]?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "202", "404"])
    )
    const ok = document.paths["/transcripts/{video_id}"]?.get?.responses["200"] as { content: object }
    expect(Object.keys(ok.content).sort()).toEqual([
      "application/json",
      "application/x-subrip",
      "text/plain",
      "text/vtt"
    ])
  })
})

describe("GET /docs", () => {
  it("says GET /batch/{batch_id}'s 202 results carry no data, and POST /batch's 202 lists none", async () => {
    const document = (await (await get("/api/v2/openapi.json")).json()) as {
      readonly paths: Record<string, Record<string, { readonly description?: string }>>
    }
    const description = document.paths["/batch/{batch_id}"]?.get?.description ?? ""
    expect(description).toContain("202 while the batch is processing")
    expect(description).toContain("without `data`")
    expect(description).toContain("POST /batch lists no result")
  })

  it("serves the API reference page with the document inlined and the script bundled (no CDN)", async () => {
    const response = await get("/docs")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    const html = await response.text()
    expect(html).toContain("<title>Transcript Service API</title>")
    expect(html).toContain('"/transcripts/{video_id}"')
    expect(/<script[^>]+src=/.test(html)).toBe(false)
  })
})
