/**
 * The few REST calls the engine makes (upload, create, get, sentences, delete), over
 * `@effect/platform`'s `HttpClient` with the raw key in `Authorization`.
 *
 * Every answer is sorted by status before anything else: 401 and 403 mean the key is wrong
 * (`Unauthorized`), 429, 408 and 5xx are `Transient` like network errors and time-outs, any other
 * 4xx is `Refused`. Transient failures are retried with exponential backoff and jitter (capped at
 * 30 s; a longer `Retry-After` wins); the others are not. `toSpeechFailed` turns what is left into
 * the port's `SpeechFailed`.
 *
 * The upload reads the audio once. Audio up to `uploadBufferBytes` is held in memory first so its
 * upload can be retried like any call; longer audio streams straight through in one attempt, and a
 * transient failure of that attempt is `SpeechFailed` with `retryable: true` at once (the job reads
 * the source again on its next attempt).
 */
import {
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "@effect/platform"
import { type AudioInput, type AudioReadError, SpeechFailed } from "@verbatim/core"
import {
  Chunk,
  Clock,
  Data,
  Duration,
  Effect,
  Option,
  type ParseResult,
  Redacted,
  Ref,
  Schedule,
  Schema,
  Sink,
  Stream
} from "effect"
import type { AssemblyAiSettings } from "./config.js"
import type { TranscriptRequest } from "./request.js"
import { ErrorBody, SentencesResponse, type TimedText, Transcript, UploadedFile } from "./responses.js"

export const engine = "assemblyai"

/** 429, 408, 5xx, a network error or a time-out: the same call may succeed later. */
export class Transient extends Data.TaggedError("Transient")<{
  readonly call: string
  readonly reason: string
  readonly retryAfter: Option.Option<Duration.Duration>
}> {}

/** 401 or 403: AssemblyAI does not accept the key. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{
  readonly call: string
  readonly status: number
  readonly reason: string
}> {}

/** Another 4xx: AssemblyAI refuses the request as it is. */
export class Refused extends Data.TaggedError("Refused")<{
  readonly call: string
  readonly status: number
  readonly reason: string
}> {}

/** A 2xx answer this adapter cannot read. */
export class Unreadable extends Data.TaggedError("Unreadable")<{
  readonly call: string
  readonly reason: string
}> {}

export type CallError = Transient | Unauthorized | Refused | Unreadable

const maxBackoff = Duration.seconds(30)

/** `Retry-After` as seconds or an HTTP date. */
export const retryAfter = (value: string | undefined, now: number): Option.Option<Duration.Duration> => {
  if (value === undefined || value.trim() === "") return Option.none()
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return Option.some(Duration.seconds(seconds))
  const date = Date.parse(value)
  return Number.isNaN(date) ? Option.none() : Option.some(Duration.millis(Math.max(0, date - now)))
}

/**
 * The retry policy: exponential from `retryBase`, jittered, capped at 30 s, at most `retries` times,
 * never sooner than a `Retry-After`; only `Transient` failures are retried.
 */
export const retryPolicy = (settings: Pick<AssemblyAiSettings, "retries" | "retryBase">) =>
  Schedule.exponential(settings.retryBase, 2).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, maxBackoff)),
    Schedule.intersect(Schedule.recurs(settings.retries)),
    Schedule.intersect(Schedule.identity<CallError>()),
    Schedule.modifyDelay(([, error], delay) =>
      error._tag === "Transient"
        ? Option.match(error.retryAfter, {
            onNone: () => delay,
            onSome: (after) => Duration.max(delay, after)
          })
        : delay
    ),
    Schedule.whileInput((error: CallError) => error._tag === "Transient"),
    Schedule.tapInput((error: CallError) =>
      error._tag === "Transient"
        ? Effect.logDebug("assemblyai: transient failure").pipe(
            Effect.annotateLogs({ call: error.call, reason: error.reason })
          )
        : Effect.void
    )
  )

