/**
 * The yardstick of `pnpm bench`: a bare `node:http` + `pg` server that answers the two measured
 * requests from the same SQL as Verbatim, with none of its framework. It is what the request path
 * would cost if it were written by hand, so the bench can print Verbatim's figures as ratios of it.
 *
 * - `POST /api/v2/transcribe` of an owned transcript: the key lookup, the owned-transcript read
 *   (the same 19 columns) and the job insert (the same columns, returning the transcript reference),
 *   then the same JSON body Verbatim answers (`request_id`, `mode`, `status`, `data`, `credits_used`,
 *   `job_id`), built by hand from the row.
 * - `GET /api/v2/transcripts?search=`: the key lookup, the page with its total (the count alone when
 *   the page is empty past the start), then the same list body.
 * - `GET /api/v2/credits`: the key lookup and the balance read, then the same body: what an
 *   authenticated request costs beyond its use case (`ab.ts` measures the service's shared path by it).
 *
 * It checks nothing else (no rate limit, no log, no validation beyond what it needs), by design.
 * Run as a child process by `run.ts`: `DATABASE_URL`, `PORT` (0 picks one); prints `listening <port>`.
 */
import { createHash, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import {
  balanceRead,
  jobInsert,
  keyLookup,
  ownedRead,
  searchCount,
  searchPage,
  searchParameters
} from "./statements.js"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

interface AccountRow {
  readonly id: string
  readonly plan: string
  readonly onboarding_completed: boolean
}

const send = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body)
  })
  response.end(body)
}

const fail = (response: ServerResponse, status: number, code: string) =>
  send(response, status, JSON.stringify({ error: { code, message: code } }))

const authenticate = async (request: IncomingMessage): Promise<AccountRow | undefined> => {
  const header = request.headers.authorization ?? ""
  const key = header.startsWith("Bearer ") ? header.slice(7).trim() : ""
  const hash = createHash("sha256").update(key, "utf8").digest("hex")
  const { rows } = await pool.query<AccountRow>(keyLookup, [hash])
  return rows[0]
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

interface OwnedRow {
  readonly id: string
  readonly video_id: string
  readonly video_title: string | null
  readonly language: string
  readonly source_kind: string
  readonly text: string
  readonly segments: ReadonlyArray<{ text: string; start: number; end: number }>
}

const transcribe = async (request: IncomingMessage, response: ServerResponse) => {
  const account = await authenticate(request)
  if (account === undefined) return fail(response, 401, "invalid_api_key")
  const body = JSON.parse(await readBody(request)) as { video?: string; mode?: string }
  const video = body.video ?? ""
  const mode = body.mode ?? "captions_only"
  const { rows } = await pool.query<OwnedRow>(ownedRead, [account.id, video])
  const owned = rows[0]
  if (owned === undefined) return fail(response, 404, "not_owned")
  const requestId = randomUUID()
  const jobId = randomUUID()
  const source = owned.source_kind === "asr" ? "asr" : owned.source_kind
  await pool.query(jobInsert, [
    jobId,
    account.id,
    requestId,
    owned.video_id,
    owned.video_title,
    owned.language,
    source,
    mode,
    owned.id,
    new Date()
  ])
  send(
    response,
    200,
    JSON.stringify({
      request_id: requestId,
      mode,
      status: "completed",
      data: {
        video_id: owned.video_id,
        transcript: {
          text: owned.text,
          language: owned.language,
          source,
          segments: owned.segments.map((s) => ({ text: s.text, start: s.start, end: s.end })),
          paragraphs: null,
          words: null
        },
        video_title: owned.video_title
      },
      credits_used: 0,
      job_id: jobId
    })
  )
}

interface SummaryRow {
  readonly id: string
  readonly video_id: string
  readonly video_title: string | null
  readonly language: string
  readonly source_kind: string
  readonly translated_from: string | null
  readonly status: string
  readonly word_count: number
  readonly segment_count: number
  readonly duration_seconds: number | null
  readonly credits_used: number
  readonly created_at: Date
}

const search = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
  const account = await authenticate(request)
  if (account === undefined) return fail(response, 401, "invalid_api_key")
  const words = url.searchParams.get("search") ?? ""
  const limit = Number(url.searchParams.get("limit") ?? "50")
  const page = Number(url.searchParams.get("page") ?? "1")
  const offset = (page - 1) * limit
  const { rows } = await pool.query<SummaryRow & { total: number }>(
    searchPage,
    searchParameters(account.id, words, limit, offset)
  )
  const total =
    rows[0]?.total ??
    (limit > 0 && offset === 0
      ? 0
      : ((await pool.query<{ n: number }>(searchCount, [account.id, words])).rows[0]?.n ?? 0))
  const totalPages = Math.ceil(total / limit)
  send(
    response,
    200,
    JSON.stringify({
      history: rows.map((r) => ({
        id: r.id,
        video_id: r.video_id,
        video_title: r.video_title,
        language: r.language,
        source_kind: r.source_kind,
        translated_from: r.translated_from,
        status: r.status,
        created_at: r.created_at.toISOString(),
        word_count: r.word_count,
        segment_count: r.segment_count,
        duration_seconds: r.duration_seconds,
        credits_used: r.credits_used
      })),
      count: rows.length,
      pagination: { page, limit, total, totalPages, hasMore: page < totalPages }
    })
  )
}

const credits = async (request: IncomingMessage, response: ServerResponse) => {
  const account = await authenticate(request)
  if (account === undefined) return fail(response, 401, "invalid_api_key")
  const { rows } = await pool.query<{ credits: string; held: string }>(balanceRead, [account.id])
  const balance = Number(rows[0]?.credits ?? 0)
  const held = Number(rows[0]?.held ?? 0)
  send(
    response,
    200,
    JSON.stringify({
      credits: balance - held,
      plan: account.plan,
      thumbnail_credits: 0,
      held_credits: held,
      onboarding_completed: account.onboarding_completed
    })
  )
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://bare")
  const handled =
    request.method === "POST" && url.pathname === "/api/v2/transcribe"
      ? transcribe(request, response)
      : request.method === "GET" && url.pathname === "/api/v2/transcripts"
        ? search(request, response, url)
        : request.method === "GET" && url.pathname === "/api/v2/credits"
          ? credits(request, response)
          : Promise.resolve(fail(response, 404, "not_found"))
  handled.catch((error: unknown) => {
    process.stderr.write(`bare server: ${String(error)}\n`)
    if (!response.headersSent) fail(response, 500, "internal_error")
  })
})

server.listen(Number(process.env.PORT ?? "0"), "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : 0}\n`)
})

process.on("SIGTERM", () => {
  server.close()
  void pool.end()
})
