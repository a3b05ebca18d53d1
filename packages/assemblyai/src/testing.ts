/**
 * A local stand-in for AssemblyAI (`@verbatim/assemblyai/testing`): a real HTTP server on the
 * loopback interface that answers the calls the engine makes the way AssemblyAI does, so tests of
 * the engine, the worker and the API server run without the internet.
 *
 * - Every call needs `Authorization: <apiKey>` (raw, no `Bearer`); otherwise 401.
 * - `POST /v2/upload` keeps the bytes and answers an `upload_url`.
 * - `POST /v2/transcript` checks the body against the adapter's `TranscriptRequest` schema (an
 *   unknown field is a 400, as at AssemblyAI) and creates a job that goes queued → processing →
 *   completed (or error) over `pollsUntilDone` polls of `GET /v2/transcript/{id}`.
 * - Recognition is `recognise(bytes)`: the text "heard" in the uploaded bytes. Its words are spread
 *   evenly over the duration read from the WAV header; bytes that are not a WAV file end with
 *   `status: "error"` and AssemblyAI's transcoding message. The request's options shape the result
 *   (filler words, punctuation, formatting, profanity, PII, speaker labels, channels, speaker
 *   names), and every intelligence feature the body asks for is filled.
 * - `GET /v2/transcript/{id}/sentences` and `DELETE /v2/transcript/{id}` work as at AssemblyAI.
 * - Faults can be injected (`inject` or `faults`): N answers with a status (429 with `Retry-After`,
 *   500, 401, ...) or N slow answers, on one route or any.
 * - Every request is recorded (`requests`, `transcriptRequests`, `deleted`).
 *
 * ```ts
 * // in an Effect test: the engine over a fresh stand-in
 * const layer = layerWithStandIn({ recognise: () => "Hello there, general Kenobi." })
 * // Layer<SpeechToText | AssemblyAiStandIn>; `yield* AssemblyAiStandIn` gives the server's records
 *
 * // or by hand
 * const server = yield* standIn({ recognise })     // Scope-bound; closed with the scope
 * const engine = standInEngine(server)              // Layer<SpeechToText>
 * ```
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { AudioInput, SpeechToText } from "@verbatim/core"
import { Context, Duration, Effect, Either, Layer, ParseResult, type Scope, Stream } from "effect"
import { type AssemblyAiSettings, settings as makeSettings } from "./config.js"
import * as AssemblyAiSpeechToText from "./engine.js"
import { TranscriptRequest } from "./request.js"

// ---------------------------------------------------------------------------------------------
// Audio for tests
// ---------------------------------------------------------------------------------------------

export interface WavOptions {
  readonly durationMs: number
  /** Default 16000. */
  readonly sampleRate?: number
  /** Default 1. */
  readonly channels?: number
  /** Low-level pseudo-random noise instead of silence. */
  readonly noise?: boolean
}

/** A valid 16-bit PCM WAV file of this duration (silence, or quiet noise). */
export const wav = (options: WavOptions): Uint8Array => {
  const sampleRate = options.sampleRate ?? 16_000
  const channels = options.channels ?? 1
  const blockAlign = channels * 2
  const frames = Math.round((options.durationMs / 1000) * sampleRate)
  const dataSize = frames * blockAlign
  const bytes = new Uint8Array(44 + dataSize)
  const view = new DataView(bytes.buffer)
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[offset + i] = text.charCodeAt(i)
  }
  ascii(0, "RIFF")
  view.setUint32(4, 36 + dataSize, true)
  ascii(8, "WAVE")
  ascii(12, "fmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, channels, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * blockAlign, true)
  view.setUint16(32, blockAlign, true)
  view.setUint16(34, 16, true)
  ascii(36, "data")
  view.setUint32(40, dataSize, true)
  if (options.noise === true) {
    let seed = 12345
    for (let i = 0; i < dataSize / 2; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      view.setInt16(44 + i * 2, (seed % 600) - 300, true)
    }
  }
  return bytes
}

export interface WavInfo {
  readonly channels: number
  readonly sampleRate: number
  readonly durationMs: number
}

