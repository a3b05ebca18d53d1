/** GET /credits: the account's balance and plan. */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Balance, CurrentAccount } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"
import { apiId, basePath } from "../base.js"
import { Authentication } from "../security.js"
import { useCase } from "../use-case.js"

export class CreditsGroup extends HttpApiGroup.make("credits")
  .add(
    HttpApiEndpoint.get("credits", "/credits")
      .addSuccess(Api.CreditsResponse)
      .annotate(OpenApi.Summary, "Credit balance and plan")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The account's credits")
  .prefix(basePath) {}

export const CreditsHttp = HttpApiBuilder.group(
  HttpApi.make(apiId).add(CreditsGroup),
  "credits",
  (handlers) =>
    handlers.handle("credits", () =>
      Effect.gen(function* () {
        const balance = yield* Balance
        return yield* useCase(balance.credits(yield* CurrentAccount))
      })
    )
)
