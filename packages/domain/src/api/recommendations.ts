/** GET /recommendations/videos: new uploads of the channels the account transcribes most. Free. */
import { Schema } from "effect"
import { ChannelId, VideoId } from "../ids.js"
import {
  RecommendationsChannels,
  RecommendationsLimit,
  recommendationsChannels,
  recommendationsLimit
} from "../plan/limits.js"
import { allErrors, Count, HttpUrl, intQuery } from "./fields.js"

export const RecommendationsQuery = Schema.Struct({
  limit: intQuery(RecommendationsLimit, recommendationsLimit.default),
  /** How many of the most transcribed channels to draw from. */
  channels: intQuery(RecommendationsChannels, recommendationsChannels.default)
}).annotations({
  identifier: "RecommendationsQuery",
  description: "limit (1 to 30, default 6) and channels (1 to 10, default 3)",
  ...allErrors
})
export type RecommendationsQuery = typeof RecommendationsQuery.Type

export class RecommendedVideo extends Schema.Class<RecommendedVideo>("RecommendedVideo")(
  {
    video_id: VideoId,
    title: Schema.String,
    url: HttpUrl,
    thumbnail_url: HttpUrl,
    published_at: Schema.DateTimeUtc,
    duration_seconds: Count,
    channel_id: ChannelId,
    channel_title: Schema.String
  },
  { description: "A recent video not transcribed yet" }
) {}

export class RecommendationChannel extends Schema.Class<RecommendationChannel>("RecommendationChannel")(
  {
    channel_id: ChannelId,
    channel_title: Schema.String,
    transcribed_count: Count
  },
  { description: "A channel the recommendations come from and how many of its videos were transcribed" }
) {}

export class RecommendationsResponse extends Schema.Class<RecommendationsResponse>("RecommendationsResponse")(
  {
    recommendations: Schema.Array(RecommendedVideo),
    channels: Schema.Array(RecommendationChannel),
    count: Count
  },
  { description: "New videos from the most transcribed channels, interleaved, newest first" }
) {}
