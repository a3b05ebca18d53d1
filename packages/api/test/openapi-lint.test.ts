/**
 * The OpenAPI document passes `@redocly/cli lint` with its recommended rules, and says what the
 * server does: integer query parameters with their ranges, `date-time` dates, no internal wording,
 * the bearer key as the default security, the reference page offline.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { OpenApi } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { VerbatimApi } from "@verbatim/contract"
import { makeHandler } from "./stubs.js"

type Json = Record<string, unknown>

const document = OpenApi.fromApi(VerbatimApi) as unknown as Json & {
  readonly paths: Record<string, Record<string, Json & { parameters?: ReadonlyArray<Json> }>>
  readonly components: { readonly schemas: Record<string, Json> }
}
const text = JSON.stringify(document)

const redocly = fileURLToPath(new URL("../node_modules/.bin/redocly", import.meta.url))

interface Problem {
  readonly ruleId: string
  readonly severity: "error" | "warn"
  readonly message: string
}

describe("@redocly/cli lint --extends=recommended", () => {
  it("reports no errors", () => {
    const file = join(mkdtempSync(join(tmpdir(), "verbatim-openapi-")), "openapi.json")
    writeFileSync(file, text)
    const run = spawnSync(redocly, ["lint", file, "--extends=recommended", "--format=json"], {
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      timeout: 60_000
    })
    const start = run.stdout.indexOf("{")
    expect(start, `${run.stdout}\n${run.stderr}`).toBeGreaterThanOrEqual(0)
    const report = JSON.parse(run.stdout.slice(start)) as { readonly problems: ReadonlyArray<Problem> }
    const errors = report.problems.filter((problem) => problem.severity === "error")
    expect(errors, JSON.stringify(errors, null, 2)).toEqual([])
    // What is left are warnings about the two unauthenticated probes having no 4xx answer.
    expect(
      report.problems.every((problem) => problem.ruleId === "operation-4xx-response"),
      JSON.stringify(report.problems, null, 2)
    ).toBe(true)
  }, 90_000)
})

describe("the document's precision", () => {
  it("page and limit are integers with their ranges and defaults", () => {
    for (const path of ["/jobs", "/transcripts"]) {
      const parameters = document.paths[path]?.get?.parameters ?? []
      expect(parameters.find((parameter) => parameter.name === "page")?.schema).toEqual({
        type: "integer",
        minimum: 1,
        maximum: 10_000_000,
        default: 1
      })
      expect(parameters.find((parameter) => parameter.name === "limit")?.schema).toEqual({
        type: "integer",
        minimum: 1,
        maximum: 100,
        default: 50
      })
    }
  })

  it("every *_at field and every date is a date-time, with a plain description", () => {
    const dates = document.components.schemas.DateTimeUtc
    expect(dates).toEqual({
      type: "string",
      format: "date-time",
      description: "An ISO 8601 date-time in UTC, such as 2026-11-24T10:00:00.000Z"
    })
    const fields: Array<string> = []
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        value.forEach(visit)
        return
      }
      if (typeof value !== "object" || value === null) return
      const properties = (value as Json).properties
      if (typeof properties === "object" && properties !== null) {
        for (const [name, schema] of Object.entries(properties)) {
          if (name.endsWith("_at")) {
            fields.push(name)
            expect(JSON.stringify(schema), name).toContain('"$ref":"#/components/schemas/DateTimeUtc"')
          }
        }
      }
      Object.values(value).forEach(visit)
    }
    visit(document)
    expect(fields.length).toBeGreaterThan(10)
  })

  it("speaks no internal wording: no decoding, no filter names as titles", () => {
    expect(text).not.toMatch(/to be decoded into/)
    expect(text).not.toMatch(/"title":"(int|nonNegative|maxLength\(|maxItems\(|between\()/)
    expect(text).not.toContain("NumberFromString")
    expect(text).not.toContain("BooleanFromString")
  })

  it("the bearer key is the default security; /ping and /health need none", () => {
    expect(document.security).toEqual([{ bearer: [] }])
    expect(document.paths["/ping"]?.get?.security).toEqual([])
    expect(document.paths["/health"]?.get?.security).toEqual([])
    expect(text).toContain("`Authorization: Bearer <API key>`")
  })

  it("webhook_url says when it is required, optional and ignored, as the spec does", () => {
    const request = document.components.schemas.TranscribeRequest as Json
    const webhook = (request.properties as Json).webhook_url as Json
    expect(webhook.description).toContain(
      "Required with upload_id and with the legacy source=asr or allow_asr=true"
    )
    expect(webhook.description).toContain(
      "ignored, neither checked nor stored, by captions_only and human_captions_only"
    )
  })

  it("documents Retry-After on 503 answers", () => {
    const health = document.paths["/health"]?.get?.responses as Record<string, Json>
    expect(Object.keys(health["503"]?.headers as Json)).toContain("Retry-After")
    const credits = document.paths["/credits"]?.get?.responses as Record<string, Json>
    expect(Object.keys(credits["429"]?.headers as Json)).toContain("Retry-After")
  })
})

describe("the body limit", () => {
  it("every operation with a body documents 413 request_too_large; the others do not", () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const responses = operation.responses as Record<string, Json>
        expect("413" in responses, `${method} ${path}`).toBe(operation.requestBody !== undefined)
      }
    }
    expect(document.components.schemas.PayloadTooLargeError).toMatchObject({
      required: ["error", "message", "details"],
      properties: { error: { type: "string", enum: ["request_too_large"] } }
    })
  })
})

describe("GET /docs offline", () => {
  const { handler, dispose } = makeHandler()
  afterAll(() => dispose())

  it("asks Scalar for no web fonts and fetches nothing from a CDN", async () => {
    const page = await (await handler(new Request("http://verbatim.test/docs"))).text()
    expect(page.includes('"withDefaultFonts":false')).toBe(true)
    expect(/<(script|link)[^>]+(src|href)="https?:/.test(page)).toBe(false)
    // In a code span, so the page shows "<API key>" instead of reading it as an HTML tag.
    expect(page.includes("`Authorization: Bearer \\u003cAPI key>`")).toBe(true)
  })
})
