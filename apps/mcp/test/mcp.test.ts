/**
 * The MCP server driven by the SDK's own client on every transport, against a real Verbatim server
 * (`testServerOn`, the demo catalogue plus one long video): Streamable HTTP at /api/v2/gpt/mcp,
 * stdio (`pnpm --silent mcp` calling the server's REST API), the in-process operations (what
 * stdio runs on PostgreSQL) and the REST operations over an in-memory pair. Every structured result
 * is checked against its tool's output schema.
 */
import { describe, expect, layer } from "@effect/vitest"
import { mcpPath } from "@verbatim/api"
import { tools } from "@verbatim/mcp-tools"
import { demoPlatform } from "@verbatim/runtime"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Option } from "effect"
import { TestServer, type TestServerService, testServerOn } from "../../server/test/server.js"
import { newAccount, oldAccount, videos } from "../../server/test/support.js"
import {
  type Connected,
  call,
  callFailing,
  catalogueWithLongVideo,
  httpClient,
  inProcessClient,
  longVideo,
  onEveryTransport,
  restClient,
  stdioClient,
  stdioClientWith
} from "./support.js"

/** Every tool of `@verbatim/mcp-tools` (its own test pins the list), listed over each transport. */
const toolNames = tools.map((tool) => tool.name)

interface Piece {
  readonly segment: number
  readonly start: number
  readonly end: number
  readonly text: string
}

/** Reads a transcript chunk by chunk, following the cursors; the chunks' pieces in order. */
const readAllChunks = (mcp: Connected, videoId: string, maxChars: number) =>
  Effect.gen(function* () {
    const pieces: Array<Piece> = []
    let cursor: string | null = null
    let chunks = 0
    do {
      const { structured } = yield* call(mcp, "get_transcript", {
        video_id: videoId,
        max_chars: maxChars,
        ...(cursor === null ? {} : { cursor })
      })
      const chunk = structured.segments as ReadonlyArray<Piece>
      expect(chunk.reduce((sum, p) => sum + p.text.length + 40, 0)).toBeLessThanOrEqual(maxChars)
      pieces.push(...chunk)
      cursor = structured.next_cursor as string | null
      expect(structured.has_more).toBe(cursor !== null)
      chunks += 1
    } while (cursor !== null)
    return { pieces, chunks }
  })

/** The segments the pieces make, joined by index. */
const joinPieces = (pieces: ReadonlyArray<Piece>) => {
  const joined: Array<{ text: string; start: number; end: number }> = []
  for (const piece of pieces) {
    const last = joined[piece.segment]
    if (last === undefined) joined[piece.segment] = { text: piece.text, start: piece.start, end: piece.end }
    else last.text += piece.text
  }
  return joined
}

