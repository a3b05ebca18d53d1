/**
 * POST /transcribe/estimate: what /transcribe would charge, as a dry run. Nothing is charged and
 * no job is created. `source` defaults to asr (the spec), so the usual answer is an ASR quote: base
 * plus the add-ons that would apply, prorated by the video's duration. A captions mode quotes the
 * caption track it would serve (1 credit, 0 when the account owns it).
 */
import { Api, Asr, Captions, Errors, type Ids, Mode, Pricing, Reference } from "@verbatim/domain"
import { Effect, Either, Option } from "effect"
import type { Account } from "../ports/accounts.js"
import { Secrets } from "../ports/secrets.js"
import { Transcripts } from "../ports/transcripts.js"
import { type VideoDetails, VideoPlatform } from "../ports/video-platform.js"
import { requestIdForWork } from "../request-context.js"
import {
  fieldError,
  fromAsrOptionsError,
  fromModeError,
  fromPlatformError,
  fromReferenceError
} from "./failures.js"

/** `dubbed_audio_language` on a quote or a job's start, only when the platform lists only dubs. */
export const dubbedAudio = (dub: VideoDetails["audioDub"]) =>
  dub === undefined ? {} : { dubbed_audio_language: dub.language }

export const makeEstimate = Effect.gen(function* () {
  const platform = yield* VideoPlatform
  const transcripts = yield* Transcripts
  const secrets = yield* Secrets

  return (account: Account, request: Api.EstimateRequest) =>
    Effect.gen(function* () {
      if (request.mode !== undefined && request.source !== undefined) {
        return yield* fieldError(
          ["source"],
          "mode cannot be combined with the legacy field source; send only mode"
        )
      }
      const mode =
        request.mode ??
        (yield* Either.mapLeft(
          Mode.legacyMode(request.source ?? Api.estimateDefaultSource, undefined),
          fromModeError
        ))
      const effective = yield* Either.mapLeft(Asr.normalise(request.asr_options), fromAsrOptionsError)
      const videoId = yield* Either.mapLeft(Reference.parseVideo(request.video), fromReferenceError("video"))
      const details = yield* Effect.mapError(platform.video(videoId), fromPlatformError)
      const requestId = ((yield* requestIdForWork) ?? (yield* secrets.uuid)) as Ids.RequestId
      const track = Captions.chooseTrack(details.captionTracks, {
        mode,
        originalLanguage: details.originalLanguage
      })
      const consent = new Mode.ResolvedMode(
        { mode, asr: Mode.canUseAsr(mode) ? "consented" : "never", origin: "mode", input: "video" },
        true
      )
      const step = Mode.decideStep(consent, Option.isSome(track))
      const answer = (source: Api.EstimateResponse["source"], quote: Pricing.AsrEstimate) =>
        new Api.EstimateResponse({
          request_id: requestId,
          video_id: videoId,
          source,
          mode,
          duration_seconds: quote.duration_seconds,
          duration_minutes: quote.duration_minutes,
          max_duration_minutes: quote.max_duration_minutes,
          exceeds_max_duration: quote.exceeds_max_duration,
          base_credits: quote.base_credits,
          addon_credits: quote.addon_credits,
          estimated_credits: quote.estimated_credits,
          // Only speech recognition hears the audio: a dub is worth saying before it is paid for.
          ...(source === "asr" ? dubbedAudio(details.audioDub) : {})
        })
      if (step === "serve_captions" && Option.isSome(track)) {
        const owned = yield* transcripts.owned(account.id, videoId, {
          language: track.value.language,
          sourceKinds: [track.value.kind]
        })
        const credits = Pricing.captionCredits(owned.length > 0)
        const durations = Pricing.estimate({ durationSeconds: details.durationSeconds, addOns: [] })
        return answer(track.value.kind, {
          ...durations,
          base_credits: credits,
          addon_credits: 0,
          estimated_credits: credits
        })
      }
      if (step === "no_captions") {
        return yield* Errors.apiError(
          "no_captions",
          `video ${videoId} has no captions this mode can serve, and ${mode} never uses ASR`,
          { video_id: videoId, mode }
        )
      }
      return answer(
        "asr",
        Pricing.estimate({ durationSeconds: details.durationSeconds, addOns: effective.billable })
      )
    })
})
