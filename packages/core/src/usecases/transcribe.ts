/**
 * POST /transcribe, captions path (DESIGN decisions 1, 2, 4, 5, 9):
 *
 * 1. Resolve the mode (with the account default) and the ASR options; parse the video reference.
 * 2. Ask the platform for the video and choose a caption track for the mode and language.
 * 3. Serve captions: an owned transcript of that video, language and source again for 0 credits;
 *    otherwise check the balance, fetch the captions, and store the transcript, charge 1 credit and
 *    record the job in one transaction (the charge is keyed on the job, so it never happens twice;
 *    a concurrent request that stored the same transcript first makes this one free).
 * 4. Without usable captions: `no_captions` (404) for captions modes; for ASR modes an owned ASR
 *    transcript, else a `failed` answer for videos over 480 minutes, the quote
 *    (`requires_asr_confirmation`) when ASR is only the account default, and when ASR was asked
 *    for (or for an upload): the engine's check of the options (400 naming the option, 503
 *    `asr_unavailable` without an engine), the available balance against the quote (402), then an
 *    `asr` job (202 `processing`) created with the hold of its quote in one transaction (402 when the
 *    hold is refused: a parallel request took the credits), that a worker runs and charges on
 *    completion (`asr-work.ts`, `credit-holds.ts`). An upload must be completed and not yet consumed
 *    (409 otherwise); the job consumes it in the same transaction.
 *
 * Every request that passes validation is recorded as a job, failures included.
 */
