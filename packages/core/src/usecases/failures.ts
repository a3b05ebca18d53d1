/**
 * How the failures of rules and ports reach a caller: as `ApiError`s with the catalogue's codes.
 * A rejected field answers `invalid_request` with the same `details.issues` shape a schema
 * rejection has, so clients read one format.
 */

import type { Asr, Mode, Reference } from "@verbatim/domain"
import { Errors } from "@verbatim/domain"
import type { PlatformError } from "../ports/video-platform.js"

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

/** A platform failure: the video's fault (404), the platform's refusal (503), or ours (500). */
export const fromPlatformError = (error: PlatformError): Errors.ApiError => {
  switch (error._tag) {
    case "VideoUnavailable":
      return Errors.apiError("video_unavailable", `video ${error.videoId} is unavailable: ${error.reason}`, {
        video_id: error.videoId
      })
    case "PlatformBlocked":
      return Errors.apiError("platform_blocked", `the video platform refused the request: ${error.reason}`)
    case "PlatformFailure":
      return Errors.apiError("internal_error", `the video platform could not be read: ${error.reason}`)
  }
}

export const notFound = (what: string, details: Record<string, unknown> = {}): Errors.ApiError =>
  Errors.apiError("not_found", `${what} not found`, details)
