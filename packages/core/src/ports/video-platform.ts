/**
 * The video platform: where videos, their caption tracks, caption texts, playlists, channels and
 * audio come from. YouTube in production, the demo catalogue for trials and tests; both implement
 * this port and pass the same contract suite (`@verbatim/testkit`).
 *
 * Every way the platform can refuse is a typed failure below; `fromPlatformError`
 * (usecases/failures.ts) turns each into the catalogue's code and status.
 */
import type { Captions, Ids, Language, Reference, Transcript } from "@verbatim/domain"
import { Context, type DateTime, Effect, Schema, type Stream } from "effect"

/** What the platform tells about one video. */
export interface VideoDetails {
  readonly id: Ids.VideoId
  readonly title: string | null
  readonly durationSeconds: number | null
  readonly channelId: Ids.ChannelId | null
  readonly channelTitle: string | null
  readonly publishedAt: DateTime.Utc | null
  /** The spoken language, when the platform knows it. */
  readonly originalLanguage: Language.LanguageCode | null
  readonly captionTracks: ReadonlyArray<Captions.CaptionTrack>
  /** Languages the platform can translate this video's captions into. */
  readonly translationLanguages: ReadonlyArray<Language.LanguageCode>
  /**
   * Set when the platform lists only dubbed audio tracks: speech recognition would hear a dub, in
   * this language (null when the platform does not tell it).
   */
  readonly audioDub?: { readonly language: Language.LanguageCode | null }
}

/** A video as a playlist or a channel's uploads list it (metadata only). */
export interface VideoEntry {
  readonly id: Ids.VideoId
  readonly title: string | null
  readonly durationSeconds: number | null
  /** Known for a channel's newest uploads; null where the list does not say. */
  readonly publishedAt: DateTime.Utc | null
}

/** One page of a playlist, in playlist order. */
export interface PlaylistPage {
  readonly id: Ids.PlaylistId
  readonly title: string | null
  readonly channelId: Ids.ChannelId | null
  readonly channelTitle: string | null
  /** The platform's count of the playlist's videos, when it tells. */
  readonly videoCount: number | null
  readonly videos: ReadonlyArray<VideoEntry>
  /** An opaque token for the next page; null on the last page. */
  readonly continuation: string | null
}

/** A channel, resolved from an id, a handle or a legacy `/c/` or `/user/` name. */
export interface ChannelDetails {
  readonly id: Ids.ChannelId
  readonly title: string
  readonly handle: Ids.ChannelHandle | null
  readonly subscriberCount: number | null
  readonly videoCount: number | null
}

/** One page of a channel's uploads, newest first. */
export interface UploadsPage {
  readonly channelId: Ids.ChannelId
  readonly videos: ReadonlyArray<VideoEntry>
  /** An opaque token for the next page; null on the last page. */
  readonly continuation: string | null
}

/** The audio track of a video, ready to be read. Nothing is downloaded until `bytes` runs. */
export interface AudioStream {
  readonly videoId: Ids.VideoId
  readonly durationSeconds: number
  /** As the platform names it, e.g. `audio/webm; codecs="opus"`. */
  readonly mimeType: string
  readonly contentLength: number | null
  /**
   * What a listener hears, when the platform tells: the track's language, and whether it is a dub
   * (the platform lists no original track, so speech recognition hears a dubbed language).
   */
  readonly heard?: { readonly language: Language.LanguageCode | null; readonly dubbed: boolean }
  readonly bytes: Stream.Stream<Uint8Array, PlatformError>
}

export interface AudioOptions {
  /** Longer videos fail with `DurationLimitExceeded` before any byte is downloaded. */
  readonly maxDurationSeconds: number
}

export interface CaptionOptions {
  /** The platform's own machine translation of the track into this language (`tlang`). */
  readonly translateTo?: Language.LanguageCode | undefined
}

/** The video does not exist, was removed, or cannot be played for a reason that is not listed below. */
export class VideoUnavailable extends Schema.TaggedError<VideoUnavailable>()("VideoUnavailable", {
  videoId: Schema.String,
  reason: Schema.String
}) {}

