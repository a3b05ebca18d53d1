/** GET /credits: the account's balance and plan. */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { Balance, CurrentAccount } from "@verbatim/core"
import { Effect } from "effect"
import { useCase } from "../use-case.js"

export const CreditsHttp = HttpApiBuilder.group(VerbatimApi, "credits", (handlers) =>
  handlers.handle("credits", () =>
    Effect.gen(function* () {
      const balance = yield* Balance
      return yield* useCase(balance.credits(yield* CurrentAccount))
    })
  )
)
