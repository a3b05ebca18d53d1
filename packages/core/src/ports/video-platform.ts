/**
 * The video platform: where videos, their caption tracks and caption texts come from.
 * YouTube in production, the demo catalogue for trials and tests; both implement this port.
 */
import type { Captions, Ids, Language, Transcript } from "@verbatim/domain"
import { Context, type DateTime, type Effect, Schema } from "effect"

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
}

/** The video does not exist, is private, or cannot be played. */
export class VideoUnavailable extends Schema.TaggedError<VideoUnavailable>()("VideoUnavailable", {
  videoId: Schema.String,
  reason: Schema.String
}) {}

/** The platform refuses to answer this server (bot check, IP block, rate limit). */
export class PlatformBlocked extends Schema.TaggedError<PlatformBlocked>()("PlatformBlocked", {
  reason: Schema.String
}) {}

/** The platform could not be reached or answered something unreadable; retrying may help. */
export class PlatformFailure extends Schema.TaggedError<PlatformFailure>()("PlatformFailure", {
  reason: Schema.String
}) {}

export type PlatformError = VideoUnavailable | PlatformBlocked | PlatformFailure

export class VideoPlatform extends Context.Tag("@verbatim/core/VideoPlatform")<
  VideoPlatform,
  {
    /** Details and caption tracks of a video. */
    readonly video: (id: Ids.VideoId) => Effect.Effect<VideoDetails, PlatformError>
    /** The timed text of one of the video's caption tracks, times in integer milliseconds. */
    readonly captions: (
      id: Ids.VideoId,
      track: Captions.CaptionTrack
    ) => Effect.Effect<ReadonlyArray<Transcript.Segment>, PlatformError>
  }
>() {}
