/**
 * The service-wide limits of the spec ("Limits", "Other limits" and the endpoints), as named
 * constants and bounded-integer schemas. Plan-dependent limits live in `plan-limits.ts`; the
 * ASR option bounds are re-exported from `../asr/options.ts`, which owns them.
 *
 * Bounds are inclusive. Where the spec names a maximum but no minimum the minimum is 1; where it
 * names no default for the playlist resolve limit the default is its maximum (100).
 */
import { Schema } from "effect"

export {
  maxKeyTerms,
  maxSpeakerIdKnownValueLength,
  maxSpeakerIdKnownValues,
  maxSpeakers,
  maxWordsPerKeyTerm,
  minSpeakers
} from "../asr/options.js"

/** An inclusive integer range with the value used when the parameter is omitted. */
export interface Bounds {
  readonly min: number
  readonly max: number
  readonly default: number
}

const boundedInt = (bounds: Bounds, identifier: string) =>
  Schema.Int.pipe(Schema.between(bounds.min, bounds.max)).annotations({
    identifier,
    description: `An integer from ${bounds.min} to ${bounds.max} (default ${bounds.default})`
  })

/** Whether `n` is an integer inside the bounds. */
export const withinBounds = (bounds: Bounds, n: number): boolean =>
  Number.isInteger(n) && n >= bounds.min && n <= bounds.max

// Pagination (GET /jobs, GET /transcripts)

export const pageLimit: Bounds = { min: 1, max: 100, default: 50 }
/**
 * The spec names no largest page; ours is 10,000,000, so a page's offset (at most 100 rows a page)
 * stays far inside what the database and a JavaScript number count exactly.
 */
export const page: Bounds = { min: 1, max: 10_000_000, default: 1 }
export const PageLimit = boundedInt(pageLimit, "PageLimit")
export const Page = Schema.Int.pipe(Schema.between(page.min, page.max)).annotations({
  identifier: "Page",
  description: `A page number, from ${page.min} to ${page.max} (default ${page.default})`
})

// Uploads (POST /uploads): size and duration limits are inclusive (DESIGN decision 12)

export const uploadMimePrefixes: ReadonlyArray<string> = ["audio/", "video/"]
export const maxUploadSizeBytes = 2147483648
export const maxUploadDurationSeconds = 28800

export const isUploadMimeType = (mimeType: string): boolean =>
  uploadMimePrefixes.some((prefix) => mimeType.toLowerCase().startsWith(prefix))
export const uploadSizeAllowed = (sizeBytes: number): boolean =>
  Number.isInteger(sizeBytes) && sizeBytes >= 1 && sizeBytes <= maxUploadSizeBytes
export const uploadDurationAllowed = (durationSeconds: number): boolean =>
  Number.isInteger(durationSeconds) && durationSeconds >= 1 && durationSeconds <= maxUploadDurationSeconds

// Recommendations (GET /recommendations/videos)

export const recommendationsLimit: Bounds = { min: 1, max: 30, default: 6 }
export const recommendationsChannels: Bounds = { min: 1, max: 10, default: 3 }
export const RecommendationsLimit = boundedInt(recommendationsLimit, "RecommendationsLimit")
export const RecommendationsChannels = boundedInt(recommendationsChannels, "RecommendationsChannels")

// Playlists and channels

export const playlistResolveLimit: Bounds = { min: 1, max: 100, default: 100 }
export const PlaylistResolveLimit = boundedInt(playlistResolveLimit, "PlaylistResolveLimit")

/** GET /channels/history `limit`. */
export const channelHistoryLimit: Bounds = { min: 1, max: 100, default: 50 }
export const ChannelHistoryLimit = boundedInt(channelHistoryLimit, "ChannelHistoryLimit")

/** POST /channels/resolve `limit`: min 1; its maximum and default are the plan's cap (`channelResolveLimit`). */
export const ChannelResolveRequestLimit = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
  identifier: "ChannelResolveRequestLimit",
  description: "At least 1; defaults to and is capped by the plan's channel resolve maximum"
})

// Batches

/** The most `video_ids` any batch request may carry (the business plan's batch size). */
export const maxBatchSize = 3000
/** POST /batch answers within this many milliseconds. */
export const batchResponseWithinMs = 2000
/** Fetches of a finished batch allowed per window, then 429 with Retry-After. */
export const finishedBatchFetchesPerWindow = 60
export const finishedBatchFetchWindowMs = 24 * 60 * 60 * 1000

// ASR and themes

/** Videos longer than this are not sent to ASR (DESIGN decision 2); the estimate reports it. */
export const maxAsrDurationMinutes = 480
export const maxAsrDurationSeconds = maxAsrDurationMinutes * 60
/** POST themes waits about this long for detection, then answers 202 processing. */
export const themesPostWaitMs = 25_000
