/**
 * The `asr` kind of job: speech recognition of a platform video's audio or of an upload, run by a
 * worker. The request path checked the options against the engine, the duration against the limit
 * and the balance against the quote, then created the job `processing` with an `AsrPayload`.
 *
 * The handler reads the audio (the platform's track, or the upload's file in the blob store), runs
 * the engine and completes the job with an `asr` transcript (with `translateTo`, the translation
 * is stored beside it as a transcript in that language); `JobLifecycle.settle` stores them and
 * charges once, on completion. The price is that of the real duration and the options that
 * applied, never more than the quote the caller accepted (an upload whose audio is longer than the
 * duration it was declared and quoted with fails, uncharged). Failures that may heal (the engine or
 * the source busy, a 5xx) ask for a retry with backoff; the rest fail the job, uncharged.
 */
import { Api, Asr, Errors, Ids, Plan, Pricing, Transcript } from "@verbatim/domain"
import { DateTime, Effect, Either, Option, Schema, Stream } from "effect"
import { BlobStore } from "../ports/blob-store.js"
import type { JobRecord } from "../ports/jobs.js"
import { Secrets } from "../ports/secrets.js"
import {
  type AudioInput,
  AudioReadError,
  type Recognition,
  type SpeechError,
  SpeechToText
} from "../ports/speech-to-text.js"
import type { TranscriptRecord } from "../ports/transcripts.js"
import { Uploads } from "../ports/uploads.js"
import { type PlatformError, VideoPlatform } from "../ports/video-platform.js"
import { fromPlatformError } from "./failures.js"
import type { JobHandler, WorkResult } from "./worker.js"

/** What is recognised: a platform video, or an upload of the job's account. */
export const AsrTarget = Schema.Union(
  Schema.TaggedStruct("video", { id: Ids.VideoId }),
  Schema.TaggedStruct("upload", { id: Ids.UploadId })
)
export type AsrTarget = typeof AsrTarget.Type

/** The payload of an `asr` job (stored as JSON in the job row). */
export const AsrPayload = Schema.Struct({
  target: AsrTarget,
  /** The options that apply (already normalised). */
  asr_options: Asr.AsrOptions,
  /** The response parts asked for, as the request sent them (webhook and default job view). */
  format: Api.FormatOptions,
  /** The credits quoted when the job started: the most it can be charged. */
  quoted_credits: Schema.NonNegativeInt
})
export type AsrPayload = typeof AsrPayload.Type

/** The payload as the job row stores it. */
export const encodeAsrPayload = (payload: AsrPayload) =>
  Effect.orDie(Schema.encode(AsrPayload)(payload)).pipe(
    Effect.flatMap((encoded) => Effect.orDie(Schema.decodeUnknown(Api.FreeFormObject)(encoded)))
  )

/** Backoff of a job whose engine or source failed in a way that may heal: 15 s, 30 s, 60 s... capped at 10 min. */
export const asrRetryDelayMs = (attempts: number): number =>
  Math.min(600_000, 15_000 * 2 ** Math.max(0, attempts - 1))

const retryable = (error: PlatformError): boolean =>
  error._tag === "PlatformUnavailable" || error._tag === "PlatformBlocked"

/**
 * How much longer than its declared `duration_sec` an upload's audio may really be: 2 s or 2 %,
 * whichever is more (a declared duration is whole seconds, and some containers only estimate it).
 */
export const declaredDurationSlackMs = (declaredSeconds: number): number =>
  Math.max(2_000, Math.ceil(declaredSeconds * 20))

/**
 * An upload is quoted (and its balance checked) from the `duration_sec` its caller declared, and the
 * charge never exceeds that quote: audio really longer than declared (beyond the slack) fails the
 * job uncharged, so a short declaration cannot buy a long recognition, nor pass the upload limit.
 */