import {
  Api,
  Asr,
  Captions,
  type Credits,
  Errors,
  type Ids,
  Plan,
  Pricing,
  Transcript
} from "@verbatim/domain"
import { DateTime, Effect, Option } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account } from "../ports/accounts.js"
import { type JobRecord, jobDefaults } from "../ports/jobs.js"
import { Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import { SpeechToText } from "../ports/speech-to-text.js"
import type { OwnedFilter, ServedTranscript, TranscriptRecord } from "../ports/transcripts.js"
import { Uploads } from "../ports/uploads.js"
import { type VideoDetails, VideoPlatform } from "../ports/video-platform.js"
import { AddressResolver } from "../ports/webhooks.js"
import { requestIdForWork } from "../request-context.js"
import { type AsrTarget, encodeAsrPayload, unsupportedOption } from "./asr-work.js"
import { asrHoldAmount, holdForJob } from "./credit-holds.js"
import { dubbedAudio } from "./estimate.js"
import { fromPlatformError, insufficientCredits, notFound } from "./failures.js"
import { JobLifecycle } from "./job-lifecycle.js"
import { alreadyChecked, PreEncodedCompleted, preEncodedCompleted } from "./payload.js"
import { resolveRequest } from "./transcribe-request.js"
import { WebhookAllowList } from "./webhook-url.js"

const credits = (count: number): string => `${count} credit${count === 1 ? "" : "s"}`

/** Said with every quote: its price in words, and that the user is asked before it is confirmed. */
export const confirmationSuggestion = (estimatedCredits: number, minutes: number | null): string =>
  `The video has no usable captions, and speech recognition (ASR, this account's default mode) would cost ${credits(estimatedCredits)}${minutes === null ? "" : ` for about ${Math.max(1, Math.ceil(minutes))} minutes of audio`}. Ask the user whether to pay that; only if they agree, send the request again with mode=auto (or mode=speech_to_text_only) to start it. Nothing was charged.`

/** Said when a video is longer than ASR takes: nothing to send again. */
export const tooLongSuggestion = `ASR takes videos up to ${Plan.maxAsrDurationMinutes} minutes and this one is longer: speech recognition cannot transcribe it, so do not send it again for ASR. Only captions can be served, where the video has any (GET /videos/info lists them).`

/** The ASR options a request sent: those set to anything but their default. */
const optionsSent = (options: Api.TranscribeRequest["asr_options"]): ReadonlyArray<string> => {
  const defaults: ReadonlyMap<string, unknown> = new Map(Object.entries(Asr.defaults))
  return Object.entries(options)
    .filter(([name, value]) => JSON.stringify(value) !== JSON.stringify(defaults.get(name)))
    .map(([name]) => name)
}

/**
 * An owned ASR transcript served again for a request that sent ASR options: the answer says so
 * (the earlier transcript, the options not applied, nothing charged), never silently.
 */
const withOptionsNotApplied = (
  served: PreEncodedCompleted,
  options: Api.TranscribeRequest["asr_options"]
): PreEncodedCompleted => {
  const sent = optionsSent(options)
  if (sent.length === 0) return served
  return new PreEncodedCompleted({
    answer: new Api.TranscribeCompleted(
      {
        ...served.answer,
        note: `This is the speech recognition transcript the user already owned, served again for 0 credits: the asr_options sent (${sent.join(", ")}) were not applied to it. Tell the user; nothing was charged.`
      },
      alreadyChecked
    ),
    segmentsJson: served.segmentsJson
  })
}

/** How a caller inside the service (a batch item) runs a transcribe request. */
export interface TranscribeOptions {
  /** The ids the request and its job get (a batch item's, assigned when the batch was accepted). */
  readonly requestId?: Ids.RequestId | undefined
  readonly jobId?: Ids.JobId | undefined
  /** The speech recognition job delivers no webhook of its own (the batch delivers one for all). */
  readonly noWebhook?: boolean | undefined
  /**
   * The account's available balance as the caller read it a moment before (a batch item's claim):
   * when it covers a caption's price, the balance is not read again before the captions are
   * fetched. It is only the look before the fetch: the charge checks the balance under the
   * account's lock whatever it says, and a balance it says is short is read again.
   */
  readonly availableBefore?: number | undefined
  /**
   * False when the caller looked a moment before (a batch item's claim) and the account had no
   * transcript of the video: the look for an owned caption transcript before the fetch is skipped.
   * One stored since is not missed: the store finds its key taken, and that transcript is served,
   * uncharged, as it would be had the look found it.
   */
  readonly ownedBefore?: boolean | undefined
}

export const makeTranscribe = Effect.gen(function* () {
  const platform = yield* VideoPlatform
  const lifecycle = yield* JobLifecycle
  const ledger = yield* Ledger
  const secrets = yield* Secrets
  const webhookChecks = { resolver: yield* AddressResolver, allowList: yield* WebhookAllowList }
  const stt = yield* SpeechToText
  const uploads = yield* Uploads

  return (account: Account, request: Api.TranscribeRequest, options: TranscribeOptions = {}) =>
    Effect.gen(function* () {
      const resolved = yield* resolveRequest(account, request, webhookChecks)
      const now = yield* DateTime.now
      const requestId =
        options.requestId ?? (((yield* requestIdForWork) ?? (yield* secrets.uuid)) as Ids.RequestId)
      const jobId = options.jobId ?? ((yield* secrets.uuid) as Ids.JobId)
      const mode = resolved.mode.mode
      const parts = {
        segments: request.format.timestamp,
        paragraphs: request.format.paragraphs,
        words: request.format.words
      }

      const job = (fields: Partial<JobRecord> & Pick<JobRecord, "status">): JobRecord => ({
        ...jobDefaults,
        id: jobId,
        accountId: account.id,
        requestId,
        kind: "transcribe",
        videoId: resolved.videoId,
        videoTitle: null,
        language: null,
        source: null,
        mode,
        error: null,
        creditsUsed: 0,
        transcriptId: null,
        createdAt: now,
        startedAt: now,
        completedAt: now,
        ...fields
      })

      /**
       * A job that ends with this request, ending now: created and started when the request came
       * in, completed when its outcome is known (a caption fetch or a platform lookup can take
       * seconds), so its three timestamps are the real ones.
       */
      const ended = (fields: Partial<JobRecord> & Pick<JobRecord, "status">) =>
        Effect.map(DateTime.now, (at) => job({ completedAt: at, ...fields }))

      /** Records the request as a failed job, then fails with the error, naming that job. */
      const failWith = (error: Errors.ApiError, details?: VideoDetails, title?: string | null) =>
        ended({ status: "failed", error: error.message, videoTitle: details?.title ?? title ?? null }).pipe(
          Effect.flatMap((failed) => lifecycle.create(failed)),
          Effect.zipRight(
            Effect.fail(
              new Errors.ApiError({
                code: error.code,
                message: error.message,
                details: { ...error.details, job_id: jobId }
              })
            )
          )
        )

      /** The completed answer; an owned transcript's segments as their stored text (`PreEncodedCompleted`). */
      const completed = (record: ServedTranscript, credits: Credits.Credits) =>
        preEncodedCompleted(
          { request_id: requestId, mode, status: "completed", credits_used: credits, job_id: jobId },
          record,
          parts
        )

      /**
       * The account's newest owned transcript matching the filter, served again for 0 credits with
       * its job recorded (DESIGN decision 5); none when the account owns none.
       */
      const serveOwned = (filter: OwnedFilter) =>
        Effect.map(
          Effect.flatMap(DateTime.now, (at) =>
            lifecycle.serveOwned(job({ status: "completed" }), filter, at)
          ),
          Option.map((record) => completed(record, 0))
        )

      const serveCaptions = (videoId: Ids.VideoId, details: VideoDetails, track: Captions.CaptionTrack) =>
        Effect.gen(function* () {
          const ownedTrack = serveOwned({ language: track.language, sourceKinds: [track.kind] })
          if (options.ownedBefore !== false) {
            const served = yield* ownedTrack.pipe(Effect.withSpan("verbatim.transcribe.owned"))
            if (Option.isSome(served)) return served.value
          }

          const price = Pricing.captionCredits(false)
          const balance =
            options.availableBefore !== undefined && options.availableBefore >= price
              ? options.availableBefore
              : yield* ledger.balance(account.id).pipe(Effect.withSpan("verbatim.transcribe.balance"))
          if (balance < price) {
            // A concurrent request may have stored (and paid for) this transcript since the look
            // above: the balance it spent is then no reason to refuse, the transcript is owned.
            const stored = yield* ownedTrack
            if (Option.isSome(stored)) return stored.value
            return yield* failWith(insufficientCredits(price, balance), details)
          }

          const segments = yield* platform.captions(videoId, track).pipe(
            Effect.catchAll((error) => failWith(fromPlatformError(error), details)),
            Effect.withSpan("verbatim.transcribe.captions")
          )
          const text = Transcript.textOf(segments)
          if (text.length === 0) {
            return yield* failWith(
              Errors.apiError(
                "no_captions",
                `the ${track.language} captions of video ${resolved.videoId} are empty`
              ),
              details
            )
          }
          const record: TranscriptRecord = {
            id: (yield* secrets.uuid) as Ids.TranscriptId,
            accountId: account.id,
            videoId: resolved.videoId,
            videoTitle: details.title,
            channelId: details.channelId,
            language: track.language,
            sourceKind: track.kind,
            status: "succeeded",
            text,
            segments: Transcript.sortByStart(segments),
            hasTimestamps: true,
            wordCount: Transcript.countWords(text),
            segmentCount: segments.length,
            durationSeconds: Math.ceil(
              details.durationSeconds ?? Math.max(0, ...segments.map((s) => s.end)) / 1000
            ),
            creditsUsed: price,
            summary: null,
            mindMap: null,
            asrIntelligence: null,
            createdAt: now
          }
          const finishedAt = yield* DateTime.now
          const outcome = yield* lifecycle
            .record(
              job({ status: "completed" }),
              {
                _tag: "Completed",
                transcript: record,
                price,
                reason: `captions of ${resolved.videoId} (${track.language}, ${track.kind})`
              },
              finishedAt
            )
            .pipe(
              Effect.catchTag("InsufficientCredits", (error) =>
                failWith(insufficientCredits(error.required, error.balance), details)
              ),
              Effect.withSpan("verbatim.transcribe.store")
            )
          return completed(outcome.transcript ?? record, outcome.credits)
        })

      const withoutCaptions = (details: VideoDetails, step: "start_asr" | "requires_asr_confirmation") =>
        Effect.gen(function* () {
          const served = yield* serveOwned({ language: request.language, sourceKinds: ["asr"] })
          if (Option.isSome(served)) return withOptionsNotApplied(served.value, request.asr_options)

          const quote = Pricing.estimate({
            durationSeconds: details.durationSeconds,
            addOns: resolved.asr.billable
          })
          if (quote.exceeds_max_duration) {
            const error = `video ${resolved.videoId} lasts ${quote.duration_minutes} minutes, longer than the ${quote.max_duration_minutes} minutes ASR takes`
            yield* lifecycle.create(yield* ended({ status: "failed", error, videoTitle: details.title }))
            return new Api.TranscribeFailed({
              request_id: requestId,
              mode,
              status: "failed",
              job_id: jobId,
              credits_used: 0,
              error,
              suggestion: tooLongSuggestion,
              duration_minutes: quote.duration_minutes,
              max_duration_minutes: quote.max_duration_minutes
            })
          }
          if (step === "start_asr") {
            return yield* startAsr(
              { _tag: "video", id: details.id },
              details.title,
              details.durationSeconds,
              {
                dub: details.audioDub
              }
            )
          }
          yield* lifecycle.create(
            yield* ended({ status: "requires_asr_confirmation", videoTitle: details.title })
          )
          return new Api.TranscribeConfirmation({
            request_id: requestId,
            mode,
            status: "requires_asr_confirmation",
            job_id: jobId,
            credits_used: 0,
            estimated_credits: quote.estimated_credits,
            base_credits: quote.base_credits,
            addon_credits: quote.addon_credits,
            duration_minutes: quote.duration_minutes,
            max_duration_minutes: quote.max_duration_minutes,
            suggestion: confirmationSuggestion(quote.estimated_credits, quote.duration_minutes),
            ...dubbedAudio(details.audioDub)
          })
        })

      /**
       * Starts speech recognition (consent given): the engine must honour the options, the balance
       * must cover the quote; then an `asr` job, created with `within` in its transaction.
       */
      const startAsr = (
        asrTarget: AsrTarget,
        title: string | null,
        durationSeconds: number | null,
        start: {
          /** Created in the job's transaction. */
          readonly within?: Effect.Effect<void, Errors.ApiError | PersistenceError>
          /** Only dubs listed: the language the recognition will hear, said on the answer. */
          readonly dub?: VideoDetails["audioDub"]
        } = {}
      ) =>
        Effect.gen(function* () {
          yield* stt.supports(resolved.asr).pipe(
            Effect.catchAll((error) =>
              failWith(
                error._tag === "SpeechUnsupported"
                  ? unsupportedOption(error.option, error.message)
                  : Errors.apiError(
                      "asr_unavailable",
                      `speech recognition is not available: ${error.reason}`,
                      {
                        video_id: resolved.videoId
                      }
                    )
              )
            )
          )
          const quote = Pricing.estimate({ durationSeconds, addOns: resolved.asr.billable })
          // A duration the platform does not tell is quoted at the limit: the charge follows the real one.
          const ceiling =
            durationSeconds === null
              ? Pricing.estimate({
                  durationSeconds: Plan.maxAsrDurationSeconds,
                  addOns: resolved.asr.billable
                }).estimated_credits
              : quote.estimated_credits
          // The job holds the most it can be charged, in the transaction that creates it: the
          // check here answers most refusals without one, the hold decides every race.
          const held = asrHoldAmount(ceiling)
          const balance = yield* ledger.balance(account.id)
          if (balance < held) {
            return yield* failWith(insufficientCredits(held, balance), undefined, title)
          }
          const payload = yield* encodeAsrPayload({
            target: asrTarget,
            asr_options: resolved.asr.options,
            format: request.format,
            quoted_credits: ceiling
          })
          const started = job({
            status: "processing",
            kind: "asr",
            videoTitle: title,
            payload,
            webhookUrl: options.noWebhook === true ? null : (resolved.mode.webhookUrl ?? null),
            startedAt: null,
            completedAt: null
          })
          const hold = holdForJob(
            account.id,
            jobId,
            held,
            `speech recognition of ${asrTarget._tag} ${asrTarget.id}`,
            now
          ).pipe(Effect.provideService(Ledger, ledger))
          const within = start.within
          yield* lifecycle.create(started, within === undefined ? hold : Effect.zipRight(within, hold)).pipe(
            Effect.catchIf(
              (error): error is Errors.ApiError =>
                error instanceof Errors.ApiError && error.code === "payment_required",
              (error) => failWith(error, undefined, title)
            )
          )
          return new Api.TranscribeProcessing({
            request_id: requestId,
            mode,
            status: "processing",
            job_id: jobId,
            credits_used: 0,
            estimated_credits: quote.estimated_credits,
            duration_minutes: quote.duration_minutes,
            ...dubbedAudio(start.dub)
          })
        })

      const target = resolved.target
      if (target._tag === "upload") {
        const uploadId = target.id as Ids.UploadId
        const upload = yield* uploads.get(account.id, uploadId)
        if (Option.isNone(upload))
          return yield* failWith(notFound(`upload ${uploadId}`, { upload_id: uploadId }))
        const file = upload.value
        if (file.status !== "uploaded") {
          return yield* failWith(
            Errors.apiError(
              "conflict",
              file.status === "consumed"
                ? `upload ${uploadId} was already transcribed`
                : `upload ${uploadId} is not complete: PUT its bytes, then POST /uploads/${uploadId}/complete`,
              { upload_id: uploadId, status: file.status }
            )
          )
        }
        const consumed = uploads.consume(uploadId, jobId, now).pipe(
          Effect.flatMap((taken) =>
            taken
              ? Effect.void
              : Effect.fail(
                  Errors.apiError("conflict", `upload ${uploadId} was already transcribed`, {
                    upload_id: uploadId
                  })
                )
          )
        )
        return yield* startAsr({ _tag: "upload", id: uploadId }, file.filename, file.durationSeconds, {
          within: consumed
        }).pipe(
          Effect.catchIf(
            (error): error is Errors.ApiError =>
              error instanceof Errors.ApiError && error.code === "conflict",
            (error) => failWith(error)
          )
        )
      }
      const videoId = target.id
      const details = yield* platform.video(videoId).pipe(
        Effect.catchAll((error) => failWith(fromPlatformError(error))),
        Effect.withSpan("verbatim.transcribe.details")
      )
      const track = Captions.chooseTrack(details.captionTracks, {
        mode: resolved.mode.humanCaptionsOnly ? "human_captions_only" : mode,
        language: request.language,
        originalLanguage: details.originalLanguage
      })
      const step = resolved.step(Option.isSome(track))
      switch (step) {
        case "serve_captions":
          return yield* Option.match(track, {
            onNone: () => failWith(noCaptions(resolved.videoId, mode), details),
            onSome: (chosen) => serveCaptions(videoId, details, chosen)
          })
        case "no_captions":
          return yield* failWith(noCaptions(resolved.videoId, mode), details)
        case "start_asr":
        case "requires_asr_confirmation":
          return yield* withoutCaptions(details, step)
      }
    })
})

const noCaptions = (videoId: string, mode: string) =>
  Errors.apiError(
    "no_captions",
    mode === "human_captions_only"
      ? `video ${videoId} has no human-made captions`
      : `video ${videoId} has no captions`,
    { video_id: videoId, mode }
  )
