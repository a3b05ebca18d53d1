/** GET /credits: the account's balance and plan. */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { Plan } from "../plan/plan.js"

export class CreditsResponse extends Schema.Class<CreditsResponse>("CreditsResponse")(
  {
    credits: Credits,
    plan: Plan,
    thumbnail_credits: Credits,
    onboarding_completed: Schema.Boolean
  },
  { description: "The account's credit balance and plan" }
) {}
