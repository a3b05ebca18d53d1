/**
 * `GET /api/v2/gpt/openapi.json`: an OpenAPI document fit for GPT Actions, derived from the same
 * contract as the API's own document (`OpenApi.fromApi(VerbatimApi)`), filtered and trimmed:
 *
 * - only the operations an assistant needs (`gptOperations`), each with a plain `operationId` (the
 *   name a model calls), a summary and a description of at most 300 characters (the Actions limits;
 *   parameter descriptions at most 700), and within the Actions limit of 30 operations;
 * - `servers` holds the absolute URL of the service (core's `ServiceUrl`, e.g. VERBATIM_PUBLIC_URL),
 *   since an Action calls it from elsewhere; bearer security with an API key (the REST API takes no
 *   OAuth access token: those are for the MCP endpoint);
 * - components no kept operation refers to, and tags no kept operation uses, are dropped.
 *
 * Served without authentication, like the API's own document.
 */
import {
  HttpApiBuilder,
  type HttpApp,
  HttpBody,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { basePath, VerbatimApi } from "@verbatim/contract"
import { AnswerBounds, ServiceUrl } from "@verbatim/core"
import { Effect, Option } from "effect"

/** Where GPT Actions call the API: the document's server, the API's own paths under it. */
export const gptBasePath = `${basePath}/gpt` as const

export const gptOpenApiPath = `${gptBasePath}/openapi.json` as const

const utf8 = new TextDecoder()

/**
 * An answer to a GPT Action, within core's `AnswerBounds.assistantAnswerLimit`: the same answer
 * when it fits (its bytes are at most that many characters), else with each transcript it carries
 * cut to its head and the readTranscript call for the rest (`AnswerBounds.boundedAnswer`).
 */
export const boundGptAnswer = (
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.startsWith("application/json")) return response
  if (body.body.length <= AnswerBounds.assistantAnswerLimit) return response
  const parsed = Option.liftThrowable((): unknown => JSON.parse(utf8.decode(body.body)))()
  return Option.match(parsed, {
    onNone: () => response,
    onSome: (answer) =>
      HttpServerResponse.setBody(
        response,
        HttpBody.text(JSON.stringify(AnswerBounds.boundedAnswer(answer)), body.contentType)
      )
  })
}

/** The API path a GPT Action's request names (`/api/v2/gpt/transcribe` is `/api/v2/transcribe`), if it is one. */
export const gptActionTarget = (url: string): string | undefined => {
  if (!url.startsWith(`${gptBasePath}/`)) return undefined
  const rest = url.slice(gptBasePath.length)
  return rest.startsWith("/openapi.json") || rest.startsWith("/mcp") ? undefined : `${basePath}${rest}`
}

/**
 * The GPT Actions surface: a request under `gptBasePath` is served as the API's own request (the
 * same route, checks and charges), its answer bounded for the Actions (`boundGptAnswer`). Every
 * other request goes on untouched.
 */
export const gptSurface = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const target = gptActionTarget(request.url)
    return target === undefined
      ? app
      : app.pipe(
          Effect.provideService(HttpServerRequest.HttpServerRequest, request.modify({ url: target })),
          Effect.map(boundGptAnswer)
        )
  })

/** The GPT Actions limits this document keeps to. */
export const gptLimits = {
  operations: 30,
  summary: 300,
  description: 300,
  parameterDescription: 700
} as const

interface GptOperation {
  readonly operationId: string
  readonly summary: string
  readonly description: string
}

