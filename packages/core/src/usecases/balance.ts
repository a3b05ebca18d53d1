/**
 * GET /credits: the available balance (the ledger balance minus open holds, what a 402 check
 * compares with) as `credits`, what open holds reserve as `held_credits`, and the plan.
 */
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
        ledger.funds(account.id).pipe(
          Effect.map(
            (funds) =>
              new Api.CreditsResponse({
                credits: funds.available,
                held_credits: funds.held,
                plan: account.plan,
                thumbnail_credits: 0,
                onboarding_completed: account.onboardingCompleted
              })
          )
        )
    })
  })
)
