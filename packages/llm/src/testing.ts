/**
 * A local stand-in for an OpenAI-compatible Responses API (`@verbatim/llm/testing`): a real HTTP
 * server on the loopback interface that answers `POST /v1/responses` with complete `response`
 * objects, the shape `@effect/ai-openai` decodes strictly. Tests of the model's adapters, the
 * worker and the API server run against it without the internet.
 *
 * - What the model "says" is `respond(request)`: `{ text }` is a completed response whose output
 *   text is `text` (for structured output, `json(value)` encodes it); `{ status, body }` is an
 *   error answer (429, 500, 401...); `{ delayMs, reply }` answers `reply` after a wait.
 * - Faults can be scripted: `inject(count, reply)` makes the next `count` requests get `reply`
 *   (`failures(n)` is n answers of 500), before `respond` is asked.
 * - With `apiKey`, a request without `Authorization: Bearer <apiKey>` gets 401, as at OpenAI.
 * - Every request is recorded (`requests`): its body, the system and user texts and the model.
 *
 * ```ts
 * const layer = layerWithStandIn({ respond: (r) => json({ echo: r.prompt }) })
 * // Layer<Llm | LlmStandIn>; `yield* LlmStandIn` gives the server's records and `inject`
 * const server = yield* standIn({ respond })   // by hand, Scope-bound
 * const llm = Llm.layer(server.settings())     // Layer<Llm> pointed at it
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Context, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { type LlmSettings, settings as makeSettings } from "./config.js"
import { type Llm, layer as llmLayer } from "./model.js"

/** How the stand-in answers one request. */
export type Reply =
  | { readonly text: string }
  | { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly delayMs: number; readonly reply: Reply }

/** One request the stand-in received. */
export interface ResponsesRequest {
  readonly body: Record<string, unknown>
  readonly model: string
  /** The system (or developer) messages, joined. */
  readonly system: string
  /** The user messages' text parts, joined. */
  readonly prompt: string
  readonly authorization: string | null
}

export interface StandInOptions {
  readonly respond: (request: ResponsesRequest) => Reply | Promise<Reply>
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string | undefined
}

export interface StandIn {
  /** The base URL to configure (`VERBATIM_AI_BASE_URL`): `http://127.0.0.1:<port>/v1`. */
  readonly url: string
  readonly requests: ReadonlyArray<ResponsesRequest>
  /** The next `count` requests get `reply` instead of `respond`'s answer. */
  readonly inject: (count: number, reply: Reply) => void
  /** Settings pointed at this server (model `stand-in`, key `apiKey` when set). */
  readonly settings: (overrides?: Partial<Omit<LlmSettings, "baseUrl">>) => LlmSettings
}

/** A reply whose text is `value` as JSON (what structured output decodes). */
export const json = (value: unknown): Reply => ({ text: JSON.stringify(value) })

/** `count` answers of 500, for `inject`. */
export const serverError: Reply = {
  status: 500,
  body: { error: { message: "stand-in: scripted failure", type: "server_error", code: null, param: null } }
}

let responses = 0

