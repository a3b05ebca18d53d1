/**
 * Who a request acts for: the account behind its API key, as every entry point (HTTP, GPT, MCP)
 * knows it, and `CurrentAccount`, the service an authenticated request provides. Both live in the
 * domain so that the HTTP contract (`@verbatim/contract`), which depends on the domain alone, can
 * declare that its authentication provides the account; core's ports and use cases use the same.
 *
 * An account holds no balance: whoever needs one asks the ledger, so an account kept between
 * requests (the key cache of core's `Access`) never answers a stale balance.
 */
import { Context, Schema } from "effect"
import { AccountId } from "./ids.js"
import { Mode } from "./mode/mode.js"
import { Plan } from "./plan/plan.js"

export const Account = Schema.Struct({
  id: AccountId,
  name: Schema.String,
  plan: Plan,
  /** The mode applied when a request names neither `mode` nor the legacy fields. */
  defaultMode: Mode,
  onboardingCompleted: Schema.Boolean,
  createdAt: Schema.DateTimeUtc
})
export interface Account extends Schema.Schema.Type<typeof Account> {}

/** Who is calling: the account behind the request's API key. */
export class CurrentAccount extends Context.Tag("@verbatim/core/CurrentAccount")<CurrentAccount, Account>() {}
