/** What the admin command prints: a readable line per result, or JSON (`--json`) in the API's snake_case. */
import type { AccountWithBalance, ApiKey, IssuedKey } from "@verbatim/core"
import { DateTime } from "effect"

const iso = (at: DateTime.Utc): string => DateTime.formatIso(at)

export const accountJson = (account: AccountWithBalance) => ({
  id: account.id,
  name: account.name,
  plan: account.plan,
  credits: account.credits,
  default_mode: account.defaultMode,
  onboarding_completed: account.onboardingCompleted,
  created_at: iso(account.createdAt)
})

export const keyJson = (key: ApiKey) => ({
  id: key.id,
  account_id: key.accountId,
  prefix: key.prefix,
  created_at: iso(key.createdAt),
  revoked_at: key.revokedAt === null ? null : iso(key.revokedAt)
})

export const issuedJson = (issued: IssuedKey) => ({ key: issued.key, ...keyJson(issued.record) })

export const accountLine = (account: AccountWithBalance): string =>
  `${account.id}  ${account.plan.padEnd(8)}  ${String(account.credits).padStart(8)} credits  ${account.defaultMode.padEnd(19)}  ${account.name}`

export const keyLine = (key: ApiKey): string =>
  `${key.id}  ${key.prefix}…  created ${iso(key.createdAt)}  ${key.revokedAt === null ? "active" : `revoked ${iso(key.revokedAt)}`}`

export const json = (value: unknown): string => JSON.stringify(value, null, 2)