/** A complete `response` object as OpenAI's Responses API returns it. */
export const completeResponse = (text: string, model: string) => {
  const n = ++responses
  return {
    id: `resp_standin_${n}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: [
      {
        id: `msg_standin_${n}`,
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }]
      }
    ],
    output_text: text,
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: 1,
    top_p: 1,
    tool_choice: "auto",
    tools: [],
    metadata: {},
    text: { format: { type: "text" } },
    truncation: "disabled",
    usage: {
      input_tokens: 1,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: Math.max(1, Math.ceil(text.length / 4)),
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1 + Math.max(1, Math.ceil(text.length / 4))
    }
  }
}

const texts = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .map((part: { readonly text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
    .join("")
}

const parse = (body: Record<string, unknown>, authorization: string | null): ResponsesRequest => {
  const input = Array.isArray(body.input) ? (body.input as Array<{ role?: string; content?: unknown }>) : []
  const of = (roles: ReadonlyArray<string>) =>
    input
      .filter((m) => roles.includes(m.role ?? ""))
      .map((m) => texts(m.content))
      .join("\n")
  return {
    body,
    model: typeof body.model === "string" ? body.model : "",
    system: [typeof body.instructions === "string" ? body.instructions : "", of(["system", "developer"])]
      .filter((t) => t.length > 0)
      .join("\n"),
    prompt: typeof body.input === "string" ? body.input : of(["user"]),
    authorization
  }
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const send = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
) => {
  if (response.destroyed) return
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

const error = (message: string, type: string) => ({
  error: { message, type, code: null, param: null }
})

/** Starts a stand-in on a free loopback port; closed with the scope. */
export const standIn = (options: StandInOptions): Effect.Effect<StandIn, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: ReturnType<typeof createServer>; readonly handle: StandIn }>((resume) => {
      const requests: Array<ResponsesRequest> = []
      const injected: Array<Reply> = []
      const answer = async (reply: Reply, model: string, response: ServerResponse): Promise<void> => {
        if ("delayMs" in reply) {
          await new Promise((r) => setTimeout(r, reply.delayMs))
          return answer(reply.reply, model, response)
        }
        if ("text" in reply) return send(response, 200, completeResponse(reply.text, model))
        return send(
          response,
          reply.status,
          reply.body ?? error("stand-in error", "server_error"),
          reply.headers
        )
      }
      const server = createServer((request, response) => {
        void (async () => {
          const path = (request.url ?? "").split("?")[0]
          if (request.method !== "POST" || path !== "/v1/responses") {
            return send(response, 404, error(`no route ${request.method} ${path}`, "invalid_request_error"))
          }
          const authorization = request.headers.authorization ?? null
          if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) {
            return send(response, 401, error("Incorrect API key provided", "invalid_request_error"))
          }
          let body: Record<string, unknown>
          try {
            body = JSON.parse(await readBody(request)) as Record<string, unknown>
          } catch {
            return send(response, 400, error("the body is not JSON", "invalid_request_error"))
          }
          const parsed = parse(body, authorization)
          requests.push(parsed)
          const scripted = injected.shift()
          const reply = scripted ?? (await options.respond(parsed))
          return answer(reply, parsed.model, response)
        })().catch((cause: unknown) => send(response, 500, error(String(cause), "server_error")))
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        const url = `http://127.0.0.1:${port}/v1`
        resume(
          Effect.succeed({
            server,
            handle: {
              url,
              requests,
              inject: (count, reply) => {
                for (let i = 0; i < count; i++) injected.push(reply)
              },
              settings: (overrides) =>
                makeSettings({
                  model: "stand-in",
                  ...overrides,
                  baseUrl: url,
                  ...(options.apiKey === undefined || overrides?.apiKey !== undefined
                    ? {}
                    : { apiKey: redacted(options.apiKey) })
                })
            }
          })
        )
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ handle }) => handle))

const redacted = (key: string) => Option.some(Redacted.make(key))

/** The stand-in's records, in a layer built with `layerWithStandIn`. */
export class LlmStandIn extends Context.Tag("@verbatim/llm/LlmStandIn")<LlmStandIn, StandIn>() {}

/** A fresh stand-in and `Llm` pointed at it (settings overridable: retries, budget...). */
export const layerWithStandIn = (
  options: StandInOptions,
  overrides?: Partial<Omit<LlmSettings, "baseUrl">>
): Layer.Layer<Llm | LlmStandIn> =>
  Layer.unwrapScoped(
    Effect.map(standIn(options), (server) =>
      Layer.merge(Layer.succeed(LlmStandIn, server), llmLayer(server.settings(overrides)))
    )
  )

/**
 * A `respond` that translates like the AI translator expects: the user message is the chunk's
 * `[{ i, text }]`, the answer `{ segments: [{ i, text: translate(text, target) }] }`; the target
 * is read from the system text. Default `translate`: `[<target>] <text>`.
 */
export const translating =
  (translate: (text: string, target: string) => string = (text, target) => `[${target}] ${text}`) =>
  (request: ResponsesRequest): Reply => {
    const target = /into the language with code "([^"]+)"/.exec(request.system)?.[1] ?? "?"
    const items = JSON.parse(request.prompt) as ReadonlyArray<{ readonly i: number; readonly text: string }>
    return json({ segments: items.map((item) => ({ i: item.i, text: translate(item.text, target) })) })
  }

/**
 * A `respond` that answers like the AI themes engine expects: the user message is the transcript's
 * `[{ i, text }]`; the answer names one theme whose keyword is the longest word of the first
 * segment, mentioned by every segment that contains it, and one moment on the first two segments.
 * `shift` moves every segment index (a reply that does not fit, for tests of refusals).
 */
export const themeing =
  (shift = 0) =>
  (request: ResponsesRequest): Reply => {
    const items = JSON.parse(request.prompt) as ReadonlyArray<{ readonly i: number; readonly text: string }>
    const words = (items[0]?.text ?? "").toLowerCase().match(/\p{L}+/gu) ?? []
    const term = [...words].sort((a, b) => b.length - a.length || a.localeCompare(b))[0] ?? "talk"
    const mentioning = items
      .filter((item) => item.text.toLowerCase().includes(term))
      .map((item) => item.i + shift)
    return json({
      tldr: `A talk about ${term}.`,
      themes: [
        {
          name: term,
          summary: `What the speaker says about ${term}.`,
          keywords: [
            { term, aliases: [], definition: `The ${term} the talk is about.`, segments: mentioning }
          ]
        }
      ],
      moments: [
        {
          theme: 0,
          label: `On ${term}`,
          segment_start: shift,
          segment_end: Math.min(1, items.length - 1) + shift
        }
      ]
    })
  }