/** The operations kept, by the contract's operation id (`group.endpoint`). */
export const gptOperations: { readonly [contractId: string]: GptOperation } = {
  "transcribe.transcribe": {
    operationId: "transcribeVideo",
    summary: "Transcribe a YouTube video (captions: 1 credit, 0 if owned)",
    description:
      "Stores the transcript. Leave mode out unless the user asked: auto and speech_to_text_only may run paid speech recognition; get the user's agreement to the price first. processing: poll getJob. A long transcript comes as its head (truncated): read the rest with readTranscript."
  },
  "videos.info": {
    operationId: "getVideoInfo",
    summary: "A video's title, duration, caption languages and each mode's price (free)",
    description:
      "Look before paying: title, channel, duration, caption languages (manual and auto), translation targets, what each mode would charge this user (owned transcripts are 0) and the default mode. Call it first; then transcribeVideo."
  },
  "transcribe.estimate": {
    operationId: "estimateCost",
    summary: "Price a transcription without starting it (free)",
    description:
      "Credits a transcription would cost: speech recognition by duration and options, or captions (1 credit, 0 if owned) with mode captions_only or auto. Use it to quote the user before any speech recognition."
  },
  "jobs.job": {
    operationId: "getJob",
    summary: "The state of a transcription job (free)",
    description:
      "processing while speech recognition runs, then completed with the transcript (its head when long: truncated, continue_with names the readTranscript call), or failed with the reason. Poll it after transcribeVideo answered processing."
  },
  "transcripts.list": {
    operationId: "listTranscripts",
    summary: "List or search the user's stored transcripts (free)",
    description:
      "Newest first, paginated. search does a full-text search over text, titles and video ids; language and date filters narrow the list."
  },
  "transcripts.get": {
    operationId: "getTranscript",
    summary: "Read a stored transcript (free)",
    description:
      "The best transcript owned unless language, source or id says which. A long one comes as its head (truncated true) with continue_with: the readTranscript call and cursor for the rest. Prefer readTranscript, which pages."
  },
  "transcriptPages.page": {
    operationId: "readTranscript",
    summary: "Read a stored transcript page by page (free; any length)",
    description:
      "Every answer stays under 90,000 characters. format text (no times, default) or timed. While has_more is true, call again with cursor set to next_cursor, until next_cursor is null; join the pages in order. max_chars sets the page size."
  },
  "transcripts.languages": {
    operationId: "getTranscriptLanguages",
    summary: "Languages of a video's stored transcripts (free)",
    description:
      "The languages the user owns a transcript of for a video, and those the platform can translate its captions into."
  },
  "transcripts.translate": {
    operationId: "translateTranscript",
    summary: "Translate a stored transcript (1 credit per 2,500 characters; 0 if owned)",
    description:
      "Send target_language (ISO 639-1). Set provider ai, or allow_ai_fallback true, unless the platform offers the language (getTranscriptLanguages). The translation is stored with the source's times; a translation already owned is free. Tell the user the price first."
  },
  "themes.get": {
    operationId: "getThemes",
    summary: "Themes of a stored transcript (free; locked until unlocked)",
    description:
      "Answers locked with credits_required until unlockThemes is called, 202 processing while detection runs, then the tldr, themes, keywords (with the segments that mention them) and quoted moments. Never charges."
  },
  "themes.unlock": {
    operationId: "unlockThemes",
    summary: "Unlock a transcript's themes (1 credit, once)",
    description:
      "Charges 1 credit the first time (0 under 50 words; free once unlocked) and waits about 25 s: the themes, or 202 processing (poll getThemes). Tell the user the price first."
  },
  "credits.credits": {
    operationId: "getCredits",
    summary: "The user's credit balance and plan (free)",
    description: "The account's credits and plan."
  },
  "batch.createBatch": {
    operationId: "createBatch",
    summary: "Transcribe many videos in the background",
    description:
      "Answers 202 with a batch_id at once; poll getBatch. Captions cost 1 credit per video not owned. Speech recognition (modes auto, speech_to_text_only) needs webhook_url and the user's agreement to its price first."
  },
  "batch.batch": {
    operationId: "getBatch",
    summary: "A batch and its per-video results (free)",
    description:
      "202 while running: each video's status. 200 once final, with each completed video's transcript (its head when long: continue_with names the readTranscript call for the rest). A finished batch can be fetched 60 times in 24 hours."
  },
  "playlists.resolve": {
    operationId: "resolvePlaylist",
    summary: "List a playlist's videos (paid plans; no credits)",
    description:
      "Send playlist_url or playlist_id, and limit (1 to 100) if the user wants fewer. Answers each video's video_id and title; nothing is transcribed. To transcribe them, pass their video_id values to createBatch once the user agrees (1 credit per video not owned)."
  },
  "channels.resolve": {
    operationId: "resolveChannel",
    summary: "List a channel's newest videos (paid plans; one of the month's channel jobs)",
    description:
      "Send channel_url, channel_id or handle, and limit if the user wants fewer. Answers the newest videos' video_id and title; nothing is transcribed. 429 when the plan's channel jobs of the month are used up. To transcribe them, pass their video_id values to createBatch."
  },
  "recommendations.videos": {
    operationId: "getRecommendedVideos",
    summary: "Suggest new videos to transcribe (free)",
    description:
      "Recent uploads of the channels the user transcribed most, none transcribed yet, newest first: limit 1 to 30 (default 6), channels 1 to 10 (default 3). Offer them to the user; transcribe the chosen ones with transcribeVideo or createBatch."
  }
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`

/** Every `#/components/schemas/...` name a value refers to. */
const refsIn = (value: unknown, into: Set<string>): Set<string> => {
  if (Array.isArray(value)) for (const entry of value) refsIn(entry, into)
  else if (isObject(value)) {
    for (const [key, entry] of Object.entries(value)) {
      if (key === "$ref" && typeof entry === "string" && entry.startsWith("#/components/schemas/")) {
        into.add(entry.slice("#/components/schemas/".length))
      } else refsIn(entry, into)
    }
  }
  return into
}

/** The schemas reachable from `roots`, following references between schemas. */
const reachable = (schemas: Json, roots: Set<string>): Json => {
  const seen = new Set<string>()
  const queue = [...roots]
  while (queue.length > 0) {
    const name = queue.pop() as string
    if (seen.has(name) || !(name in schemas)) continue
    seen.add(name)
    for (const next of refsIn(schemas[name], new Set())) queue.push(next)
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => seen.has(name)))
}

