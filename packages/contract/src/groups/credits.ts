/** GET /credits: the account's balance and plan. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { basePath } from "../base.js"
import { Authentication } from "../security.js"

export class CreditsGroup extends HttpApiGroup.make("credits")
  .add(
    HttpApiEndpoint.get("credits", "/credits")
      .addSuccess(Api.CreditsResponse)
      .annotate(OpenApi.Summary, "Credit balance and plan")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The account's credits")
  .prefix(basePath) {}
