/**
 * A 3-hour transcript (2,700 segments, about 220,000 characters of text: what a 2.6-hour video
 * really had) read completely, never in an answer over 90,000 characters: through the
 * MCP tool get_transcript over Streamable HTTP (timed and text), and through the GPT operation
 * readTranscript (GET /transcripts/{video_id}/pages) over real HTTP, following the cursors to the
 * end. A cursor of one reads on in the other: they are core's one paging rule.
 */
import { describe, expect, layer } from "@effect/vitest"
import { mcpPath } from "@verbatim/api"
import { demoPlatform } from "@verbatim/runtime"
import { Effect } from "effect"
import { TestServer, testServerOn } from "../../server/test/server.js"
import { call, catalogueWithThreeHours, httpClient } from "./support.js"

const threeHours = "ThreeHrs_01"
const segmentCount = 2_700

const segments = Array.from({ length: segmentCount }, (_, i) => ({
  text:
    i === 1_234
      ? `A "quoted" passage with a backslash \\ and no pause, ${"and on it went again ".repeat(400)}to the end.`
      : `Line ${i + 1}: the speaker explains "graphs", queues & the order of visits, once more.`,
  start: i * 4_000,
  end: i * 4_000 + 3_900
}))

const catalogueFile = (): string => catalogueWithThreeHours(threeHours, segments)

interface Piece {
  readonly segment: number
  readonly text: string
}

/** The segments' texts that pieces make, joined by index. */
const joinPieces = (pieces: ReadonlyArray<Piece>): ReadonlyArray<string> => {
  const texts: Array<string> = []
  for (const piece of pieces) texts[piece.segment] = (texts[piece.segment] ?? "") + piece.text
  return texts
}

/** Lines of text pages, a page that continues a segment joined to the previous line. */
const joinTextPages = (pages: ReadonlyArray<{ text: string; continues_segment: boolean }>) => {
  const lines: Array<string> = []
  for (const page of pages) {
    const [first = "", ...rest] = page.text.split("\n")
    if (page.continues_segment) lines[lines.length - 1] = `${lines[lines.length - 1] ?? ""}${first}`
    else lines.push(first)
    lines.push(...rest)
  }
  return lines
}

const wholeText = segments.map((segment) => segment.text)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ platform: demoPlatform(catalogueFile()) }), {
  timeout: 120_000,
  excludeTestServices: true
})("a 3-hour transcript", (it) => {
  describe("read completely, no answer over 90,000 characters", () => {
    it.scoped(
      "through the GPT operation readTranscript, as text and timed, and on from an MCP cursor",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business" })
          const stored = yield* server.post("/api/v2/transcribe", { key, json: { video: threeHours } })
          expect(stored.status, stored.text).toBe(200)
          const whole = yield* server.get(`/api/v2/transcripts/${threeHours}`, { key })
          // Read whole: one answer far over the Actions limit.
          expect(whole.text.length).toBeGreaterThan(300_000)

          for (const format of ["text", "timed"] as const) {
            const pages: Array<{ text: string; continues_segment: boolean; segments?: Array<Piece> }> = []
            let cursor: string | null = null
            do {
              const query: string = `format=${format}&max_chars=80000${cursor === null ? "" : `&cursor=${cursor}`}`
              const page = yield* server.get(`/api/v2/transcripts/${threeHours}/pages?${query}`, { key })
              expect(page.status, page.text).toBe(200)
              expect(page.text.length).toBeLessThan(90_000)
              const body = page.json as {
                text?: string
                segments?: Array<Piece>
                continues_segment: boolean
                next_cursor: string | null
                has_more: boolean
                segment_count: number
              }
              expect(body.segment_count).toBe(segmentCount)
              expect(body.has_more).toBe(body.next_cursor !== null)
              pages.push({
                text: body.text ?? "",
                continues_segment: body.continues_segment,
                ...(body.segments ? { segments: body.segments } : {})
              })
              cursor = body.next_cursor
            } while (cursor !== null)
            expect(pages.length).toBeGreaterThan(2)
            const texts =
              format === "text"
                ? joinTextPages(pages)
                : joinPieces(pages.flatMap((page) => page.segments ?? []))
            expect(texts).toEqual(wholeText)
          }

          // A cursor from the MCP tool reads on through the GPT operation.
          const mcp = yield* httpClient(server.baseUrl, key)
          const first = yield* call(mcp, "get_transcript", { video_id: threeHours, max_chars: 5_000 })
          const next = yield* server.get(
            `/api/v2/transcripts/${threeHours}/pages?format=timed&cursor=${String(first.structured.next_cursor)}`,
            { key }
          )
          expect(next.status, next.text).toBe(200)
          const firstPieces = first.structured.segments as ReadonlyArray<Piece>
          const nextPieces = (next.json as { segments: ReadonlyArray<Piece> }).segments
          expect(nextPieces[0]?.segment).toBe((firstPieces[firstPieces.length - 1]?.segment ?? -1) + 1)

          // Not a cursor: invalid_request naming it.
          const bad = yield* server.get(`/api/v2/transcripts/${threeHours}/pages?cursor=nonsense`, { key })
          expect(bad.status).toBe(400)
          expect(bad.json).toMatchObject({
            error: "invalid_request",
            details: { issues: [{ path: ["cursor"] }] }
          })
          // The GPT document offers the operation, saying how to page.
          const document = (yield* server.get("/api/v2/gpt/openapi.json")).json as {
            paths: Record<string, Record<string, { operationId?: string; description?: string }>>
          }
          const [path, item] =
            Object.entries(document.paths).find(
              ([, methods]) => methods.get?.operationId === "readTranscript"
            ) ?? []
          expect(path).toMatch(/\/transcripts\/\{video_id\}\/pages$/)
          const operation = item?.get
          expect(operation?.operationId).toBe("readTranscript")
          expect(operation?.description).toContain("next_cursor")
        }),
      120_000
    )

    it.scoped("through the MCP tool get_transcript over Streamable HTTP, timed and as plain text", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "business" })
        const stored = yield* server.post("/api/v2/transcribe", { key, json: { video: threeHours } })
        expect(stored.status, stored.text).toBe(200)
        const mcp = yield* httpClient(server.baseUrl, key)
        for (const format of ["timed", "text"] as const) {
          const pieces: Array<Piece> = []
          const pages: Array<{ text: string; continues_segment: boolean }> = []
          let cursor: string | null = null
          do {
            const { result, structured } = yield* call(mcp, "get_transcript", {
              video_id: threeHours,
              format,
              max_chars: 40_000,
              ...(cursor === null ? {} : { cursor })
            })
            // The answer as the transport carries it: the result, text content and structured content.
            expect(JSON.stringify(result).length).toBeLessThan(90_000)
            if (format === "timed") {
              pieces.push(...(structured.segments as ReadonlyArray<Piece>))
              expect(result.content[0]?.type === "text" && result.content[0].text).toMatch(
                /\[\d\d:\d\d:\d\d\] /
              )
            } else {
              expect(structured.segments).toBeUndefined()
              pages.push({
                text: structured.text as string,
                continues_segment: structured.continues_segment as boolean
              })
            }
            cursor = structured.next_cursor as string | null
          } while (cursor !== null)
          expect(format === "timed" ? joinPieces(pieces) : joinTextPages(pages)).toEqual(wholeText)
        }
        expect(mcpPath).toContain("/gpt/mcp")
      })
    )
  })
})