export const longerThanDeclared = (
  target: AsrTarget,
  declaredSeconds: number | null,
  heardMs: number
): string | null =>
  target._tag === "upload" &&
  declaredSeconds !== null &&
  heardMs > declaredSeconds * 1000 + declaredDurationSlackMs(declaredSeconds)
    ? `upload ${target.id} lasts ${Math.ceil(heardMs / 1000)} s, longer than the duration_sec of ${declaredSeconds} it was registered and quoted with: register it again with its real duration (nothing was charged)`
    : null

export const makeAsrHandler = Effect.gen(function* () {
  const platform = yield* VideoPlatform
  const stt = yield* SpeechToText
  const blobs = yield* BlobStore
  const uploads = yield* Uploads
  const secrets = yield* Secrets

  const retry = (job: JobRecord, error: string): WorkResult => ({
    _tag: "Retry",
    afterMs: asrRetryDelayMs(job.attempts),
    error
  })
  const failed = (error: string): WorkResult => ({ _tag: "Failed", error })

  /** The audio to recognise, or the result that ends the attempt. */
  const audioOf = (
    job: JobRecord,
    target: AsrTarget
  ): Effect.Effect<Either.Either<AudioInput, WorkResult>> => {
    if (target._tag === "video") {
      return platform.audio(target.id, { maxDurationSeconds: Plan.maxAsrDurationSeconds }).pipe(
        Effect.map(
          (audio): AudioInput => ({
            name: `video ${target.id}`,
            mimeType: audio.mimeType,
            contentLength: audio.contentLength,
            durationSeconds: audio.durationSeconds,
            bytes: Stream.mapError(
              audio.bytes,
              (error) =>
                new AudioReadError({ reason: fromPlatformError(error).message, retryable: retryable(error) })
            )
          })
        ),
        Effect.map(Either.right),
        Effect.catchAll((error) =>
          Effect.succeed(
            Either.left(
              retryable(error)
                ? retry(job, fromPlatformError(error).message)
                : failed(fromPlatformError(error).message)
            )
          )
        )
      )
    }
    return uploads.get(job.accountId, target.id).pipe(
      Effect.map(
        Option.match({
          onNone: () => Either.left(failed(`upload ${target.id} no longer exists`)),
          onSome: (upload) =>
            Either.right<AudioInput>({
              name: `upload ${upload.id}`,
              mimeType: upload.mimeType,
              contentLength: upload.sizeBytes,
              durationSeconds: upload.durationSeconds,
              bytes: Stream.mapError(
                blobs.read(upload.path),
                (error) =>
                  new AudioReadError({
                    reason:
                      error._tag === "BlobMissing"
                        ? `the file of upload ${upload.id} is not in storage`
                        : `storage failed: ${error.reason}`,
                    retryable: error._tag === "BlobStoreError"
                  })
              )
            })
        })
      ),
      Effect.catchTag("PersistenceError", () =>
        Effect.succeed(Either.left(retry(job, `could not read upload ${target.id}`)))
      )
    )
  }

  const fromSpeechError = (job: JobRecord, error: SpeechError): WorkResult => {
    switch (error._tag) {
      case "SpeechFailed":
        return error.retryable
          ? retry(job, `speech recognition (${error.engine}) failed: ${error.reason}`)
          : failed(`speech recognition (${error.engine}) failed: ${error.reason}`)
      case "SpeechUnsupported":
        return failed(error.message)
      case "SpeechUnavailable":
        return failed(`speech recognition is not available: ${error.reason}`)
    }
  }

  const completed = (
    job: JobRecord,
    payload: AsrPayload,
    options: Asr.EffectiveAsrOptions,
    audio: AudioInput,
    heard: Recognition
  ) =>
    Effect.gen(function* () {
      const tooLong = longerThanDeclared(payload.target, audio.durationSeconds, heard.durationMs)
      if (tooLong !== null) return failed(tooLong)
      const text = heard.text.trim()
      if (text.length === 0) return failed(`no speech was recognised in ${job.videoId}`)
      const durationSeconds = Math.max(1, Math.ceil(heard.durationMs / 1000))
      const price = Math.min(
        payload.quoted_credits,
        Pricing.estimate({ durationSeconds: heard.durationMs / 1000, addOns: options.billable })
          .estimated_credits
      )
      const record: TranscriptRecord = {
        id: (yield* secrets.uuid) as Ids.TranscriptId,
        accountId: job.accountId,
        videoId: job.videoId,
        videoTitle: job.videoTitle,
        channelId: null,
        language: heard.language,
        sourceKind: "asr",
        status: "succeeded",
        text,
        segments: Transcript.sortByStart(heard.segments),
        hasTimestamps: true,
        wordCount: heard.words.length > 0 ? heard.words.length : Transcript.countWords(text),
        segmentCount: heard.segments.length,
        durationSeconds,
        creditsUsed: price,
        summary: null,
        mindMap: null,
        asrIntelligence: heard.intelligence,
        createdAt: yield* DateTime.now
      }
      // A translation keeps the recognised segments' times when it splits into as many sentences;
      // otherwise it is one segment over the whole speech.
      const alongside: Array<TranscriptRecord> = []
      for (const translation of heard.translations) {
        const translated = translation.text.trim()
        if (translated.length === 0 || translation.language === heard.language) continue
        const sentences =
          translated
            .match(/[^.!?。！？]+[.!?。！？]*/gu)
            ?.map((t) => t.trim())
            .filter((t) => t.length > 0) ?? []
        const first = record.segments[0]
        const last = record.segments[record.segments.length - 1]
        const segments =
          sentences.length === record.segments.length
            ? record.segments.map(
                (segment, i) =>
                  new Transcript.Segment({ text: sentences[i] ?? "", start: segment.start, end: segment.end })
              )
            : [
                new Transcript.Segment({
                  text: translated,
                  start: first?.start ?? 0,
                  end: last?.end ?? heard.durationMs
                })
              ]
        alongside.push({
          ...record,
          id: (yield* secrets.uuid) as Ids.TranscriptId,
          language: translation.language,
          text: translated,
          segments,
          wordCount: Transcript.countWords(translated),
          segmentCount: segments.length,
          creditsUsed: 0,
          asrIntelligence: null
        })
      }
      return {
        _tag: "Completed",
        transcript: record,
        alongside,
        price,
        reason: `speech recognition of ${payload.target._tag} ${payload.target.id} (${Pricing.durationMinutes(durationSeconds)} min, ${stt.engine})`
      } satisfies WorkResult
    })

  const handler: JobHandler = (job) =>
    Effect.gen(function* () {
      const decoded = Schema.decodeUnknownEither(AsrPayload)(job.payload ?? {})
      if (Either.isLeft(decoded)) return failed("the speech recognition job's payload is invalid")
      const payload = decoded.right
      const options = Asr.normalise(payload.asr_options)
      if (Either.isLeft(options)) return failed(options.left.message)
      const audio = yield* audioOf(job, payload.target)
      if (Either.isLeft(audio)) return audio.left
      return yield* stt.transcribe(audio.right, options.right).pipe(
        Effect.flatMap((heard) => completed(job, payload, options.right, audio.right, heard)),
        Effect.catchAll((error) => Effect.succeed(fromSpeechError(job, error)))
      )
    }).pipe(
      Effect.catchAllDefect((defect) =>
        Effect.as(
          Effect.logError(`speech recognition of job ${job.id} died`, defect),
          failed("speech recognition failed unexpectedly")
        )
      ),
      Effect.withSpan("verbatim.asr.job", { attributes: { "job.id": job.id } })
    )

  return handler
})

/** The message of a refusal before any work: the engine cannot honour an option. */
export const unsupportedOption = (option: string, message: string): Errors.ApiError =>
  new Errors.ApiError({
    code: "invalid_request",
    message,
    details: { issues: [{ path: ["asr_options", option], message }] }
  })
