/**
 * DELETE /transcripts/{video_id} and POST /transcripts/bulk-delete. A bulk delete names 1 to
 * `maxBulkDeleteIds` (1000) transcript ids.
 */
import { Schema } from "effect"
import { TranscriptId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { SourceKind } from "../transcript/segment.js"
import { allErrors, Count, optionalQuery, requestAnnotations } from "./fields.js"

export const maxBulkDeleteIds = 1000

/** DELETE /transcripts/{video_id} query: without language and source, everything owned for the video. */
export const DeleteTranscriptQuery = Schema.Struct({
  language: optionalQuery(LanguageCode),
  source: optionalQuery(SourceKind)
}).annotations({
  identifier: "DeleteTranscriptQuery",
  description: "language and source narrow the delete; without them every owned transcript of the video goes",
  ...allErrors
})
export type DeleteTranscriptQuery = typeof DeleteTranscriptQuery.Type

export class BulkDeleteRequest extends Schema.Class<BulkDeleteRequest>("BulkDeleteRequest")(
  {
    ids: Schema.Array(TranscriptId).pipe(Schema.minItems(1), Schema.maxItems(maxBulkDeleteIds))
  },
  requestAnnotations("BulkDeleteRequest", `Delete 1 to ${maxBulkDeleteIds} owned transcripts by id`)
) {}

export class DeleteResponse extends Schema.Class<DeleteResponse>("DeleteResponse")(
  {
    success: Schema.Boolean,
    deleted: Count,
    message: Schema.String
  },
  { description: "How many transcripts were deleted" }
) {}
