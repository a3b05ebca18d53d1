/**
 * GET /videos/info (our addition): a free look at a video before paying anything, its title,
 * channel, duration, caption and translation languages, the price of each mode for this account
 * and what it owns (core's `VideoInfoLookup`). One request of the account's rate limit, like
 * every read; nothing is charged or stored.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { basePath } from "../base.js"
import { BadRequest, NotFound, ServiceUnavailable } from "../errors.js"
import { plainWords } from "../plain-words.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"

export class VideosGroup extends HttpApiGroup.make("videos")
  .add(
    HttpApiEndpoint.get("info", "/videos/info")
      .setUrlParams(plainWords(query(Api.VideoInfoQuery)))
      .addSuccess(Api.VideoInfo)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "A video's title, duration, caption languages and the price of each mode (free)"
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Videos looked at before transcribing")
  .prefix(basePath) {}