/** The tour every transport takes: each tool once, an error, the resources. */
const tour = (server: TestServerService, mcp: Connected, key: string) =>
  Effect.gen(function* () {
    expect(mcp.tools.map((t) => t.name)).toEqual(toolNames)

    const credits = yield* call(mcp, "get_credits")
    expect(credits.structured).toMatchObject({ credits: 100, plan: "business" })

    const first = yield* call(mcp, "transcribe_video", { video: videos.manualAndAuto })
    expect(first.structured).toMatchObject({
      status: "completed",
      video_id: videos.manualAndAuto,
      language: "en",
      source: "manual",
      credits_used: 1,
      segment_count: 16
    })
    expect(first.structured.preview).toMatch(/^Good afternoon, everyone/)
    const again = yield* call(mcp, "transcribe_video", { video: `https://youtu.be/${videos.manualAndAuto}` })
    expect(again.structured).toMatchObject({ status: "completed", credits_used: 0 })

    const job = yield* call(mcp, "get_job", { job_id: first.structured.job_id })
    expect(job.structured).toMatchObject({
      status: "completed",
      video_id: videos.manualAndAuto,
      credits_used: 1,
      language: "en"
    })

    const transcript = yield* call(mcp, "get_transcript", { video_id: videos.manualAndAuto })
    expect(transcript.structured).toMatchObject({
      video_id: videos.manualAndAuto,
      language: "en",
      source_kind: "manual",
      segment_count: 16,
      has_more: false,
      next_cursor: null
    })
    // The same transcript named by its URL, as transcribe_video takes it.
    const byUrl = yield* call(mcp, "get_transcript", { video_id: `https://youtu.be/${videos.manualAndAuto}` })
    expect(byUrl.structured).toEqual(transcript.structured)
    const rest = yield* server.get(`/api/v2/transcripts/${videos.manualAndAuto}`, { key })
    const stored = rest.json as { segments: ReadonlyArray<{ text: string; start: number; end: number }> }
    expect(joinPieces(transcript.structured.segments as ReadonlyArray<Piece>)).toEqual(
      stored.segments.map(({ text, start, end }) => ({ text, start, end }))
    )
    const text = transcript.result.content[0]
    expect(text?.type === "text" ? text.text : "").toContain("[00:00:")

    const search = yield* call(mcp, "search_transcripts", { query: "lunch" })
    expect(search.structured.count).toBe(1)
    const [hit] = search.structured.results as ReadonlyArray<{
      video_id: string
      snippets: ReadonlyArray<{ text: string; start: number; timestamp: string }>
    }>
    expect(hit?.video_id).toBe(videos.manualAndAuto)
    expect(hit?.snippets[0]?.text).toContain("lunch")
    expect(hit?.snippets[0]?.timestamp).toMatch(/^\d\d:\d\d:\d\d$/)

    const list = yield* call(mcp, "list_transcripts")
    expect(list.structured.count).toBe(1)
    expect(
      (list.structured.transcripts as ReadonlyArray<{ snippets: ReadonlyArray<unknown> }>)[0]?.snippets
    ).toHaveLength(1)

    const languages = yield* call(mcp, "transcript_languages", { video_id: videos.manualAndAuto })
    expect(languages.structured).toMatchObject({ video_id: videos.manualAndAuto, languages: ["en"] })

    const estimate = yield* call(mcp, "estimate_cost", { video: videos.noCaptions })
    expect(estimate.structured).toMatchObject({
      video_id: videos.noCaptions,
      source: "asr",
      estimated_credits: 8
    })

    const unknown = yield* callFailing(mcp, "transcribe_video", { video: videos.unknown })
    expect(unknown.error).toBe("video_unavailable")
    expect(unknown.message).toBeTruthy()
    expect(
      (yield* callFailing(mcp, "get_job", { job_id: "00000000-0000-4000-8000-000000000000" })).error
    ).toBe("not_found")
    expect((yield* callFailing(mcp, "get_transcript", { video_id: "nope!" })).error).toBe("invalid_request")

    // Resources: the stored transcript, listed and read.
    const resources = yield* Effect.promise(() => mcp.client.listResources())
    expect(resources.resources.map((r) => r.uri)).toEqual([`transcript://${videos.manualAndAuto}/en`])
    const templates = yield* Effect.promise(() => mcp.client.listResourceTemplates())
    expect(templates.resourceTemplates[0]?.uriTemplate).toBe("transcript://{video_id}/{language}")
    const read = yield* Effect.promise(() =>
      mcp.client.readResource({ uri: `transcript://${videos.manualAndAuto}/en` })
    )
    const content = read.contents[0]
    expect(content?.mimeType).toBe("text/plain")
    expect(content !== undefined && "text" in content ? content.text : "").toContain(
      "[00:00:01] Good afternoon, everyone."
    )
    const missing = yield* Effect.promise(() =>
      mcp.client.readResource({ uri: `transcript://${videos.manualAndAuto}/de` }).then(
        () => Option.none(),
        (error: { code?: number; data?: { error?: string } }) => Option.some(error)
      )
    )
    expect(Option.getOrUndefined(missing)).toMatchObject({ code: -32002, data: { error: "forbidden" } })

    // The long transcript comes back in chunks that join to the whole.
    yield* call(mcp, "transcribe_video", { video: longVideo })
    const { pieces, chunks } = yield* readAllChunks(mcp, longVideo, 4_000)
    expect(chunks).toBeGreaterThan(20)
    const whole = (yield* server.get(`/api/v2/transcripts/${longVideo}`, { key })).json as {
      text: string
      segments: ReadonlyArray<{ text: string; start: number; end: number }>
    }
    const joined = joinPieces(pieces)
    expect(joined).toEqual(whole.segments.map(({ text, start, end }) => ({ text, start, end })))
    expect(joined.map((s) => s.text).join(" ")).toBe(whole.text)
    // The 5,000-character segment was cut across chunks, keeping its times.
    expect(pieces.filter((p) => p.segment === 500).length).toBeGreaterThan(1)

    // Two captions transcriptions charged: 1 credit each, as the REST API charges.
    expect((yield* call(mcp, "get_credits")).structured.credits).toBe(98)
    expect(((yield* server.get("/api/v2/credits", { key })).json as { credits: number }).credits).toBe(98)

    yield* batchTour(mcp)
    // The batch's two new captions transcriptions: 1 credit each.
    expect((yield* call(mcp, "get_credits")).structured.credits).toBe(96)
  })

