/**
 * GET /videos/info (our addition): what a video is and what transcribing it would cost, before
 * paying anything: title, channel, duration, the caption languages (human and automatic), the
 * languages the platform can translate its captions into, the price of each mode for this account
 * (what it owns is served again for 0) and the transcripts it owns already. Free; one request of
 * the account's rate limit.
 */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { ChannelId, VideoId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { Mode } from "../mode/mode.js"
import { SourceKind } from "../transcript/segment.js"
import { NonNegativeNumber, ReferenceInput } from "./fields.js"

export const VideoInfoQuery = Schema.Struct({
  video: ReferenceInput
}).annotations({
  identifier: "VideoInfoQuery",
  description: "video: a YouTube URL or video id",
  parseOptions: { errors: "all" }
})
export type VideoInfoQuery = typeof VideoInfoQuery.Type

/** What one mode would serve and charge for the video. */
export const ModePrice = Schema.Struct({
  mode: Mode,
  available: Schema.Boolean.annotations({
    description:
      "false when the mode has nothing to serve (no captions it accepts) or the video is too long for ASR"
  }),
  source: Schema.NullOr(SourceKind).annotations({
    description: "manual, auto (captions) or asr; null when unavailable"
  }),
  language: Schema.NullOr(LanguageCode).annotations({
    description: "The caption language served; null for asr"
  }),
  credits: Credits.annotations({ description: "Credits it would charge (0 when owned or unavailable)" }),
  owned: Schema.Boolean.annotations({
    description: "true when the account owns that transcript: served again for 0"
  })
}).annotations({ identifier: "ModePrice", description: "What a mode would serve and charge" })
export type ModePrice = typeof ModePrice.Type

export class VideoInfo extends Schema.Class<VideoInfo>("VideoInfo")(
  {
    video_id: VideoId,
    title: Schema.NullOr(Schema.String),
    channel_id: Schema.NullOr(ChannelId),
    channel_title: Schema.NullOr(Schema.String),
    duration_seconds: Schema.NullOr(NonNegativeNumber),
    original_language: Schema.NullOr(LanguageCode),
    manual_caption_languages: Schema.Array(LanguageCode).annotations({
      description: "Human-made caption tracks"
    }),
    auto_caption_languages: Schema.Array(LanguageCode).annotations({
      description: "Automatic caption tracks"
    }),
    translation_languages: Schema.Array(LanguageCode).annotations({
      description: "Languages the platform can translate the captions into"
    }),
    default_mode: Mode.annotations({
      description: "The account's default mode: what transcribe applies without mode"
    }),
    prices: Schema.Array(ModePrice).annotations({ description: "Each mode's price for this account" }),
    owned: Schema.Array(Schema.Struct({ language: LanguageCode, source: SourceKind })).annotations({
      description: "The transcripts of the video the account owns already (reading them is free)"
    }),
    max_duration_minutes: NonNegativeNumber,
    exceeds_max_duration: Schema.Boolean
  },
  { description: "A video and the price of each mode, before paying anything" }
) {}
