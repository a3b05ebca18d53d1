/**
 * POST /uploads and POST /uploads/{upload_id}/complete. The size and duration limits are inclusive
 * (DESIGN decision 12); both must be positive integers. A MIME type is `audio/` or `video/`
 * (case-insensitive, as MIME types are) followed by a subtype and optional parameters.
 */
import { Schema } from "effect"
import { UploadId } from "../ids.js"
import { maxUploadDurationSeconds, maxUploadSizeBytes } from "../plan/limits.js"
import { HttpUrl, requestAnnotations } from "./fields.js"

export const maxFilenameLength = 255
export const maxMimeTypeLength = 255

export const UploadMimeType = Schema.String.pipe(
  Schema.maxLength(maxMimeTypeLength),
  Schema.pattern(/^(audio|video)\/[a-z0-9!#$&^_.+-]+(\s*;.*)?$/i, {
    message: () => "mime_type must start with audio/ or video/"
  })
).annotations({
  identifier: "UploadMimeType",
  description: "A MIME type starting with audio/ or video/",
  arbitrary: () => (fc) =>
    fc
      .tuple(
        fc.constantFrom("audio", "video", "Audio", "VIDEO"),
        fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,20}$/),
        fc.option(fc.constantFrom("; codecs=opus", ';codecs="avc1"'), { nil: "" })
      )
      .map(([type, subtype, parameters]) => `${type}/${subtype}${parameters}`)
})

export const UploadFilename = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(maxFilenameLength)
).annotations({
  identifier: "UploadFilename",
  description: `A file name of 1 to ${maxFilenameLength} characters`
})

export const UploadSizeBytes = Schema.Int.pipe(Schema.between(1, maxUploadSizeBytes)).annotations({
  identifier: "UploadSizeBytes",
  description: `The file size in bytes, 1 to ${maxUploadSizeBytes}`
})

export const UploadDurationSeconds = Schema.Int.pipe(Schema.between(1, maxUploadDurationSeconds)).annotations(
  {
    identifier: "UploadDurationSeconds",
    description: `The media duration in whole seconds, 1 to ${maxUploadDurationSeconds}`
  }
)

export class UploadCreateRequest extends Schema.Class<UploadCreateRequest>("UploadCreateRequest")(
  {
    filename: UploadFilename,
    mime_type: UploadMimeType,
    size_bytes: UploadSizeBytes,
    duration_sec: UploadDurationSeconds
  },
  requestAnnotations("UploadCreateRequest", "Register a media file before uploading its bytes")
) {}

export class UploadCreateResponse extends Schema.Class<UploadCreateResponse>("UploadCreateResponse")(
  {
    upload_id: UploadId,
    bucket: Schema.String,
    path: Schema.String,
    /** The signed upload token embedded in signed_url. */
    token: Schema.String,
    signed_url: HttpUrl
  },
  { description: "Where to PUT the file's bytes, with its Content-Type header" }
) {}

export class UploadCompleteResponse extends Schema.Class<UploadCompleteResponse>("UploadCompleteResponse")(
  {
    upload_id: UploadId,
    status: Schema.Literal("uploaded"),
    filename: UploadFilename,
    duration_sec: Schema.NullOr(Schema.NonNegativeInt)
  },
  { description: "The file is in storage and can be transcribed with upload_id" }
) {}
