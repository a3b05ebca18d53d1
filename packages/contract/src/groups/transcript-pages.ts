/**
 * GET /transcripts/{video_id}/pages (our addition): a stored transcript a page at a time, for
 * clients whose answers are bounded (GPT Actions: about 100,000 characters; a 3-hour transcript
 * is several times that as JSON). The paging rule and its cursors are core's
 * (`TranscriptChunks`), the same as the MCP tool get_transcript's: a cursor from one reads on in
 * the other. Free; each page is one request of the account's rate limit, like every read.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { basePath } from "../base.js"
import { Forbidden, NotFound } from "../errors.js"
import { plainWords } from "../plain-words.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"
import { VideoPath } from "./transcripts.js"

export class TranscriptPagesGroup extends HttpApiGroup.make("transcriptPages")
  .add(
    HttpApiEndpoint.get("page", "/transcripts/:video_id/pages")
      .setPath(plainWords(VideoPath))
      .setUrlParams(plainWords(query(Api.TranscriptPageQuery)))
      .addSuccess(Api.TranscriptPage)
      .addError(Forbidden)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "A page of a stored transcript; next_cursor reads the next one")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Stored transcripts read a page at a time")
  .prefix(basePath) {}
