/**
 * GET /videos/info, the MCP tool get_video_info and the GPT operation getVideoInfo: a free look at
 * a video before paying anything. Each mode is priced as POST /transcribe/estimate prices it
 * (the caption track the mode would serve, 1 credit or 0 when owned; speech recognition by
 * duration, without options), so the look and the estimate never disagree; the account's default
 * mode says which of them a transcribe without mode would charge.
 */
import { Api, Captions, type Errors, Mode, Pricing, Reference } from "@verbatim/domain"
import { Context, Effect, Either, Layer, Option } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account } from "../ports/accounts.js"
import { Transcripts } from "../ports/transcripts.js"
import { VideoPlatform } from "../ports/video-platform.js"
import { fromPlatformError, fromReferenceError } from "./failures.js"

export class VideoInfoLookup extends Context.Tag("@verbatim/core/VideoInfoLookup")<
  VideoInfoLookup,
  {
    readonly info: (
      account: Account,
      query: Api.VideoInfoQuery
    ) => Effect.Effect<Api.VideoInfo, Errors.ApiError | PersistenceError>
  }
>() {}

const modes: ReadonlyArray<Mode.Mode> = [
  "captions_only",
  "human_captions_only",
  "auto",
  "speech_to_text_only"
]

export const VideoInfoLive = Layer.effect(
  VideoInfoLookup,
  Effect.gen(function* () {
    const platform = yield* VideoPlatform
    const transcripts = yield* Transcripts
    return {
      info: Effect.fn("VideoInfo.info")(function* (account: Account, query: Api.VideoInfoQuery) {
        const videoId = yield* Either.mapLeft(Reference.parseVideo(query.video), fromReferenceError("video"))
        const details = yield* Effect.mapError(platform.video(videoId), fromPlatformError)
        const owned = yield* transcripts.owned(account.id, videoId, {})
        const asr = Pricing.estimate({ durationSeconds: details.durationSeconds, addOns: [] })
        const price = (mode: Mode.Mode): Api.ModePrice => {
          const track = Captions.chooseTrack(details.captionTracks, {
            mode,
            originalLanguage: details.originalLanguage
          })
          const consent = new Mode.ResolvedMode(
            { mode, asr: Mode.canUseAsr(mode) ? "consented" : "never", origin: "mode", input: "video" },
            true
          )
          const step = Mode.decideStep(consent, Option.isSome(track))
          if (step === "serve_captions" && Option.isSome(track)) {
            const mine = owned.some(
              (record) => record.language === track.value.language && record.sourceKind === track.value.kind
            )
            return {
              mode,
              available: true,
              source: track.value.kind,
              language: track.value.language,
              credits: Pricing.captionCredits(mine),
              owned: mine
            }
          }
          if (step === "no_captions") {
            return { mode, available: false, source: null, language: null, credits: 0, owned: false }
          }
          return {
            mode,
            available: !asr.exceeds_max_duration,
            source: "asr",
            language: null,
            credits: asr.exceeds_max_duration ? 0 : asr.estimated_credits,
            owned: false
          }
        }
        const languages = (kind: Captions.TrackKind) =>
          details.captionTracks.filter((track) => track.kind === kind).map((track) => track.language)
        return new Api.VideoInfo({
          video_id: videoId,
          title: details.title,
          channel_id: details.channelId,
          channel_title: details.channelTitle,
          duration_seconds: details.durationSeconds,
          original_language: details.originalLanguage,
          manual_caption_languages: languages("manual"),
          auto_caption_languages: languages("auto"),
          translation_languages: details.translationLanguages,
          default_mode: account.defaultMode,
          prices: modes.map(price),
          owned: owned.map((record) => ({ language: record.language, source: record.sourceKind })),
          max_duration_minutes: asr.max_duration_minutes,
          exceeds_max_duration: asr.exceeds_max_duration
        })
      })
    }
  })
)