/** What a failure that survived the retries means for the job. */
export const toSpeechFailed = (error: CallError, retries: number): SpeechFailed => {
  switch (error._tag) {
    case "Unauthorized":
      return new SpeechFailed({
        engine,
        reason:
          `AssemblyAI refused the API key (HTTP ${error.status} to ${error.call}): check ASSEMBLYAI_API_KEY. ${error.reason}`.trim(),
        retryable: false
      })
    case "Refused":
      return new SpeechFailed({
        engine,
        reason: `AssemblyAI refused ${error.call} (HTTP ${error.status}): ${error.reason}`,
        retryable: false
      })
    case "Unreadable":
      return new SpeechFailed({
        engine,
        reason: `AssemblyAI's answer to ${error.call} could not be read: ${error.reason}`,
        retryable: false
      })
    case "Transient":
      return new SpeechFailed({
        engine,
        reason: `AssemblyAI is unavailable (${error.call}: ${error.reason}${retries > 0 ? `; gave up after ${retries} retries` : ""})`,
        retryable: true
      })
  }
}

const errorText = (body: string): string => {
  const decoded = Schema.decodeUnknownOption(Schema.parseJson(ErrorBody))(body)
  return Option.match(decoded, {
    onNone: () => body.trim().slice(0, 300),
    onSome: (b) => b.error
  })
}

export interface AssemblyAiClient {
  /** Uploads the audio; the URL AssemblyAI gives it. */
  readonly upload: (audio: AudioInput) => Effect.Effect<string, SpeechFailed>
  /** `POST /v2/transcript`, one attempt (the caller retries, so the transcript is always deleted). */
  readonly create: (body: TranscriptRequest) => Effect.Effect<Transcript, CallError>
  readonly get: (id: string) => Effect.Effect<Transcript, SpeechFailed>
  readonly sentences: (id: string) => Effect.Effect<ReadonlyArray<TimedText>, SpeechFailed>
  readonly remove: (id: string) => Effect.Effect<void, SpeechFailed>
  readonly policy: ReturnType<typeof retryPolicy>
}

