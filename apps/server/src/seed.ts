/**
 * The development seed, on PGlite and PostgreSQL alike: on an empty database, one account with
 * credits and an API key, printed once with a curl example. The key is stored only as a hash, so
 * later starts say the account exists and how to issue a new key, never the key itself. With the
 * seed switched off (VERBATIM_SEED=false), an empty database gets the commands to run instead.
 *
 * Servers started together on one PostgreSQL seed once: the check and the seed run in one
 * transaction holding an advisory lock, so the others wait and then find the account.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { AccountAdmin, PersistenceError } from "@verbatim/core"
import type { Errors } from "@verbatim/domain"
import { type LogSettings, notice } from "@verbatim/runtime"
import { Effect } from "effect"

export const seedAccountName = "Development"
export const seedPlan = "pro" as const
export const seedCredits = 1000

export type SeedOutcome =
  | { readonly _tag: "Seeded"; readonly accountId: string; readonly key: string }
  | { readonly _tag: "Exists"; readonly accountId: string }
  | { readonly _tag: "Skipped"; readonly accounts: number }
  | { readonly _tag: "Off"; readonly accounts: number }

const unlocked: Effect.Effect<SeedOutcome, Errors.ApiError | PersistenceError, AccountAdmin> = Effect.gen(
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

/** The advisory lock the seed holds (any fixed number: only the seed takes it). */
export const seedLock = 7_355_608

/**
 * Seeds the development account into an empty database; otherwise reports what is there. One
 * transaction under an advisory lock, so concurrent starts seed once.
 */
export const seed: Effect.Effect<
  SeedOutcome,
  Errors.ApiError | PersistenceError,
  AccountAdmin | SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql
    .withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(${seedLock})`, unlocked))
    .pipe(
      Effect.catchTag("SqlError", (cause) => Effect.fail(new PersistenceError({ operation: "seed", cause })))
    )
})

/** What an empty database needs when the seed is off: an account and a key. */
export const unseeded: Effect.Effect<SeedOutcome, Errors.ApiError | PersistenceError, AccountAdmin> =
  Effect.map(
    Effect.flatMap(AccountAdmin, (admin) => admin.listAccounts),
    (accounts) => ({ _tag: "Off", accounts: accounts.length }) as const
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
    case "Off":
      return outcome.accounts > 0
        ? `${outcome.accounts} account(s) in the database; keys: pnpm admin keys issue --account <id> (ids: pnpm admin accounts list)`
        : [
            "",
            "The database holds no account yet (VERBATIM_SEED=false). Create one and its API key with the",
            "same database settings (DATABASE_URL) as this server:",
            "",
            '  pnpm admin accounts create --name "Me" --plan pro --credits 1000',
            "  pnpm admin keys issue --account <the account id it printed>",
            "",
            "or start once with VERBATIM_SEED=true to create a development account and print its key.",
            ""
          ].join("\n")
  }
}

/**
 * The seed's report as one JSON log line: a message of one line and its fields. The key is a field
 * of the `Seeded` line, written this once (a deployment whose logs are shipped sets
 * VERBATIM_SEED=false and issues keys with `pnpm admin`).
 */
export const seedLine = (
  outcome: SeedOutcome
): { readonly message: string; readonly fields: Record<string, unknown> } => {
  switch (outcome._tag) {
    case "Seeded":
      return {
        message: `Seeded a development account (${seedPlan} plan, ${seedCredits} credits); its API key, shown this once (only a hash is stored), is the key field`,
        fields: { account: outcome.accountId, key: outcome.key }
      }
    case "Exists":
      return {
        message: `Development account ${outcome.accountId} exists; its key is not shown again. A new one: pnpm admin keys issue --account ${outcome.accountId}`,
        fields: { account: outcome.accountId }
      }
    case "Skipped":
      return { message: describeSeed(outcome, ""), fields: { accounts: outcome.accounts } }
    case "Off":
      return {
        message:
          outcome.accounts > 0
            ? describeSeed(outcome, "")
            : "The database holds no account yet (VERBATIM_SEED=false). Create one with the same database settings (DATABASE_URL): pnpm admin accounts create --name 'Me' --plan pro --credits 1000, then pnpm admin keys issue --account <its id>",
        fields: { accounts: outcome.accounts }
      }
  }
}

/** Seeds (when `enabled`) and tells the operator how to get a key, as text or as one JSON log line. */
export const seedAndReport = (
  baseUrl: string,
  enabled: boolean,
  log: LogSettings
): Effect.Effect<void, Errors.ApiError | PersistenceError, AccountAdmin | SqlClient.SqlClient> =>
  Effect.flatMap(enabled ? seed : unseeded, (outcome) => {
    const line = seedLine(outcome)
    return notice(log, describeSeed(outcome, baseUrl), line.message, line.fields)
  })