/** The format and duration of a PCM WAV file, or undefined when the bytes are not one. */
export const readWav = (bytes: Uint8Array): WavInfo | undefined => {
  if (bytes.length < 44) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const text = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4))
  if (text(0) !== "RIFF" || text(8) !== "WAVE") return undefined
  let offset = 12
  let format: { channels: number; sampleRate: number; byteRate: number } | undefined
  while (offset + 8 <= bytes.length) {
    const id = text(offset)
    const size = view.getUint32(offset + 4, true)
    const body = offset + 8
    if (id === "fmt " && body + 16 <= bytes.length) {
      format = {
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        byteRate: view.getUint32(body + 8, true)
      }
    } else if (id === "data") {
      if (format === undefined || format.byteRate === 0 || format.channels === 0) return undefined
      const dataSize = Math.min(size, bytes.length - body)
      return {
        channels: format.channels,
        sampleRate: format.sampleRate,
        durationMs: Math.round((dataSize / format.byteRate) * 1000)
      }
    }
    offset = body + size + (size % 2)
  }
  return undefined
}

/** An `AudioInput` reading these bytes (in 64 KiB chunks), fresh for each call. */
export const audioInput = (
  bytes: Uint8Array,
  options: {
    readonly name?: string
    readonly mimeType?: string
    readonly durationSeconds?: number | null
  } = {}
): AudioInput => {
  const chunks: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536))
  return {
    name: options.name ?? "test audio",
    mimeType: options.mimeType ?? "audio/wav",
    contentLength: bytes.length,
    durationSeconds: options.durationSeconds ?? readWav(bytes)?.durationMs ?? null,
    bytes: Stream.fromIterable(chunks)
  }
}

// ---------------------------------------------------------------------------------------------
// The stand-in
// ---------------------------------------------------------------------------------------------

/** What the stand-in "hears": a text, and optionally the language it reports (AssemblyAI's code). */
export interface StandInRecognition {
  readonly text: string
  readonly languageCode?: string
}

export type Recognise = (audio: Uint8Array) => string | StandInRecognition

export type Route = "upload" | "create" | "get" | "sentences" | "delete"

export type Fault =
  /** Answer `status` (with `Retry-After` when given) instead of doing the work, `times` times. */
  | {
      readonly kind: "status"
      readonly status: number
      readonly times?: number
      readonly retryAfterSeconds?: number
      readonly error?: string
      readonly on?: Route | "any"
    }
  /** Wait `ms` before answering, `times` times. */
  | { readonly kind: "delay"; readonly ms: number; readonly times?: number; readonly on?: Route | "any" }

export interface StandInOptions {
  /** The key it accepts. Default `stand-in-key`. */
  readonly apiKey?: string
  /** Default: every upload says `defaultSentence`. */
  readonly recognise?: Recognise
  /** Polls answered `queued` or `processing` before the job ends. Default 2. */
  readonly pollsUntilDone?: number
  /** The `language_code` reported with `language_detection`. Default `en`. */
  readonly detectedLanguage?: string
  readonly faults?: ReadonlyArray<Fault>
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly route: Route | null
  readonly authorization: string | null
  readonly contentType: string | null
  /** The parsed JSON body, or the number of bytes of an upload, or null. */
  readonly body: unknown
  /** The status answered. */
  readonly status: number
}

export interface StandIn {
  /** Its origin, e.g. `http://127.0.0.1:41234` (the engine's `baseUrl`). */
  readonly url: string
  readonly apiKey: string
  /** Every request, in order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The accepted bodies of `POST /v2/transcript`, in order. */
  readonly transcriptRequests: ReadonlyArray<TranscriptRequest>
  /** The transcript ids deleted with `DELETE /v2/transcript/{id}`, in order. */
  readonly deleted: ReadonlyArray<string>
  /** The ids of transcripts created and not deleted. */
  readonly live: () => ReadonlyArray<string>
  /** Adds faults, applied before any given earlier that are used up. */
  readonly inject: (...faults: ReadonlyArray<Fault>) => void
  /** Replaces the recognition. */
  readonly recognise: (recognise: Recognise) => void
  /** Forgets the records and the faults. */
  readonly reset: () => void
  readonly close: () => Promise<void>
}

export const defaultSentence = "The quick brown fox jumps over the lazy dog."

/** AssemblyAI's message for bytes that are not audio. */
export const transcodingError =
  "Transcoding failed. File does not appear to contain audio. File type is application/octet-stream (data)."

const fillers = new Set(["um", "uh", "hmm", "mhm", "uh-huh", "ah", "huh", "hm", "m"])
const profane = new Set(["damn", "hell", "crap"])
const bare = (token: string) => token.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, "")

