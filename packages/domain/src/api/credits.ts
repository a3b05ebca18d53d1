/** GET /credits: the account's balance and plan. */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { Plan } from "../plan/plan.js"

export class CreditsResponse extends Schema.Class<CreditsResponse>("CreditsResponse")(
  {
    credits: Credits.annotations({
      description:
        "Credits available to spend: the ledger balance minus held_credits. Every 402 compares with it"
    }),
    plan: Plan,
    thumbnail_credits: Credits,
    onboarding_completed: Schema.Boolean,
    held_credits: Credits.annotations({
      description:
        "Credits reserved by paid work accepted and not finished yet (speech recognition, a translation in flight): settled at the real price or released when it ends"
    })
  },
  { description: "The account's credit balance and plan" }
) {}