interface BatchItem {
  readonly index: number
  readonly video_id: string
  readonly status: string
  readonly error: string | null
  readonly language?: string
}

/** A batch: the ASR question, then a captions batch polled to its end and read a page at a time. */
const batchTour = (mcp: Connected) =>
  Effect.gen(function* () {
    // An ASR mode, or a webhook with the account's default, is a question first: nothing starts.
    const asked = yield* call(mcp, "run_batch", { video_ids: [videos.noCaptions], mode: "auto" })
    expect(asked.structured).toMatchObject({
      status: "requires_asr_confirmation",
      video_count: 1,
      credits_used: 0,
      asr_credits_per_hour: 40,
      confirm_arguments: { video_ids: [videos.noCaptions], mode: "auto", confirm_asr: true }
    })
    const hooked = yield* call(mcp, "run_batch", {
      video_ids: [videos.noCaptions],
      webhook_url: "https://example.com/hook"
    })
    expect(hooked.structured).toMatchObject({ status: "requires_asr_confirmation", mode: null })

    const ids = [videos.manualOnly, videos.manualAndAuto, videos.autoOnly, "not a video!"]
    const started = yield* call(mcp, "run_batch", { video_ids: ids, mode: "captions_only" })
    expect(started.structured).toMatchObject({ status: "processing", summary: { total: 4 } })
    const batch_id = started.structured.batch_id as string
    expect(started.result.content[0]).toMatchObject({ type: "text" })

    const done = yield* eventually(
      "the batch to finish",
      Effect.map(call(mcp, "get_batch", { batch_id, limit: 2 }), ({ structured }) =>
        structured.status === "processing" ? Option.none() : Option.some(structured)
      )
    )
    expect(done).toMatchObject({
      status: "partial",
      summary: { total: 4, succeeded: 3, failed: 1, processing: 0 },
      matching_items: 4,
      has_more: true,
      next_offset: 2
    })
    const first = done.items as ReadonlyArray<BatchItem>
    expect(first.map((item) => [item.index, item.video_id, item.status])).toEqual([
      [0, videos.manualOnly, "completed"],
      [1, videos.manualAndAuto, "completed"]
    ])
    expect(first[0]?.language).toBe("en")
    const rest = yield* call(mcp, "get_batch", { batch_id, limit: 2, offset: 2 })
    expect(rest.structured).toMatchObject({ has_more: false, next_offset: null })
    expect((rest.structured.items as ReadonlyArray<BatchItem>).map((item) => item.index)).toEqual([2, 3])
    const failed = yield* call(mcp, "get_batch", { batch_id, status: "failed" })
    const [bad] = failed.structured.items as ReadonlyArray<BatchItem>
    expect(failed.structured.matching_items).toBe(1)
    expect(bad).toMatchObject({ index: 3, video_id: "not a video!", status: "failed" })
    expect(bad?.error).toBeTruthy()
    const text = failed.result.content[0]
    expect(text?.type === "text" ? text.text : "").toContain("#3 not a video! failed")

    expect(
      (yield* callFailing(mcp, "get_batch", { batch_id: "00000000-0000-4000-8000-000000000000" })).error
    ).toBe("not_found")
    expect((yield* callFailing(mcp, "run_batch", { video_ids: [] })).error).toBe("invalid_request")
  })

interface ListedVideo {
  readonly video_id: string
  readonly title: string | null
  readonly duration_seconds?: number
}