interface Word {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly confidence: number
  readonly speaker: string | null
  readonly channel: string | null
}

interface Timed {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly confidence: number
  readonly speaker: string | null
  readonly channel: string | null
  readonly words: ReadonlyArray<Word>
}

interface Job {
  readonly id: string
  readonly body: TranscriptRequest
  readonly audio: Uint8Array | undefined
  polls: number
  deleted: boolean
  result: Record<string, unknown> | undefined
  sentences: ReadonlyArray<Timed>
}

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/** The words the request's options leave of a recognised text. */
const shape = (text: string, body: TranscriptRequest): ReadonlyArray<string> =>
  text
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .filter((t) => body.disfluencies === true || !fillers.has(bare(t)))
    .map((t) => (body.filter_profanity === true && profane.has(bare(t)) ? `${t[0] ?? ""}***` : t))
    .map((t) => {
      if (body.redact_pii !== true || !/[\d@]/.test(t)) return t
      const kind = t.includes("@") ? "[EMAIL_ADDRESS]" : "[NUMBER_SEQUENCE]"
      return body.redact_pii_sub === "entity_type" ? kind : "#".repeat(t.length)
    })
    .map((t) => (body.punctuate === false ? t.replace(/[.,!?;:]/g, "") : t))
    .map((t) => (body.format_text === false ? t.toLowerCase() : t))
    .filter((t) => t.length > 0)

/** Writes the digits of a phone number into a custom-formatting pattern such as `(xxx)xxx-xxxx`. */
const formatPhone = (digits: string, pattern: string): string | undefined => {
  const slots = pattern.split("x").length - 1
  if (slots !== digits.length) return undefined
  let i = 0
  return pattern.replace(/x/g, () => digits[i++] ?? "")
}

