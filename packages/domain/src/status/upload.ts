/** Upload status. Only `uploaded` is ever returned by the API. */
import { Schema } from "effect"

export const UploadStatus = Schema.Literal("registered", "uploaded", "consumed").annotations({
  identifier: "UploadStatus"
})
export type UploadStatus = typeof UploadStatus.Type
