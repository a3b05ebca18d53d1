/**
 * Themes of a stored transcript: POST /transcripts/{video_id}/themes (unlocks for 1 credit, once;
 * waits about 25 s, then 202 processing) and GET /transcripts/{video_id}/themes (never charges:
 * locked with `credits_required`, 202 processing, or the completed themes).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { basePath } from "../base.js"
import { BadRequest, Forbidden, NotFound, PaymentRequired, ServiceUnavailable } from "../errors.js"
import { plainWords } from "../plain-words.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"
import { VideoPath } from "./transcripts.js"

export class ThemesGroup extends HttpApiGroup.make("themes")
  .add(
    HttpApiEndpoint.post("unlock", "/transcripts/:video_id/themes")
      .setPath(plainWords(VideoPath))
      .setUrlParams(plainWords(query(Api.ThemesQuery)))
      .addSuccess(Api.ThemesResponse)
      .addSuccess(Api.ThemesProcessing, { status: 202 })
      .addError(PaymentRequired)
      .addError(Forbidden)
      .addError(NotFound)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Unlock the themes of a transcript (1 credit, once) and wait for them")
      .annotate(
        OpenApi.Description,
        "Charges 1 credit the first time (0 for a transcript under 50 words, which gets empty themes; " +
          "0 once unlocked). Waits about 25 seconds for detection: 200 completed, or 202 processing " +
          "(paid, still running: poll GET). A detection that fails is refunded and answers 503 " +
          "`themes_unavailable` (a new POST may try again, charged again)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/transcripts/:video_id/themes")
      .setPath(plainWords(VideoPath))
      .setUrlParams(plainWords(query(Api.ThemesQuery)))
      .addSuccess(Api.ThemesResponse)
      .addSuccess(Api.ThemesLocked)
      .addSuccess(Api.ThemesProcessing, { status: 202 })
      .addError(Forbidden)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The themes of a transcript: locked, processing (202) or completed; free")
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Themes, keywords and moments of a stored transcript")
  .prefix(basePath) {}