const completed = (
  job: Job,
  heard: StandInRecognition,
  info: { readonly durationMs: number; readonly channels: number },
  detected: string
) => {
  const body = job.body
  const tokens = shape(heard.text, body)
  const slot = tokens.length === 0 ? 0 : info.durationMs / tokens.length
  const timedWords: Array<Word> = tokens.map((text, i) => ({
    text,
    start: Math.round(i * slot),
    end: Math.round(i * slot + slot * 0.9),
    confidence: 0.95,
    speaker: null,
    channel: null
  }))
  // Sentences: up to sentence-final punctuation.
  const sentenceWords: Array<Array<Word>> = []
  let current: Array<Word> = []
  for (const word of timedWords) {
    current.push(word)
    if (/[.!?]$/.test(word.text)) {
      sentenceWords.push(current)
      current = []
    }
  }
  if (current.length > 0) sentenceWords.push(current)
  const speakerCount = Math.max(1, body.speakers_expected ?? body.speaker_options?.min_speakers_expected ?? 1)
  const knownNames = body.speech_understanding?.request.speaker_identification?.known_values ?? []
  const mapping: Record<string, string> = {}
  if (body.speech_understanding?.request.speaker_identification !== undefined) {
    for (let i = 0; i < speakerCount; i++) {
      const letter = letters[i] ?? "Z"
      mapping[letter] = knownNames[i] ?? `Speaker ${i + 1}`
    }
  }
  const speakerOf = (i: number): string | null => {
    if (body.multichannel === true) return String((i % info.channels) + 1)
    if (body.speaker_labels !== true) return null
    const letter = letters[i % speakerCount] ?? "Z"
    return mapping[letter] ?? letter
  }
  const sentences: ReadonlyArray<Timed> = sentenceWords.map((words, i) => {
    const speaker = speakerOf(i)
    const channel = body.multichannel === true ? speaker : null
    const withSpeaker = words.map((w) => ({ ...w, speaker, channel }))
    return {
      text: words.map((w) => w.text).join(" "),
      start: words[0]?.start ?? 0,
      end: words.at(-1)?.end ?? 0,
      confidence: 0.95,
      speaker,
      channel,
      words: withSpeaker
    }
  })
  job.sentences = sentences
  const words = sentences.flatMap((s) => s.words)
  const text = tokens.join(" ")
  const span = { start: 0, end: words.at(-1)?.end ?? 0 }
  const requested = body.speech_understanding?.request
  // Custom formatting: a number of 10 or 11 digits is a phone number, written in the requested pattern.
  const phonePattern = requested?.custom_formatting?.phone_number
  const formatMapping: Record<string, string> = {}
  if (phonePattern !== undefined) {
    for (const token of tokens) {
      const number = token.replace(/[.,!?;:]+$/, "")
      const formatted = /^\d{10,11}$/.test(number) ? formatPhone(number, phonePattern) : undefined
      if (formatted !== undefined) formatMapping[number] = formatted
    }
  }
  const formattedText = Object.entries(formatMapping).reduce(
    (acc, [from, to]) => acc.split(from).join(to),
    text
  )
  const language =
    heard.languageCode ?? body.language_code ?? (body.language_detection === true ? detected : "en_us")
  const capitalised = words.filter((w, i) => i > 0 && /^\p{Lu}/u.test(w.text))
  const longest = [...new Set(words.map((w) => bare(w.text)).filter((w) => w.length > 3))]
    .sort((a, b) => b.length - a.length)
    .slice(0, 3)
  const topic = "Hobbies&Interests"
  job.result = {
    status: "completed",
    text,
    words,
    utterances: body.speaker_labels === true || body.multichannel === true ? sentences : null,
    language_code: language,
    language_confidence: body.language_detection === true ? 0.97 : null,
    audio_duration: Math.round(info.durationMs / 1000),
    audio_channels: body.multichannel === true ? info.channels : undefined,
    confidence: 0.95,
    speech_model_used: body.speech_models?.[0] ?? "universal-3-5-pro",
    summary:
      body.summarization === true
        ? body.summary_type === "bullets" || body.summary_type === "bullets_verbose"
          ? `- ${sentences[0]?.text ?? text}`
          : (sentences[0]?.text ?? text)
        : null,
    iab_categories_result:
      body.iab_categories === true
        ? {
            status: "success",
            results: sentences.map((s) => ({
              text: s.text,
              labels: [{ relevance: 0.9, label: topic }],
              timestamp: { start: s.start, end: s.end }
            })),
            summary: { [topic]: 0.9 }
          }
        : null,
    content_safety_labels:
      body.content_safety === true
        ? { status: "success", results: [], summary: {}, severity_score_summary: {} }
        : null,
    sentiment_analysis_results:
      body.sentiment_analysis === true
        ? sentences.map((s) => ({
            text: s.text,
            start: s.start,
            end: s.end,
            sentiment: "NEUTRAL",
            confidence: 0.9,
            speaker: s.speaker,
            channel: s.channel
          }))
        : null,
    entities:
      body.entity_detection === true
        ? capitalised.map((w) => ({
            entity_type: "person_name",
            text: bare(w.text),
            start: w.start,
            end: w.end
          }))
        : null,
    auto_highlights_result:
      body.auto_highlights === true
        ? {
            status: "success",
            results: longest.map((t, i) => ({ text: t, count: 1, rank: 0.9 - i * 0.1, timestamps: [span] }))
          }
        : null,
    chapters:
      body.auto_chapters === true
        ? [{ summary: text, headline: sentences[0]?.text ?? text, gist: longest[0] ?? "", ...span }]
        : null,
    translated_texts:
      requested?.translation === undefined
        ? undefined
        : Object.fromEntries(
            requested.translation.target_languages.map((code) => [code, `[${code}] ${text}`])
          ),
    speech_understanding:
      requested === undefined
        ? undefined
        : {
            request: requested,
            response: {
              ...(requested.translation === undefined ? {} : { translation: { status: "success" } }),
              ...(requested.speaker_identification === undefined
                ? {}
                : { speaker_identification: { status: "success", mapping } }),
              ...(requested.custom_formatting === undefined
                ? {}
                : {
                    custom_formatting: {
                      status: "success",
                      mapping: formatMapping,
                      formatted_text: formattedText
                    }
                  })
            }
          }
  }
}

const echo = (job: Job): Record<string, unknown> => {
  const { audio_url, ...params } = job.body
  return {
    id: job.id,
    audio_url: job.deleted ? "http://deleted_by_user" : audio_url,
    status: "queued",
    text: null,
    words: null,
    utterances: null,
    error: undefined,
    ...params,
    ...(job.deleted ? { text: "Deleted by user." } : {})
  }
}

const readBody = (request: IncomingMessage): Promise<Uint8Array> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))))
    request.on("error", () => resolve(new Uint8Array(Buffer.concat(chunks))))
  })

const send = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
): void => {
  if (response.destroyed || response.writableEnded) return
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  response.end(text)
}

