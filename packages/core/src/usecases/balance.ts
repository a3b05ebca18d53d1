/** GET /credits: the balance as the ledger has it now, and the plan. */
import { Api } from "@verbatim/domain"
import { Effect, Layer } from "effect"
import { Ledger } from "../ports/ledger.js"
import { Balance } from "./tags.js"

export const BalanceLive = Layer.effect(
  Balance,
  Effect.gen(function* () {
    const ledger = yield* Ledger
    return Balance.of({
      credits: (account) =>
        ledger.balance(account.id).pipe(
          Effect.map(
            (credits) =>
              new Api.CreditsResponse({
                credits,
                plan: account.plan,
                thumbnail_credits: 0,
                onboarding_completed: account.onboardingCompleted
              })
          )
        )
    })
  })
)
