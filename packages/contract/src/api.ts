/**
 * `VerbatimApi`: the Transcript Service API v2 as one `HttpApi`, the single source of the server's
 * routes, the typed client and the OpenAPI document. Each group is declared in `groups/`; its
 * handlers are `@verbatim/api`'s (`src/groups/`). Every path starts with `/api/v2`.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { apiId } from "./base.js"
import { BatchGroup } from "./groups/batch.js"
import { ChannelsGroup, PlaylistsGroup, RecommendationsGroup } from "./groups/collections.js"
import { CreditsGroup } from "./groups/credits.js"
import { HealthGroup } from "./groups/health.js"
import { JobsGroup } from "./groups/jobs.js"
import { ThemesGroup } from "./groups/themes.js"
import { TranscribeGroup } from "./groups/transcribe.js"
import { TranscriptPagesGroup } from "./groups/transcript-pages.js"
import { TranscriptsGroup } from "./groups/transcripts.js"
import { UploadsGroup } from "./groups/uploads.js"
import { VideosGroup } from "./groups/videos.js"
import { transformDocument } from "./openapi.js"

export const title = "Transcript Service API"
export const version = "2.1.0"

export class VerbatimApi extends HttpApi.make(apiId)
  .add(HealthGroup)
  .add(CreditsGroup)
  .add(TranscribeGroup)
  .add(JobsGroup)
  .add(TranscriptsGroup)
  .add(TranscriptPagesGroup)
  .add(VideosGroup)
  .add(ThemesGroup)
  .add(UploadsGroup)
  .add(BatchGroup)
  .add(PlaylistsGroup)
  .add(ChannelsGroup)
  .add(RecommendationsGroup)
  .annotateContext(
    OpenApi.annotations({
      title,
      version,
      description:
        "Transcripts of videos and uploads, from captions or speech recognition, stored per account. " +
        "Every endpoint except `GET /ping` and `GET /health` needs the header " +
        "`Authorization: Bearer <API key>`. Errors answer `{ error, message, details }`.",
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
      transform: transformDocument
    })
  ) {}
