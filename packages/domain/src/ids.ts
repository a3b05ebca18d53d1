/**
 * Branded identifiers. A value of one brand can never be passed where another is expected,
 * so a job id can't be looked up as a batch id by mistake.
 */
import { Schema } from "effect"

/** An 11-character YouTube-style video id: letters, digits, `-` and `_`. */
export const VideoId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{11}$/),
  Schema.brand("VideoId"),
  Schema.annotations({
    identifier: "VideoId",
    description: "An 11-character video id",
    examples: ["dQw4w9WgXcQ" as never]
  })
)
export type VideoId = typeof VideoId.Type

const uuidBrand = <B extends string>(brand: B, description: string) =>
  Schema.UUID.pipe(Schema.brand(brand), Schema.annotations({ identifier: brand, description }))

export const JobId = uuidBrand("JobId", "Id of a transcription job (uuid)")
export type JobId = typeof JobId.Type

export const BatchId = uuidBrand("BatchId", "Id of a batch (uuid)")
export type BatchId = typeof BatchId.Type

export const UploadId = uuidBrand("UploadId", "Id of a media upload (uuid)")
export type UploadId = typeof UploadId.Type

export const AccountId = uuidBrand("AccountId", "Id of an account (uuid)")
export type AccountId = typeof AccountId.Type

export const TranscriptId = uuidBrand("TranscriptId", "Id of a stored transcript (uuid)")
export type TranscriptId = typeof TranscriptId.Type

export const RequestId = uuidBrand("RequestId", "Id of one API request (uuid)")
export type RequestId = typeof RequestId.Type

export const CollectionId = uuidBrand("CollectionId", "Id of a playlist or channel batch (uuid)")
export type CollectionId = typeof CollectionId.Type

/** A playlist id: the value of a playlist URL's `list=` parameter. */
export const PlaylistId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{2,64}$/),
  Schema.brand("PlaylistId"),
  Schema.annotations({ identifier: "PlaylistId", description: "A playlist id (the list= value)" })
)
export type PlaylistId = typeof PlaylistId.Type

/** A channel id: `UC` followed by 22 characters. */
export const ChannelId = Schema.String.pipe(
  Schema.pattern(/^UC[A-Za-z0-9_-]{22}$/),
  Schema.brand("ChannelId"),
  Schema.annotations({ identifier: "ChannelId", description: "A channel id (UC followed by 22 characters)" })
)
export type ChannelId = typeof ChannelId.Type

/** A channel handle, stored without the leading `@`. */
export const ChannelHandle = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._-]{3,30}$/),
  Schema.brand("ChannelHandle"),
  Schema.annotations({ identifier: "ChannelHandle", description: "A channel handle without the leading @" })
)
export type ChannelHandle = typeof ChannelHandle.Type