const trimParameters = (parameters: unknown): unknown =>
  Array.isArray(parameters)
    ? parameters.map((parameter) =>
        isObject(parameter) && typeof parameter.description === "string"
          ? { ...parameter, description: cut(parameter.description, gptLimits.parameterDescription) }
          : parameter
      )
    : parameters

/** The GPT Actions document of the contract, for a service reached at `serviceUrl`. */
export const gptDocument = (serviceUrl: string): Json => {
  const source = OpenApi.fromApi(VerbatimApi) as unknown as Json
  const paths = isObject(source.paths) ? source.paths : {}
  const keptPaths: Json = {}
  const usedTags = new Set<string>()
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    const kept: Json = {}
    for (const [method, operation] of Object.entries(item)) {
      if (!methods.includes(method) || !isObject(operation)) continue
      const gpt = gptOperations[String(operation.operationId)]
      if (gpt === undefined) continue
      const { description: _description, summary: _summary, ...rest } = operation
      if (Array.isArray(operation.tags)) for (const tag of operation.tags) usedTags.add(String(tag))
      kept[method] = {
        ...rest,
        operationId: gpt.operationId,
        summary: cut(gpt.summary, gptLimits.summary),
        description: cut(gpt.description, gptLimits.description),
        ...(operation.parameters === undefined ? {} : { parameters: trimParameters(operation.parameters) })
      }
    }
    if (Object.keys(kept).length > 0) keptPaths[path] = kept
  }
  const components = isObject(source.components) ? source.components : {}
  const schemas = isObject(components.schemas) ? components.schemas : {}
  const info = isObject(source.info) ? source.info : {}
  return {
    openapi: source.openapi,
    info: {
      ...info,
      title: "Verbatim transcripts",
      description:
        "Transcribe YouTube videos, then read and search the transcripts stored in the user's library. Costs are in credits; never start speech recognition without the user's agreement to its price."
    },
    servers: [{ url: `${serviceUrl.replace(/\/+$/, "")}${gptBasePath}`, description: "Verbatim" }],
    paths: keptPaths,
    components: {
      schemas: reachable(schemas, refsIn(keptPaths, new Set())),
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "A Verbatim API key, sent as Authorization: Bearer <API key> (the REST API takes API keys only; OAuth access tokens are for the MCP endpoint)"
        }
      }
    },
    security: [{ bearer: [] }],
    tags: (Array.isArray(source.tags) ? source.tags : []).filter(
      (tag) => isObject(tag) && usedTags.has(String(tag.name))
    )
  }
}

/**
 * The route of the GPT document. The service URL is core's `ServiceUrl` where the server provides
 * it (the runtime always does); without it (the contract tested alone), the request's own origin.
 */
export const GptOpenApiRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const configured = yield* Effect.serviceOption(ServiceUrl)
    const cached = Option.map(configured, gptDocument)
    yield* router.get(
      gptOpenApiPath,
      Effect.gen(function* () {
        const document = yield* Option.match(cached, {
          onSome: Effect.succeed,
          onNone: () =>
            Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
              const url = HttpServerRequest.toURL(request)
              return gptDocument(Option.match(url, { onNone: () => "", onSome: (u) => u.origin }))
            })
        })
        return HttpServerResponse.unsafeJson(document)
      })
    )
  })
)