/** Why a video that exists cannot be read by this server. */
export const Restriction = Schema.Literal(
  "private",
  "age_restricted",
  "members_only",
  "premium",
  "region_blocked"
)
export type Restriction = typeof Restriction.Type

/** The video exists but is closed to this server: private, age-gated, paid or blocked in its region. */
export class VideoRestricted extends Schema.TaggedError<VideoRestricted>()("VideoRestricted", {
  videoId: Schema.String,
  restriction: Restriction,
  reason: Schema.String
}) {}

/** The video is a live stream that is on air or has not started: no captions or audio yet. */
export class VideoLive extends Schema.TaggedError<VideoLive>()("VideoLive", {
  videoId: Schema.String,
  state: Schema.Literal("live", "upcoming"),
  reason: Schema.String
}) {}

/** The video has no caption track of this kind in this language. */
export class CaptionTrackNotFound extends Schema.TaggedError<CaptionTrackNotFound>()("CaptionTrackNotFound", {
  videoId: Schema.String,
  language: Schema.String,
  kind: Schema.String
}) {}

/** The platform does not translate this video's captions into this language. */
export class TranslationUnavailable extends Schema.TaggedError<TranslationUnavailable>()(
  "TranslationUnavailable",
  { videoId: Schema.String, language: Schema.String }
) {}

/** No such playlist or channel (or it is private, or was terminated). */
export class CollectionNotFound extends Schema.TaggedError<CollectionNotFound>()("CollectionNotFound", {
  kind: Schema.Literal("playlist", "channel"),
  id: Schema.String,
  reason: Schema.String
}) {}

/**
 * The channel exists but is closed to this server: YouTube shows it only to signed-in adults (its
 * page is an age gate, `channelAgeGateRenderer`, with no uploads or counts).
 */
export class ChannelRestricted extends Schema.TaggedError<ChannelRestricted>()("ChannelRestricted", {
  channelId: Schema.String,
  restriction: Schema.Literal("age_restricted"),
  reason: Schema.String
}) {}

/** The video is longer than the caller takes; found before anything was downloaded. */
export class DurationLimitExceeded extends Schema.TaggedError<DurationLimitExceeded>()(
  "DurationLimitExceeded",
  { videoId: Schema.String, durationSeconds: Schema.Number, limitSeconds: Schema.Number }
) {}

/** The video plays, but its audio cannot be fetched by this server. */
export class AudioUnavailable extends Schema.TaggedError<AudioUnavailable>()("AudioUnavailable", {
  videoId: Schema.String,
  reason: Schema.String
}) {}

/**
 * How the platform refused: an IP block or reCAPTCHA page, a "confirm you're not a bot" check, a
 * consent page that could not be passed, caption URLs that want a proof-of-origin token, a rate
 * limit that outlasted every retry, or something else.
 */
export const BlockKind = Schema.Literal(
  "ip_blocked",
  "bot_check",
  "consent",
  "po_token_required",
  "rate_limited",
  "other"
)
export type BlockKind = typeof BlockKind.Type

/** The platform refuses to answer this server (bot check, IP block, rate limit...). */
export class PlatformBlocked extends Schema.TaggedError<PlatformBlocked>()("PlatformBlocked", {
  reason: Schema.String,
  kind: Schema.optionalWith(BlockKind, { default: () => "other" as const })
}) {}

/** The platform failed or timed out on every attempt (5xx, timeouts, network errors); retry later. */
export class PlatformUnavailable extends Schema.TaggedError<PlatformUnavailable>()("PlatformUnavailable", {
  reason: Schema.String,
  attempts: Schema.Number
}) {}

/**
 * The platform answered something this server cannot read (its pages changed, or an answer of a
 * shape never seen); `path` names the place in the answer that failed, when one does.
 */
export class PlatformFailure extends Schema.TaggedError<PlatformFailure>()("PlatformFailure", {
  reason: Schema.String,
  path: Schema.optional(Schema.String)
}) {}