/** resolve_playlist and resolve_channel: paid plans list, the free plan is refused, ids run as a batch. */
const collectionTour = (mcp: Connected, free: Connected) =>
  Effect.gen(function* () {
    const playlist = yield* call(mcp, "resolve_playlist", {
      playlist: "https://www.youtube.com/playlist?list=PLvb8CaptionCases",
      limit: 3
    })
    expect(playlist.structured).toMatchObject({
      playlist_id: "PLvb8CaptionCases",
      title: "Verbatim demo: caption cases",
      total: 3,
      truncated: true
    })
    const listed = playlist.structured.videos as ReadonlyArray<ListedVideo>
    expect(listed.map((video) => video.video_id)).toEqual([
      videos.germanOnly,
      videos.autoOnly,
      videos.noCaptions
    ])
    const text = playlist.result.content[0]
    expect(text?.type === "text" ? text.text : "").toContain("run_batch")

    for (const channel of ["@practicalcodelab", "practicalcodelab", "UCk4Pz9HsV2mQw7Lt1XyBn6D"]) {
      const resolved = yield* call(mcp, "resolve_channel", { channel, limit: 2 })
      expect(resolved.structured).toMatchObject({
        channel_id: "UCk4Pz9HsV2mQw7Lt1XyBn6D",
        channel_title: "Practical Code Lab",
        total: 2,
        truncated: true
      })
      const newest = resolved.structured.videos as ReadonlyArray<ListedVideo>
      expect(newest.map((video) => [video.video_id, video.duration_seconds])).toEqual([
        ["Kt9SpkDmo2B", 5],
        ["Wv5SpkDmo1A", 5]
      ])
    }
    expect((yield* callFailing(mcp, "resolve_channel", { channel: "nobody-here" })).error).toBe("not_found")
    // A refused reference names the tool's own field, not the REST request's playlist_url/channel_url.
    for (const [tool, field] of [
      ["resolve_playlist", "playlist"],
      ["resolve_channel", "channel"]
    ] as const) {
      const refused = yield* callFailing(mcp, tool, { [field]: "https://example.com/x" })
      expect(refused.error).toBe("invalid_request")
      expect(refused.message).toMatch(new RegExp(`^${field}(: | must )`))
      expect(refused.details.issues).toEqual([{ path: [field], message: expect.any(String) }])
      expect(JSON.stringify(refused)).not.toMatch(/playlist_url|channel_url/)
    }
    expect((yield* callFailing(free, "resolve_playlist", { playlist: "PLvb8CaptionCases" })).error).toBe(
      "plan_required"
    )
    expect((yield* callFailing(free, "resolve_channel", { channel: "@practicalcodelab" })).error).toBe(
      "plan_required"
    )
  })

/**
 * Retries with an idempotency key: the same key and arguments answer the first answer and charge
 * (or count) once; the same key with other arguments is a `conflict` tool error. On transcribe_video,
 * run_batch, resolve_playlist and resolve_channel; the key means the same to POST /transcribe.
 */
const idempotencyTour = (server: TestServerService, mcp: Connected, key: string) =>
  Effect.gen(function* () {
    const balance = server
      .get("/api/v2/credits", { key })
      .pipe(Effect.map((r) => (r.json as { credits: number }).credits))
    const before = yield* balance
    const unique = (name: string) => `${name}-${crypto.randomUUID()}`

    const transcribeKey = unique("transcribe")
    const args = { video: videos.manualOnly, idempotency_key: transcribeKey }
    const first = yield* call(mcp, "transcribe_video", args)
    expect(first.structured).toMatchObject({ status: "completed", credits_used: 1 })
    const retried = yield* call(mcp, "transcribe_video", args)
    expect(retried.structured).toEqual(first.structured)
    expect(yield* balance).toBe(before - 1)
    // The same key on POST /transcribe with the same request: the first answer again.
    const rest = yield* server.post("/api/v2/transcribe", {
      key,
      json: { video: videos.manualOnly },
      headers: { "idempotency-key": transcribeKey }
    })
    expect(rest.json).toMatchObject({ request_id: first.structured.request_id, credits_used: 1 })
    const conflict = yield* callFailing(mcp, "transcribe_video", { ...args, video: videos.autoOnly })
    expect(conflict.error).toBe("conflict")
    expect(yield* balance).toBe(before - 1)
    expect((yield* callFailing(mcp, "transcribe_video", { ...args, idempotency_key: "" })).error).toBe(
      "invalid_request"
    )

    const batchArgs = {
      video_ids: [videos.manualAndAuto],
      mode: "captions_only",
      idempotency_key: unique("batch")
    }
    const batch = yield* call(mcp, "run_batch", batchArgs)
    expect(batch.structured).toMatchObject({ status: "processing", summary: { total: 1 } })
    const batchAgain = yield* call(mcp, "run_batch", batchArgs)
    expect(batchAgain.structured.batch_id).toBe(batch.structured.batch_id)
    expect((yield* callFailing(mcp, "run_batch", { ...batchArgs, video_ids: [videos.autoOnly] })).error).toBe(
      "conflict"
    )
    const done = yield* eventually(
      "the batch to finish",
      Effect.map(call(mcp, "get_batch", { batch_id: batch.structured.batch_id }), ({ structured }) =>
        structured.status === "processing" ? Option.none() : Option.some(structured)
      )
    )
    expect(done).toMatchObject({ status: "completed", credits_used: 1 })
    expect(yield* balance).toBe(before - 2)

    for (const [tool, field, value] of [
      ["resolve_playlist", "playlist", "PLvb8CaptionCases"],
      ["resolve_channel", "channel", "@practicalcodelab"]
    ] as const) {
      const resolveArgs = { [field]: value, limit: 2, idempotency_key: unique(tool) }
      const resolved = yield* call(mcp, tool, resolveArgs)
      const again = yield* call(mcp, tool, resolveArgs)
      expect(again.structured).toEqual(resolved.structured)
      expect((yield* callFailing(mcp, tool, { ...resolveArgs, limit: 1 })).error).toBe("conflict")
    }
    // The channel resolve retried counted one of the month's channel jobs, not two.
    const history = yield* server.get("/api/v2/channels/history", { key })
    expect((history.json as { count: number }).count).toBe(1)
  })

