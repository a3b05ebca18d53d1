/**
 * get_credits: the balance, the credits held by running work, and the plan.
 */
import { Api } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { AccountOperations } from "../operations.js"
import { defineTool } from "../tool.js"

export const getCredits = defineTool({
  name: "get_credits",
  title: "Credit balance",
  description:
    "The user's credits available to spend (credits), those held by work still running (held_credits), and the plan. Free.",
  input: Schema.Struct({}),
  output: Schema.Struct(Api.CreditsResponse.fields),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: () => Effect.flatMap(AccountOperations, (operations) => operations.credits)
})
