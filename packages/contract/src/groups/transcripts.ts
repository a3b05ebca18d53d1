/**
 * Stored transcripts: GET /transcripts, GET /transcripts/{video_id} (JSON, or an export with
 * `format=srt|vtt|txt`), DELETE /transcripts/{video_id}, POST /transcripts/bulk-delete and
 * GET /transcripts/{video_id}/languages, and POST /transcripts/{video_id}/translate.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { Schema } from "effect"
import { basePath } from "../base.js"
import { BadRequest, Forbidden, NotFound, PaymentRequired, ServiceUnavailable } from "../errors.js"
import { documentExports } from "../exports.js"
import { plainWords } from "../plain-words.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"

/** The longest `{video_id}` accepted in a path: a video id, or an upload id for uploads. */

export const VideoPath = Schema.Struct({
  video_id: Api.VideoKey
})

/** The query of GET /transcripts, as the endpoint declares and decodes it (and the hot route too). */
export const TranscriptListParams = query(Api.TranscriptListQuery)

export class TranscriptsGroup extends HttpApiGroup.make("transcripts")
  .add(
    HttpApiEndpoint.get("list", "/transcripts")
      .setUrlParams(plainWords(TranscriptListParams))
      .addSuccess(Api.TranscriptList)
      .annotate(OpenApi.Summary, "The account's transcripts: search, filters and pagination")
  )
  .add(
    HttpApiEndpoint.get("get", "/transcripts/:video_id")
      .setPath(plainWords(VideoPath))
      .setUrlParams(plainWords(query(Api.TranscriptQuery)))
      .addSuccess(Api.StoredTranscript)
      .addError(Forbidden)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The best owned transcript of a video, as JSON, SRT, WebVTT or text")
      .annotate(OpenApi.Transform, documentExports)
  )
  .add(
    HttpApiEndpoint.del("remove", "/transcripts/:video_id")
      .setPath(plainWords(VideoPath))
      .setUrlParams(plainWords(query(Api.DeleteTranscriptQuery)))
      .addSuccess(Api.DeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete the owned transcripts of a video (all, or by language and source)")
  )
  .add(
    HttpApiEndpoint.post("bulkRemove", "/transcripts/bulk-delete")
      .setPayload(plainWords(Api.BulkDeleteRequest))
      .addSuccess(Api.DeleteResponse)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "Delete owned transcripts by id")
  )
  .add(
    HttpApiEndpoint.get("languages", "/transcripts/:video_id/languages")
      .setPath(plainWords(VideoPath))
      .setUrlParams(plainWords(query(Api.LanguagesQuery)))
      .addSuccess(Api.LanguagesResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The languages owned for a video and the platform's translation targets")
  )
  .add(
    HttpApiEndpoint.post("translate", "/transcripts/:video_id/translate")
      .setPath(plainWords(VideoPath))
      .setPayload(plainWords(Api.TranslateRequest))
      .addSuccess(Api.TranslateResponse)
      .addError(PaymentRequired)
      .addError(Forbidden)
      .addError(NotFound)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "Translate an owned transcript (1 credit per 2,500 characters; owned translations free)"
      )
      .annotate(
        OpenApi.Description,
        "Translates the best owned transcript (or the one in `source_language`) into `target_language` and " +
          "stores it as an owned transcript whose segments keep the source's times. `provider: platform` " +
          "(the default) uses the video platform's caption translation when the video offers the target; " +
          "`provider: ai` (or `allow_ai_fallback: true`) the server's machine translation engine. Costs " +
          "1 credit per 2,500 characters of the source text, charged once after success; a translation " +
          "already owned is returned for 0 credits. 400 `unsupported_language` when no provider can " +
          "translate into the target, 402 when the balance is short (checked before any work), 503 " +
          "`translation_unavailable` when the engine failed (nothing charged)."
      )
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Transcripts the account owns")
  .prefix(basePath) {}