/**
 * The tests every transport takes beside its own: playlists and channels (a paid and a free account)
 * and idempotent retries, on a client `connect` makes for an account's key.
 */
const sharedTests = <R>(
  connect: (server: TestServerService, key: string) => Effect.Effect<Connected, never, R>
) =>
  [
    [
      "lists playlists and channels for paid plans, never for the free plan",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business" })
          const free = yield* server.newAccount({ plan: "free" })
          yield* collectionTour(yield* connect(server, key), yield* connect(server, free.key))
        })
    ],
    [
      "a retried call with an idempotency key charges once and answers the first answer",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro" })
          yield* idempotencyTour(server, yield* connect(server, key), key)
        })
    ]
  ] as const

const catalogue = catalogueWithLongVideo()

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ platform: demoPlatform(catalogue) }), { timeout: 60_000, excludeTestServices: true })(
  "MCP server",
  (it) => {
    describe("over Streamable HTTP at /api/v2/gpt/mcp", () => {
      it.scoped(
        "takes the tour: every tool, errors with their codes, resources, a long transcript in chunks",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            // Business: the tour's 60-odd calls fit its rate limit (100 a second).
            const { key } = yield* server.newAccount({ plan: "business" })
            yield* tour(server, yield* httpClient(server.baseUrl, key), key)
          }),
        180_000
      )

      it.scoped(
        "every JSON-RPC request takes from the rate limit (batches per message), bounded; notifications take nothing",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const headers = { accept: "application/json, text/event-stream" }
            const post = (key: string, json: unknown) => server.post(mcpPath, { key, json, headers })
            const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" })
            const many = (n: number) => Array.from({ length: n }, (_, i) => list(i + 1))

            // A batch of tools/list takes one request per message, not one per POST.
            const basic = yield* server.newAccount({ plan: "basic" })
            const ten = yield* post(basic.key, many(10))
            expect(ten.status, ten.text).toBe(200)
            expect(ten.json).toHaveLength(10)
            expect(ten.headers.get("ratelimit-limit")).toBe("25")
            expect(ten.headers.get("ratelimit-remaining")).toBe("15")
            const eleven = yield* post(basic.key, many(11))
            expect(eleven.status).toBe(400)
            expect(eleven.json).toMatchObject({
              error: "invalid_request",
              details: { messages: 11, max_messages: 10 }
            })

            // Free: notifications and refused POSTs take nothing; more at once than the bucket holds is 400.
            const free = yield* server.newAccount({ plan: "free" })
            for (let i = 0; i < 3; i++) {
              const acknowledged = yield* post(free.key, {
                jsonrpc: "2.0",
                method: "notifications/initialized"
              })
              expect(acknowledged.status).toBe(202)
            }
            const three = yield* post(free.key, many(3))
            expect(three.status).toBe(400)
            expect(three.json).toMatchObject({ error: "invalid_request", details: { requests: 3, limit: 2 } })
            // The whole bucket is still there: two at once pass.
            expect((yield* post(free.key, many(2))).status).toBe(200)
            const answers = yield* Effect.all(
              Array.from({ length: 4 }, (_, i) => post(free.key, list(i))),
              { concurrency: "unbounded" }
            )
            const refused = answers.filter((answer) => answer.status === 429)
            expect(refused.length).toBeGreaterThan(0)
            expect(refused[0]?.json).toMatchObject({ error: "rate_limit_exceeded" })
            expect(Number(refused[0]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

            // The largest chunks, as many as one POST may carry: every answer stays under 90,000
            // characters (TOOLS-3), so together they stay under the 1 MiB an answer may take.
            const business = yield* server.newAccount({ plan: "business" })
            const stored = yield* server.post("/api/v2/transcribe", {
              key: business.key,
              json: { video: longVideo }
            })
            expect(stored.status, stored.text).toBe(200)
            const chunks = Array.from({ length: 10 }, (_, i) => ({
              jsonrpc: "2.0",
              id: i + 1,
              method: "tools/call",
              params: { name: "get_transcript", arguments: { video_id: longVideo, max_chars: 40_000 } }
            }))
            const large = yield* post(business.key, chunks)
            expect(large.status).toBe(200)
            const chunkAnswers = large.json as ReadonlyArray<{
              id: number
              result?: { structuredContent?: unknown }
            }>
            expect(chunkAnswers).toHaveLength(10)
            for (const answer of chunkAnswers) {
              expect(answer.result?.structuredContent).toMatchObject({ video_id: longVideo })
              expect(JSON.stringify(answer).length).toBeLessThan(90_000)
            }
          })
      )

      it.scoped(
        "on every transport, a NUL in any argument, a huge page or a date outside the years 1-9999 is invalid_request naming the field",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            yield* onEveryTransport(server, 10, (mcp) =>
              Effect.gen(function* () {
                for (const [tool, args, path] of [
                  ["search_transcripts", { query: "coordination\u0000" }, ["query"]],
                  ["transcribe_video", { video: `${videos.manualOnly}\u0000` }, ["video"]],
                  ["run_batch", { video_ids: [videos.manualOnly, "a\u0000b"] }, ["video_ids", 1]],
                  ["transcribe_video", { video: "\ud800" }, ["video"]],
                  [
                    "transcribe_video",
                    { video: videos.manualOnly, asr_options: { keyTerms: ["a\ud800"] } },
                    ["asr_options", "keyTerms", 0]
                  ],
                  ["run_batch", { video_ids: [videos.manualOnly, "a\udc00"] }, ["video_ids", 1]],
                  ["list_transcripts", { page: 9007199254740991 }, ["page"]],
                  ["list_transcripts", { date_from: "-271821-04-20T00:00:00Z" }, ["date_from"]],
                  ["list_transcripts", { date_to: "+275760-09-13T00:00:00Z" }, ["date_to"]]
                ] as const) {
                  const refused = yield* callFailing(mcp, tool, args)
                  expect(refused.error, `${tool} ${JSON.stringify(args)}`).toBe("invalid_request")
                  expect(refused.details.issues).toEqual(
                    expect.arrayContaining([{ path: [...path], message: expect.any(String) }])
                  )
                }
                // resources/list's cursor is a page, bounded the same way.
                const cursor = (value: string) =>
                  Effect.promise(() =>
                    mcp.client.listResources({ cursor: value }).then(
                      () => "listed",
                      (error: unknown) => String(error)
                    )
                  )
                expect(yield* cursor("9007199254740991")).toContain("cursor")
                expect(yield* cursor("10000000")).toBe("listed")
                // The bounds themselves are served.
                yield* call(mcp, "list_transcripts", {
                  page: 10_000_000,
                  date_from: "0001-01-01T00:00:00Z",
                  date_to: "9999-12-31T23:59:59.999Z"
                })
              })
            )
          }),
        120_000
      )

      it.scoped("answers 401 with the API's error body without a valid key", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const initialize = {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "t", version: "1" }
            }
          }
          const headers = { accept: "application/json, text/event-stream" }
          for (const key of [undefined, "vbt_not_a_real_key_0000000000000000"]) {
            const response = yield* server.post(mcpPath, { key, json: initialize, headers })
            expect(response.status).toBe(401)
            expect(response.json).toMatchObject({ error: "invalid_api_key", details: {} })
            expect(response.headers.get("www-authenticate")).toContain("Bearer")
          }
          const refused = yield* httpClient(server.baseUrl, "vbt_not_a_real_key_0000000000000000").pipe(
            Effect.as("connected"),
            Effect.catchAllDefect((defect) => Effect.succeed(String(defect)))
          )
          expect(refused).toContain("invalid_api_key")
          const get = yield* server.get(mcpPath, { headers: { accept: "text/event-stream" } })
          expect(get.status).toBe(405)
        })
      )

      it.scoped("never charges speech recognition silently: the quote comes back as a question", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          // An account whose default mode is auto: the use case itself answers with the quote.
          const { key } = yield* server.newAccount({ createdAt: newAccount, credits: 50 })
          const mcp = yield* httpClient(server.baseUrl, key)
          const asked = yield* call(mcp, "transcribe_video", { video: videos.noCaptions })
          expect(asked.structured).toMatchObject({
            status: "requires_asr_confirmation",
            credits_used: 0,
            estimated_credits: 8,
            confirm_arguments: { video: videos.noCaptions, confirm_asr: true }
          })
          expect(asked.structured.question).toContain("8 credits")
          // An ASR mode sent without confirm_asr is asked too (from the estimate: no job, no charge).
          for (const mode of ["speech_to_text_only", "auto"]) {
            const quoted = yield* call(mcp, "transcribe_video", { video: videos.noCaptions, mode })
            expect(quoted.structured).toMatchObject({
              status: "requires_asr_confirmation",
              mode,
              estimated_credits: 8
            })
          }
          // mode=auto on a video with captions needs no question: captions serve it.
          const captions = yield* call(mcp, "transcribe_video", { video: videos.manualOnly, mode: "auto" })
          expect(captions.structured).toMatchObject({ status: "completed", credits_used: 1 })
          expect((yield* call(mcp, "get_credits")).structured.credits).toBe(49)
          // Confirmed, the request reaches the ASR path (this test server has no speech engine).
          const confirmed = yield* callFailing(mcp, "transcribe_video", {
            video: videos.noCaptions,
            confirm_asr: true
          })
          expect(confirmed.error).toBe("asr_unavailable")
          expect((yield* call(mcp, "get_credits")).structured.credits).toBe(49)
          // A video too long for ASR is answered failed, free, without a question.
          const tooLong = yield* call(mcp, "transcribe_video", { video: videos.veryLong, mode: "auto" })
          expect(tooLong.structured).toMatchObject({ status: "failed", credits_used: 0 })
          // An older account (default captions_only) never reaches ASR without a mode.
          const old = yield* server.newAccount({ createdAt: oldAccount })
          const oldMcp = yield* httpClient(server.baseUrl, old.key)
          expect((yield* callFailing(oldMcp, "transcribe_video", { video: videos.noCaptions })).error).toBe(
            "no_captions"
          )
        })
      )

      it.scoped("charges credits as the REST API does, refuses with payment_required and rate limits", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const viaMcp = yield* server.newAccount({ credits: 3 })
          const viaRest = yield* server.newAccount({ credits: 3 })
          const mcp = yield* httpClient(server.baseUrl, viaMcp.key)
          const requests = [
            { video: videos.multiLanguage, language: "de" },
            { video: videos.multiLanguage, language: "de" },
            { video: videos.autoOnly },
            { video: videos.multiLanguage, language: "fr" }
          ]
          for (const request of requests) {
            const rest = yield* server.post("/api/v2/transcribe", { key: viaRest.key, json: request })
            const tool = yield* call(mcp, "transcribe_video", request)
            expect(tool.structured.credits_used).toBe((rest.json as { credits_used: number }).credits_used)
          }
          const balance = (key: string) =>
            server
              .get("/api/v2/credits", { key })
              .pipe(Effect.map((r) => (r.json as { credits: number }).credits))
          expect(yield* balance(viaMcp.key)).toBe(0)
          expect(yield* balance(viaRest.key)).toBe(0)
          const broke = yield* callFailing(mcp, "transcribe_video", { video: videos.manualOnly })
          expect(broke.error).toBe("payment_required")
          expect(yield* balance(viaMcp.key)).toBe(0)

          // The free plan's bucket holds 2 requests, which connecting spent (initialize, tools/list):
          // tool calls at once are refused with 429 and the API's error body.
          const free = yield* server.newAccount({ plan: "free" })
          const freeMcp = yield* httpClient(server.baseUrl, free.key)
          const answers = yield* Effect.all(
            Array.from({ length: 4 }, () =>
              Effect.tryPromise({
                try: () => freeMcp.client.callTool({ name: "get_credits", arguments: {} }),
                catch: String
              }).pipe(
                Effect.flip,
                Effect.orElseSucceed(() => "answered")
              )
            ),
            { concurrency: "unbounded" }
          )
          const refused = answers.filter((answer) => answer.includes("rate_limit_exceeded"))
          expect(refused.length, answers.join("; ")).toBeGreaterThan(0)
        })
      )

      for (const [name, test] of sharedTests((server, key) =>
        httpClient(server.baseUrl, key, { patient: true })
      )) {
        it.scoped(name, test)
      }
    })

    describe("over the REST API (what stdio runs with VERBATIM_BASE_URL)", () => {
      for (const [name, test] of sharedTests((server, key) => restClient(server.baseUrl, key))) {
        it.scoped(name, test)
      }
    })

    describe("in process (what stdio runs on PostgreSQL)", () => {
      for (const [name, test] of sharedTests((_server, key) => inProcessClient(key))) {
        it.scoped(name, test)
      }

      it.scoped(
        "takes the tour",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            // Business: the tour's 60-odd calls fit its rate limit (100 a second).
            const { key } = yield* server.newAccount({ plan: "business" })
            yield* tour(server, yield* inProcessClient(key), key)
            // A revoked or unknown key fails every call with invalid_api_key.
            const stranger = yield* inProcessClient("vbt_not_a_real_key_0000000000000000")
            expect((yield* callFailing(stranger, "get_credits")).error).toBe("invalid_api_key")
          }),
        180_000
      )
    })

    describe("on stdio in process (pnpm --silent mcp with DATABASE_URL; PostgreSQL only)", () => {
      it.scoped.skipIf(process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === "")(
        "runs the use cases in its own process on the server's database",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const databaseUrl = Option.getOrThrow(server.databaseUrl)
            const { key } = yield* server.newAccount({ plan: "business", credits: 20 })
            const mcp = yield* stdioClientWith({
              VERBATIM_API_KEY: key,
              DATABASE_URL: databaseUrl,
              DATABASE_POOL_MAX: "2",
              VERBATIM_PLATFORM: "demo",
              VERBATIM_DEMO_CATALOG: catalogue
            })
            expect(mcp.tools.map((t) => t.name)).toEqual(toolNames)
            expect((yield* call(mcp, "get_credits")).structured).toMatchObject({
              credits: 20,
              plan: "business"
            })
            const transcribed = yield* call(mcp, "transcribe_video", { video: videos.manualAndAuto })
            expect(transcribed.structured).toMatchObject({ status: "completed", credits_used: 1 })
            // Stored and charged in the shared database: the server's REST API sees both.
            const credits = yield* server.get("/api/v2/credits", { key })
            expect((credits.json as { credits: number }).credits).toBe(19)
            const stored = yield* server.get(`/api/v2/transcripts/${videos.manualAndAuto}`, { key })
            expect(stored.status).toBe(200)
            const search = yield* call(mcp, "search_transcripts", { query: "lunch" })
            expect(search.structured.count).toBe(1)
            expect(
              (yield* callFailing(mcp, "get_job", { job_id: "00000000-0000-4000-8000-000000000000" })).error
            ).toBe("not_found")
          }),
        240_000
      )
    })

    describe("on stdio (pnpm --silent mcp calling the server's REST API)", () => {
      it.scoped(
        "takes the tour",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            // Business: the tour's 60-odd calls fit its rate limit (100 a second).
            const { key } = yield* server.newAccount({ plan: "business" })
            const mcp = yield* stdioClient(server.baseUrl, key)
            yield* tour(server, mcp, key)
            const free = yield* server.newAccount({ plan: "free" })
            yield* collectionTour(mcp, yield* restClient(server.baseUrl, free.key))
          }),
        240_000
      )
    })
  }
)
