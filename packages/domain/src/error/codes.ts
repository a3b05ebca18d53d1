/**
 * The error catalogue: every code the API answers with, its HTTP status and its meaning. The same
 * code means the same thing on every endpoint (DESIGN decision 7).
 *
 * The spec's six codes keep the spec's statuses. Ours: `unsupported_language` 400 (translate),
 * `forbidden` 403, `plan_required` 403 (paid-only features, decision 10), `not_found` 404,
 * `video_unavailable` 404 (the video does not exist, was removed or cannot be played; like
 * `no_captions`, a fact about the video that retrying will not change), `conflict` 409, `gone` 410
 * (a signed upload URL past its expiry or whose upload no longer exists),
 * `platform_blocked` 503, `asr_unavailable` 503, `translation_unavailable` 503 and
 * `themes_unavailable` 503 (temporary: retry later; a failed translation is not charged, a failed
 * theme detection is refunded).
 *
 * The video platform's refusals (docs/decisions/youtube.md): `video_private`,
 * `age_restricted`, `subscription_required` (members-only or paid) and `region_blocked` 403 (the
 * video exists, this server may not watch it), `live_stream` 409 (on air or not started: ask
 * again once it has ended), `video_too_long` 400 (longer than speech recognition takes),
 * `no_audio` 404 (the audio cannot be fetched), `platform_unavailable` 503 (the platform failed
 * or timed out on every retry), `platform_unreadable` 503 (the platform answered something this
 * service cannot read: its pages changed; `details.reason` says what) and `channel_age_restricted`
 * 403 (the channel is shown only to signed-in adults).
 *
 * Storage: `storage_unavailable` 503 (the upload storage failed, did not answer, or refused this
 * server's writes: a read-only or forbidden folder) and `insufficient_storage` 507 (the upload
 * storage or the database is full: ENOSPC, a quota, SQLSTATE 53100); neither keeps anything of the
 * request, and both are logged with the path.
 *
 * Operations: `service_unavailable` 503 (the database is unreachable, timed out or out of
 * connections; sent with `Retry-After`, since the same request succeeds once it is back), and the
 * HTTP framing refusals with their standard statuses: `request_timeout` 408 (the head never
 * completed, or an upload's body did not arrive at the minimum rate), `request_too_large` 413 (a body over the limit), `request_header_too_large` 431.
 */
import { Schema } from "effect"

export const ErrorCode = Schema.Literal(
  "invalid_request",
  "unsupported_language",
  "invalid_api_key",
  "payment_required",
  "forbidden",
  "plan_required",
  "not_found",
  "no_captions",
  "video_unavailable",
  "conflict",
  "gone",
  "rate_limit_exceeded",
  "internal_error",
  "platform_blocked",
  "asr_unavailable",
  "translation_unavailable",
  "themes_unavailable",
  "video_private",
  "age_restricted",
  "subscription_required",
  "region_blocked",
  "live_stream",
  "video_too_long",
  "no_audio",
  "platform_unavailable",
  "platform_unreadable",
  "channel_age_restricted",
  "storage_unavailable",
  "insufficient_storage",
  "service_unavailable",
  "request_timeout",
  "request_too_large",
  "request_header_too_large"
).annotations({ identifier: "ErrorCode", description: "What went wrong; the HTTP status gives the category" })
export type ErrorCode = typeof ErrorCode.Type

export const allErrorCodes: ReadonlyArray<ErrorCode> = ErrorCode.literals

/** The HTTP statuses errors use. */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 408 | 409 | 410 | 413 | 429 | 431 | 500 | 503 | 507

export interface ErrorInfo {
  readonly status: ErrorStatus
  readonly meaning: string
  /** Whether sending the same request again later may succeed. */
  readonly retryable: boolean
}

