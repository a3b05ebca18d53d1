/**
 * The development seed of the embedded default: on an empty database, one account with credits and
 * an API key, printed once with a curl example. The key is stored only as a hash, so later starts
 * say the account exists and how to issue a new key, never the key itself.
 */
import { AccountAdmin, type PersistenceError } from "@verbatim/core"
import type { Errors } from "@verbatim/domain"
import { Console, Effect } from "effect"

export const seedAccountName = "Development"
export const seedPlan = "pro" as const
export const seedCredits = 1000

export type SeedOutcome =
  | { readonly _tag: "Seeded"; readonly accountId: string; readonly key: string }
  | { readonly _tag: "Exists"; readonly accountId: string }
  | { readonly _tag: "Skipped"; readonly accounts: number }

/** Seeds the development account into an empty database; otherwise reports what is there. */
export const seed: Effect.Effect<SeedOutcome, Errors.ApiError | PersistenceError, AccountAdmin> = Effect.gen(
  function* () {
    const admin = yield* AccountAdmin
    const accounts = yield* admin.listAccounts
    if (accounts.length > 0) {
      const existing = accounts.find((account) => account.name === seedAccountName)
      return existing === undefined
        ? ({ _tag: "Skipped", accounts: accounts.length } as const)
        : ({ _tag: "Exists", accountId: existing.id } as const)
    }
    const account = yield* admin.createAccount({
      name: seedAccountName,
      plan: seedPlan,
      credits: seedCredits
    })
    const issued = yield* admin.issueKey(account.id)
    return { _tag: "Seeded", accountId: account.id, key: issued.key } as const
  }
)

/** What the operator reads about the seed. */
export const describeSeed = (outcome: SeedOutcome, baseUrl: string): string => {
  switch (outcome._tag) {
    case "Seeded":
      return [
        "",
        `Seeded a development account (${seedPlan} plan, ${seedCredits} credits): ${outcome.accountId}`,
        "Its API key, shown this once (only a hash is stored):",
        "",
        `  ${outcome.key}`,
        "",
        "Try it:",
        `  curl -H "Authorization: Bearer ${outcome.key}" ${baseUrl}/api/v2/credits`,
        ""
      ].join("\n")
    case "Exists":
      return `Development account ${outcome.accountId} exists; its key is not shown again. A new one: pnpm admin keys issue --account ${outcome.accountId}`
    case "Skipped":
      return `Not seeding: the database already holds ${outcome.accounts} account(s).`
  }
}

export const seedAndReport = (
  baseUrl: string
): Effect.Effect<void, Errors.ApiError | PersistenceError, AccountAdmin> =>
  Effect.flatMap(seed, (outcome) => Console.log(describeSeed(outcome, baseUrl)))
