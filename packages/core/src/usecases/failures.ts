/**
 * How the failures of rules and ports reach a caller: as `ApiError`s with the catalogue's codes.
 * A rejected field answers `invalid_request` with the same `details.issues` shape a schema
 * rejection has, so clients read one format.
 */

import type { Asr, Mode, Reference } from "@verbatim/domain"
import { Errors } from "@verbatim/domain"
import type { PlatformError, Restriction } from "../ports/video-platform.js"

/** `invalid_request` naming one field: the message is `<path>: <reason>`. */
export const fieldError = (path: ReadonlyArray<string | number>, reason: string): Errors.ApiError =>
  new Errors.ApiError({
    code: "invalid_request",
    message: `${path.join(".")}: ${reason}`,
    details: { issues: [{ path, message: reason }] }
  })

export const fromModeError = (error: Mode.ModeError): Errors.ApiError =>
  fieldError([error.field], error.reason)

export const fromAsrOptionsError = (error: Asr.AsrOptionsError): Errors.ApiError =>
  fieldError(["asr_options", error.field], error.reason)

export const fromReferenceError =
  (field: string) =>
  (error: Reference.InvalidReference): Errors.ApiError =>
    fieldError([field], error.reason)

const restrictionCodes = {
  private: "video_private",
  age_restricted: "age_restricted",
  members_only: "subscription_required",
  premium: "subscription_required",
  region_blocked: "region_blocked"
} as const satisfies Record<Restriction, Errors.ErrorCode>

/**
 * A platform failure as the catalogue's code (docs/decisions/youtube.md): the video's
 * fault (404 `video_unavailable`, 403 for a video closed to us, 409 `live_stream`), a missing track
 * (404 `no_captions`) or translation (400 `unsupported_language`), a missing playlist or channel
 * (404 `not_found`), an age-gated channel (403 `channel_age_restricted`), the duration limit (400
 * `video_too_long`), unreachable audio (404 `no_audio`), the platform's refusal (503
 * `platform_blocked`), its failure (503 `platform_unavailable`), or an answer this server cannot
 * read (503 `platform_unreadable`, `details.reason` and `details.path` saying what and where).
 * `details` name the video and the precise reason.
 */
export const fromPlatformError = (error: PlatformError): Errors.ApiError => {
  switch (error._tag) {
    case "VideoUnavailable":
      return Errors.apiError("video_unavailable", `video ${error.videoId} is unavailable: ${error.reason}`, {
        video_id: error.videoId
      })
    case "VideoRestricted":
      return Errors.apiError(
        restrictionCodes[error.restriction],
        `video ${error.videoId} cannot be read by this service: ${error.reason}`,
        { video_id: error.videoId, restriction: error.restriction }
      )
    case "VideoLive":
      return Errors.apiError(
        "live_stream",
        error.state === "live"
          ? `video ${error.videoId} is live now; its captions and audio come once the stream has ended`
          : `video ${error.videoId} is a live stream or premiere that has not started yet`,
        { video_id: error.videoId, live_state: error.state }
      )
    case "CaptionTrackNotFound":
      return Errors.apiError(
        "no_captions",
        `video ${error.videoId} has no ${error.kind} captions in ${error.language}`,
        { video_id: error.videoId, language: error.language, kind: error.kind }
      )
    case "TranslationUnavailable":
      return Errors.apiError(
        "unsupported_language",
        `the video platform does not translate the captions of video ${error.videoId} into ${error.language}`,
        { video_id: error.videoId, language: error.language }
      )
    case "CollectionNotFound":
      return Errors.apiError("not_found", `${error.kind} ${error.id} not found: ${error.reason}`, {
        [`${error.kind}_id`]: error.id
      })
    case "ChannelRestricted":
      return Errors.apiError(
        "channel_age_restricted",
        `channel ${error.channelId} cannot be read by this service: ${error.reason}`,
        { channel_id: error.channelId, restriction: error.restriction }
      )
    case "DurationLimitExceeded":
      return Errors.apiError(
        "video_too_long",
        `video ${error.videoId} lasts ${error.durationSeconds} seconds, longer than the ${error.limitSeconds} seconds allowed`,
        {
          video_id: error.videoId,
          duration_seconds: error.durationSeconds,
          limit_seconds: error.limitSeconds
        }
      )
    case "AudioUnavailable":
      return Errors.apiError(
        "no_audio",
        `the audio of video ${error.videoId} cannot be fetched: ${error.reason}`,
        {
          video_id: error.videoId
        }
      )
    case "PlatformBlocked":
      return Errors.apiError("platform_blocked", `the video platform refused the request: ${error.reason}`, {
        reason: error.kind
      })
    case "PlatformUnavailable":
      return Errors.apiError(
        "platform_unavailable",
        `the video platform failed after ${error.attempts} attempts: ${error.reason}`,
        { attempts: error.attempts }
      )
    case "PlatformFailure":
      return Errors.apiError(
        "platform_unreadable",
        `the video platform answered something this service cannot read: ${error.reason}`,
        { reason: error.reason, ...(error.path === undefined ? {} : { path: error.path }) }
      )
  }
}

export const notFound = (what: string, details: Record<string, unknown> = {}): Errors.ApiError =>
  Errors.apiError("not_found", `${what} not found`, details)

/** 402: the balance does not cover what the request needs. */
export const insufficientCredits = (required: number, balance: number): Errors.ApiError =>
  Errors.apiError("payment_required", `this needs ${required} credits and the balance is ${balance}`, {
    required,
    balance
  })
