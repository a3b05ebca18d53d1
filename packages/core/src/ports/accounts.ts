/** Accounts and their API keys. Keys are stored only as hashes. */
import { Caller, Credits, type Ids, type Mode, type Plan } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, type Redacted, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

/** An account as a request acts for it (`CurrentAccount`): the domain's `Caller.Account`. */
export const Account = Caller.Account
export interface Account extends Caller.Account {}

/** An account and its balance: the row, what tools show, in one schema (dates as ISO text). */
export const AccountWithBalance = Schema.Struct({
  ...Account.fields,
  /** The balance; always equal to the sum of the account's ledger entries. */
  credits: Credits.Credits
})
export interface AccountWithBalance extends Schema.Schema.Type<typeof AccountWithBalance> {}

export interface NewAccount {
  readonly id: Ids.AccountId
  readonly name: string
  readonly plan: Plan.Plan
  readonly defaultMode: Mode.Mode
  readonly createdAt: DateTime.Utc
}

export interface ApiKey {
  readonly id: string
  readonly accountId: Ids.AccountId
  /** The first characters of the key, kept to recognise it in listings. */
  readonly prefix: string
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

export interface NewApiKey {
  readonly id: string
  readonly accountId: Ids.AccountId
  readonly hash: string
  readonly prefix: string
  readonly createdAt: DateTime.Utc
}

export class Accounts extends Context.Tag("@verbatim/core/Accounts")<
  Accounts,
  {
    /** Creates an account with a zero balance (credits are granted through the ledger). */
    readonly create: (account: NewAccount) => Effect.Effect<AccountWithBalance, PersistenceError>
    readonly get: (id: Ids.AccountId) => Effect.Effect<Option.Option<AccountWithBalance>, PersistenceError>
    readonly list: Effect.Effect<ReadonlyArray<AccountWithBalance>, PersistenceError>
    readonly setPlan: (
      id: Ids.AccountId,
      plan: Plan.Plan
    ) => Effect.Effect<Option.Option<AccountWithBalance>, PersistenceError>
    /** The account (without its balance) owning an active (not revoked) key with this hash. */
    readonly findByKeyHash: (hash: string) => Effect.Effect<Option.Option<Account>, PersistenceError>
    readonly addKey: (key: NewApiKey) => Effect.Effect<ApiKey, PersistenceError>
    readonly listKeys: (accountId: Ids.AccountId) => Effect.Effect<ReadonlyArray<ApiKey>, PersistenceError>
    /** Revokes a key; false when no active key has that id. */
    readonly revokeKey: (keyId: string, at: DateTime.Utc) => Effect.Effect<boolean, PersistenceError>
    /**
     * The account's webhook signing secret, set to `candidate` first if it has none (atomically, so
     * concurrent callers all get the one stored); none when the account does not exist.
     */
    readonly ensureWebhookSecret: (
      id: Ids.AccountId,
      candidate: Redacted.Redacted
    ) => Effect.Effect<Option.Option<Redacted.Redacted>, PersistenceError>
    /** Replaces the account's webhook signing secret; false when the account does not exist. */
    readonly setWebhookSecret: (
      id: Ids.AccountId,
      secret: Redacted.Redacted
    ) => Effect.Effect<boolean, PersistenceError>
  }
>() {}