export type PlatformError =
  | VideoUnavailable
  | VideoRestricted
  | VideoLive
  | CaptionTrackNotFound
  | TranslationUnavailable
  | CollectionNotFound
  | ChannelRestricted
  | DurationLimitExceeded
  | AudioUnavailable
  | PlatformBlocked
  | PlatformUnavailable
  | PlatformFailure

export class VideoPlatform extends Context.Tag("@verbatim/core/VideoPlatform")<
  VideoPlatform,
  {
    /** Details and caption tracks of a video. */
    readonly video: (id: Ids.VideoId) => Effect.Effect<VideoDetails, PlatformError>
    /**
     * The timed text of one of the video's caption tracks (matched on kind and language, ignoring
     * case), times in integer milliseconds, empty cues dropped; with `translateTo`, the platform's
     * own translation of it.
     */
    readonly captions: (
      id: Ids.VideoId,
      track: Captions.CaptionTrack,
      options?: CaptionOptions
    ) => Effect.Effect<ReadonlyArray<Transcript.Segment>, PlatformError>
    /** A page of a playlist: the first without `continuation`, the next with the previous page's token. */
    readonly playlist: (
      id: Ids.PlaylistId,
      continuation?: string
    ) => Effect.Effect<PlaylistPage, PlatformError>
    /** A channel by id, handle or legacy name. */
    readonly channel: (ref: Reference.ChannelRef) => Effect.Effect<ChannelDetails, PlatformError>
    /** A page of a channel's uploads, newest first. */
    readonly uploads: (id: Ids.ChannelId, continuation?: string) => Effect.Effect<UploadsPage, PlatformError>
    /** The audio of a video, its duration checked against the limit before anything is downloaded. */
    readonly audio: (id: Ids.VideoId, options: AudioOptions) => Effect.Effect<AudioStream, PlatformError>
  }
>() {}

/** At most this many pages are read for one collection, whatever the limit (a guard against loops). */
export const maxPages = 200

/** The first videos of a paged list, and whether more exist beyond them. */
export interface Collected<H> {
  readonly head: H
  readonly videos: ReadonlyArray<VideoEntry>
  readonly truncated: boolean
}

const collect = <
  P extends { readonly videos: ReadonlyArray<VideoEntry>; readonly continuation: string | null }
>(
  page: (continuation?: string) => Effect.Effect<P, PlatformError>,
  limit: number
): Effect.Effect<Collected<P>, PlatformError> =>
  Effect.gen(function* () {
    const wanted = Math.max(0, Math.floor(limit))
    const head = yield* page()
    const videos: Array<VideoEntry> = [...head.videos]
    const seen = new Set<string>()
    let continuation = head.continuation
    let pages = 1
    while (videos.length < wanted && continuation !== null && pages < maxPages && !seen.has(continuation)) {
      seen.add(continuation)
      const next = yield* page(continuation)
      videos.push(...next.videos)
      continuation = next.continuation
      pages++
    }
    return {
      head,
      videos: videos.slice(0, wanted),
      truncated: videos.length > wanted || continuation !== null
    }
  })

/**
 * The first `limit` videos of a playlist, following continuations; `truncated` when the playlist
 * holds more (or more pages than `maxPages` would have to be read).
 */
export const collectPlaylist = (
  id: Ids.PlaylistId,
  limit: number
): Effect.Effect<Collected<PlaylistPage>, PlatformError, VideoPlatform> =>
  Effect.flatMap(VideoPlatform, (platform) =>
    collect((continuation) => platform.playlist(id, continuation), limit)
  )

/** The newest `limit` uploads of a channel, following continuations. */
export const collectUploads = (
  id: Ids.ChannelId,
  limit: number
): Effect.Effect<Collected<UploadsPage>, PlatformError, VideoPlatform> =>
  Effect.flatMap(VideoPlatform, (platform) =>
    collect((continuation) => platform.uploads(id, continuation), limit)
  )