export const makeClient = (settings: AssemblyAiSettings) =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.prependUrl(settings.baseUrl),
          HttpClientRequest.setHeader("authorization", Redacted.value(settings.apiKey)),
          HttpClientRequest.acceptJson
        )
      )
    )
    const policy = retryPolicy(settings)

    const classify = <A, I>(
      call: string,
      response: HttpClientResponse.HttpClientResponse,
      schema: Schema.Schema<A, I>
    ): Effect.Effect<A, CallError> => {
      const status = response.status
      if (status >= 200 && status < 300) {
        return response.json.pipe(
          Effect.mapError(
            (e: HttpClientError.ResponseError) =>
              new Transient({
                call,
                reason: `the body could not be read: ${e.message}`,
                retryAfter: Option.none()
              })
          ),
          Effect.flatMap((json) =>
            Schema.decodeUnknown(schema)(json).pipe(
              Effect.mapError((e: ParseResult.ParseError) => new Unreadable({ call, reason: e.message }))
            )
          )
        )
      }
      return response.text.pipe(
        Effect.orElseSucceed(() => ""),
        Effect.flatMap((body): Effect.Effect<never, CallError> => {
          const reason = errorText(body) || `HTTP ${status}`
          if (status === 401 || status === 403) return Effect.fail(new Unauthorized({ call, status, reason }))
          if (status === 429 || status === 408 || status >= 500) {
            return Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.fail(
                new Transient({
                  call,
                  reason: `HTTP ${status}${reason === `HTTP ${status}` ? "" : `: ${reason}`}`,
                  retryAfter: retryAfter(response.headers["retry-after"], now)
                })
              )
            )
          }
          return Effect.fail(new Refused({ call, status, reason }))
        })
      )
    }

    /** One attempt of a call, within `limit` when given. */
    const attempt = <A, I>(
      call: string,
      request: HttpClientRequest.HttpClientRequest,
      schema: Schema.Schema<A, I>,
      limit: Option.Option<Duration.Duration>
    ): Effect.Effect<A, CallError> => {
      // Interruptible even inside an uninterruptible region (acquiring the transcript, deleting it
      // in a finalizer), so the time limit can always end a call that hangs.
      const once = http.execute(request).pipe(
        Effect.mapError(
          (e: HttpClientError.HttpClientError) =>
            new Transient({ call, reason: e.message, retryAfter: Option.none() })
        ),
        Effect.flatMap((response) => classify(call, response, schema)),
        Effect.interruptible
      )
      return Option.match(limit, {
        onNone: () => once,
        onSome: (duration) =>
          once.pipe(
            Effect.timeoutFail({
              duration,
              onTimeout: () =>
                new Transient({
                  call,
                  reason: `no answer within ${Duration.format(duration)}`,
                  retryAfter: Option.none()
                })
            })
          )
      })
    }

    const retried = <A>(effect: Effect.Effect<A, CallError>): Effect.Effect<A, SpeechFailed> =>
      effect.pipe(
        Effect.retry(policy),
        Effect.mapError((e) => toSpeechFailed(e, e._tag === "Transient" ? settings.retries : 0))
      )

    const limit = Option.some(settings.requestTimeout)

    const upload = (audio: AudioInput): Effect.Effect<string, SpeechFailed> =>
      Effect.scoped(
        Effect.gen(function* () {
          const readFailure = yield* Ref.make(Option.none<AudioReadError>())
          const fromSource = (e: AudioReadError) =>
            new SpeechFailed({
              engine,
              reason: `the audio of ${audio.name} could not be read: ${e.reason}`,
              retryable: e.retryable
            })
          const bytes = audio.bytes.pipe(Stream.tapError((e) => Ref.set(readFailure, Option.some(e))))
          const [head, rest] = yield* Stream.peel(
            bytes,
            Sink.fold(
              { chunks: Chunk.empty<Uint8Array>(), size: 0 },
              (s) => s.size <= settings.uploadBufferBytes,
              (s, chunk: Uint8Array) => ({
                chunks: Chunk.append(s.chunks, chunk),
                size: s.size + chunk.length
              })
            )
          ).pipe(Effect.mapError(fromSource))
          const call = "POST /v2/upload"
          const request = HttpClientRequest.post("/v2/upload")
          if (head.size <= settings.uploadBufferBytes) {
            // The whole audio is in memory: the upload can be retried like any call.
            const body = new Uint8Array(head.size)
            let offset = 0
            for (const chunk of head.chunks) {
              body.set(chunk, offset)
              offset += chunk.length
            }
            const uploaded = yield* retried(
              attempt(
                call,
                HttpClientRequest.bodyUint8Array(request, body, "application/octet-stream"),
                UploadedFile,
                Option.none()
              )
            )
            return uploaded.upload_url
          }
          const streamed = HttpClientRequest.bodyStream(
            request,
            Stream.concat(Stream.fromChunk(head.chunks), rest),
            { contentType: "application/octet-stream" }
          )
          const uploaded = yield* attempt(call, streamed, UploadedFile, Option.none()).pipe(
            Effect.catchAll((e) =>
              Effect.flatMap(Ref.get(readFailure), (failure) =>
                Effect.fail(Option.match(failure, { onNone: () => toSpeechFailed(e, 0), onSome: fromSource }))
              )
            )
          )
          return uploaded.upload_url
        })
      ).pipe(
        Effect.withSpan("assemblyai.upload", { attributes: { audio: audio.name }, captureStackTrace: false })
      )

    const create = (body: TranscriptRequest) =>
      attempt(
        "POST /v2/transcript",
        HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post("/v2/transcript"), body),
        Transcript,
        limit
      )

    const get = (id: string) =>
      retried(
        attempt(`GET /v2/transcript/${id}`, HttpClientRequest.get(`/v2/transcript/${id}`), Transcript, limit)
      )

    const sentences = (id: string) =>
      retried(
        attempt(
          `GET /v2/transcript/${id}/sentences`,
          HttpClientRequest.get(`/v2/transcript/${id}/sentences`),
          SentencesResponse,
          limit
        )
      ).pipe(Effect.map((r) => r.sentences))

    const remove = (id: string) =>
      retried(
        attempt(
          `DELETE /v2/transcript/${id}`,
          HttpClientRequest.del(`/v2/transcript/${id}`),
          Schema.Unknown,
          limit
        )
      ).pipe(Effect.asVoid)

    const client: AssemblyAiClient = { upload, create, get, sentences, remove, policy }
    return client
  })