export const errorCatalogue: { readonly [C in ErrorCode]: ErrorInfo } = {
  invalid_request: { status: 400, meaning: "Invalid JSON or missing required fields", retryable: false },
  unsupported_language: { status: 400, meaning: "The target language is not supported", retryable: false },
  invalid_api_key: { status: 401, meaning: "Missing or invalid API key", retryable: false },
  payment_required: { status: 402, meaning: "Insufficient credits", retryable: false },
  forbidden: { status: 403, meaning: "The account has no access to the resource", retryable: false },
  plan_required: { status: 403, meaning: "The feature is available on paid plans only", retryable: false },
  not_found: {
    status: 404,
    meaning: "The resource does not exist or is not the account's",
    retryable: false
  },
  no_captions: { status: 404, meaning: "No captions available and ASR not used", retryable: false },
  video_unavailable: {
    status: 404,
    meaning: "The video does not exist or cannot be played (private, removed or restricted)",
    retryable: false
  },
  conflict: {
    status: 409,
    meaning: "The resource is not in a state that allows the request",
    retryable: false
  },
  gone: {
    status: 410,
    meaning: "The resource has ended: a signed upload URL past its expiry, or whose upload no longer exists",
    retryable: false
  },
  rate_limit_exceeded: {
    status: 429,
    meaning: "Too many requests; a Retry-After header is sent",
    retryable: true
  },
  internal_error: { status: 500, meaning: "Server error; retry with backoff", retryable: true },
  platform_blocked: {
    status: 503,
    meaning: "The video platform refused the service's requests; retry later",
    retryable: true
  },
  asr_unavailable: {
    status: 503,
    meaning: "Speech recognition is not available; retry later",
    retryable: true
  },
  translation_unavailable: {
    status: 503,
    meaning:
      "The translation engine failed or did not answer after its retries; nothing was charged; retry later",
    retryable: true
  },
  themes_unavailable: {
    status: 503,
    meaning: "Theme detection failed; the credit it was charged is refunded; a new POST may try again",
    retryable: true
  },
  video_private: { status: 403, meaning: "The video is private", retryable: false },
  age_restricted: {
    status: 403,
    meaning: "The video is age-restricted: the platform shows it only to signed-in adults",
    retryable: false
  },
  subscription_required: {
    status: 403,
    meaning: "The video is for channel members or paying subscribers only",
    retryable: false
  },
  region_blocked: {
    status: 403,
    meaning: "The video is not available in the region the service reaches the platform from",
    retryable: false
  },
  live_stream: {
    status: 409,
    meaning: "The video is a live stream that is on air or has not started; ask again once it has ended",
    retryable: false
  },
  video_too_long: {
    status: 400,
    meaning: "The video is longer than speech recognition takes",
    retryable: false
  },
  no_audio: { status: 404, meaning: "The video's audio cannot be fetched", retryable: false },
  platform_unavailable: {
    status: 503,
    meaning: "The video platform failed or did not answer in time; retry later",
    retryable: true
  },
  platform_unreadable: {
    status: 503,
    meaning:
      "The video platform answered something this service cannot read (its pages changed); details.reason says what; retry later",
    retryable: true
  },
  channel_age_restricted: {
    status: 403,
    meaning: "The channel is age-restricted: the platform shows it only to signed-in adults",
    retryable: false
  },
  storage_unavailable: {
    status: 503,
    meaning:
      "The storage for uploaded media failed, did not answer or refused this server's writes (a read-only or forbidden folder); retry later",
    retryable: true
  },
  insufficient_storage: {
    status: 507,
    meaning:
      "The service's storage (uploaded media or its database) is full; nothing of the request was kept; retry once space is freed",
    retryable: true
  },
  service_unavailable: {
    status: 503,
    meaning: "The service cannot reach its database right now; retry after the Retry-After header's seconds",
    retryable: true
  },
  request_timeout: {
    status: 408,
    meaning: "The request did not arrive in time: its head, or an upload's body at the minimum rate",
    retryable: false
  },
  request_too_large: {
    status: 413,
    meaning: "The request body is larger than the server accepts",
    retryable: false
  },
  request_header_too_large: {
    status: 431,
    meaning: "The request's head (URL and headers) is larger than the server accepts",
    retryable: false
  }
}

/** The codes and statuses of the spec's error table. */
export const specErrorCodes: ReadonlyArray<ErrorCode> = [
  "invalid_request",
  "invalid_api_key",
  "payment_required",
  "no_captions",
  "rate_limit_exceeded",
  "internal_error"
]

export const statusOf = (code: ErrorCode): ErrorStatus => errorCatalogue[code].status
export const meaningOf = (code: ErrorCode): string => errorCatalogue[code].meaning
export const isRetryable = (code: ErrorCode): boolean => errorCatalogue[code].retryable

/** The codes answered with `status`. */
export const codesWithStatus = (status: number): ReadonlyArray<ErrorCode> =>
  allErrorCodes.filter((code) => errorCatalogue[code].status === status)