const routeOf = (method: string, path: string): { readonly route: Route; readonly id?: string } | null => {
  if (method === "POST" && path === "/v2/upload") return { route: "upload" }
  if (method === "POST" && path === "/v2/transcript") return { route: "create" }
  const sentences = /^\/v2\/transcript\/([^/]+)\/sentences$/.exec(path)
  if (method === "GET" && sentences?.[1] !== undefined) return { route: "sentences", id: sentences[1] }
  const one = /^\/v2\/transcript\/([^/]+)$/.exec(path)
  if (one?.[1] !== undefined && method === "GET") return { route: "get", id: one[1] }
  if (one?.[1] !== undefined && method === "DELETE") return { route: "delete", id: one[1] }
  return null
}

const decodeRequest = ParseResult.decodeUnknownEither(TranscriptRequest, { onExcessProperty: "error" })

/** Starts a stand-in on 127.0.0.1 and a free port. */
export const startStandIn = (options: StandInOptions = {}): Promise<StandIn> => {
  const apiKey = options.apiKey ?? "stand-in-key"
  const pollsUntilDone = Math.max(0, options.pollsUntilDone ?? 2)
  const detected = options.detectedLanguage ?? "en"
  let recognise: Recognise = options.recognise ?? (() => defaultSentence)
  const requests: Array<RecordedRequest> = []
  const transcriptRequests: Array<TranscriptRequest> = []
  const deleted: Array<string> = []
  const uploads = new Map<string, Uint8Array>()
  const jobs = new Map<string, Job>()
  let faults: Array<{ fault: Fault; left: number }> = (options.faults ?? []).map((fault) => ({
    fault,
    left: fault.times ?? 1
  }))
  let origin = ""

  const finish = (job: Job): void => {
    if (job.result !== undefined) return
    const audio = job.audio
    const info = audio === undefined ? undefined : readWav(audio)
    if (audio === undefined) {
      job.result = {
        status: "error",
        error: `Download error, unable to download ${job.body.audio_url}. Please make sure the file exists and is accessible from the internet.`
      }
      return
    }
    if (info === undefined) {
      job.result = { status: "error", error: transcodingError }
      return
    }
    const heard = recognise(audio)
    completed(job, typeof heard === "string" ? { text: heard } : heard, info, detected)
  }

  const view = (job: Job): Record<string, unknown> => {
    if (job.deleted) return { ...echo(job), ...(job.result ?? {}), text: "Deleted by user.", words: null }
    if (job.polls <= pollsUntilDone) {
      return { ...echo(job), status: job.polls <= Math.ceil(pollsUntilDone / 2) ? "queued" : "processing" }
    }
    finish(job)
    return { ...echo(job), ...job.result }
  }

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? "GET"
    const path = new URL(request.url ?? "/", "http://stand-in").pathname
    const matched = routeOf(method, path)
    const raw = await readBody(request)
    const contentType = request.headers["content-type"] ?? null
    let parsed: unknown = null
    if (matched?.route === "upload") parsed = raw.length
    else if (raw.length > 0) {
      try {
        parsed = JSON.parse(Buffer.from(raw).toString("utf8"))
      } catch {
        parsed = Buffer.from(raw).toString("utf8")
      }
    }
    const record = (status: number) =>
      requests.push({
        method,
        path,
        route: matched?.route ?? null,
        authorization: request.headers.authorization ?? null,
        contentType,
        body: parsed,
        status
      })
    const answer = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) => {
      record(status)
      send(response, status, body, headers)
    }

    if (request.headers.authorization !== apiKey) {
      answer(401, { error: "Authentication error, API token missing/invalid" })
      return
    }
    if (matched === null) {
      answer(404, { error: "Not found" })
      return
    }
    const entry = faults.find(
      ({ fault, left }) =>
        left > 0 && (fault.on === undefined || fault.on === "any" || fault.on === matched.route)
    )
    if (entry !== undefined) {
      entry.left -= 1
      const fault = entry.fault
      if (fault.kind === "delay") {
        await new Promise((resolve) => setTimeout(resolve, fault.ms))
      } else {
        answer(
          fault.status,
          {
            error:
              fault.error ?? (fault.status === 429 ? "Too Many Requests" : `Stand-in fault ${fault.status}`)
          },
          fault.retryAfterSeconds === undefined ? {} : { "retry-after": String(fault.retryAfterSeconds) }
        )
        return
      }
    }

    switch (matched.route) {
      case "upload": {
        const id = randomUUID()
        const url = `${origin}/cdn/upload/${id}`
        uploads.set(url, raw)
        answer(200, { upload_url: url })
        return
      }
      case "create": {
        const decoded = decodeRequest(parsed)
        if (Either.isLeft(decoded)) {
          answer(400, { error: ParseResult.TreeFormatter.formatIssueSync(decoded.left) })
          return
        }
        const body = decoded.right
        transcriptRequests.push(body)
        const job: Job = {
          id: randomUUID(),
          body,
          audio: uploads.get(body.audio_url),
          polls: 0,
          deleted: false,
          result: undefined,
          sentences: []
        }
        jobs.set(job.id, job)
        answer(200, echo(job))
        return
      }
      case "get":
      case "sentences":
      case "delete": {
        const job = jobs.get(matched.id ?? "")
        if (job === undefined) {
          answer(404, { error: "Transcript not found" })
          return
        }
        if (matched.route === "get") {
          job.polls += 1
          answer(200, view(job))
          return
        }
        if (matched.route === "sentences") {
          if (job.result?.status !== "completed") {
            answer(400, { error: "Transcript is not completed" })
            return
          }
          answer(200, {
            id: job.id,
            confidence: 0.95,
            audio_duration: job.result.audio_duration,
            sentences: job.deleted ? [] : job.sentences
          })
          return
        }
        job.deleted = true
        deleted.push(job.id)
        answer(200, view(job))
        return
      }
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((cause: unknown) =>
      send(response, 500, {
        error: `stand-in failure: ${cause instanceof Error ? cause.message : String(cause)}`
      })
    )
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      origin = `http://127.0.0.1:${port}`
      resolve({
        url: origin,
        apiKey,
        requests,
        transcriptRequests,
        deleted,
        live: () => [...jobs.values()].filter((j) => !j.deleted).map((j) => j.id),
        inject: (...added) => {
          faults = [
            ...added.map((fault) => ({ fault, left: fault.times ?? 1 })),
            ...faults.filter((f) => f.left > 0)
          ]
        },
        recognise: (next) => {
          recognise = next
        },
        reset: () => {
          requests.length = 0
          transcriptRequests.length = 0
          deleted.length = 0
          faults = []
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}

/** A stand-in for the life of the scope. */
export const standIn = (options: StandInOptions = {}): Effect.Effect<StandIn, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startStandIn(options)),
    (server) => Effect.promise(() => server.close())
  )

/** The running stand-in, for tests that use `layerWithStandIn`. */
export class AssemblyAiStandIn extends Context.Tag("@verbatim/assemblyai/AssemblyAiStandIn")<
  AssemblyAiStandIn,
  StandIn
>() {
  static readonly layer = (options: StandInOptions = {}): Layer.Layer<AssemblyAiStandIn> =>
    Layer.scoped(AssemblyAiStandIn, standIn(options))
}

/** Settings aimed at the stand-in, with quick polls and retries (override any). */
export const standInSettings = (
  server: Pick<StandIn, "url" | "apiKey">,
  overrides: Partial<Omit<AssemblyAiSettings, "apiKey" | "baseUrl">> = {}
): AssemblyAiSettings =>
  makeSettings({
    apiKey: server.apiKey,
    baseUrl: server.url,
    pollInterval: Duration.millis(10),
    timeout: Duration.seconds(20),
    requestTimeout: Duration.seconds(2),
    retries: 3,
    retryBase: Duration.millis(5),
    ...overrides
  })

/** The engine talking to this stand-in. */
export const standInEngine = (
  server: Pick<StandIn, "url" | "apiKey">,
  overrides: Partial<Omit<AssemblyAiSettings, "apiKey" | "baseUrl">> = {}
): Layer.Layer<SpeechToText> => AssemblyAiSpeechToText.layer(standInSettings(server, overrides))

/** A fresh stand-in and the engine talking to it. */
export const layerWithStandIn = (
  options: StandInOptions = {},
  overrides: Partial<Omit<AssemblyAiSettings, "apiKey" | "baseUrl">> = {}
): Layer.Layer<SpeechToText | AssemblyAiStandIn> =>
  Layer.unwrapEffect(Effect.map(AssemblyAiStandIn, (server) => standInEngine(server, overrides))).pipe(
    Layer.provideMerge(AssemblyAiStandIn.layer(options))
  )
