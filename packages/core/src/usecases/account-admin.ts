/**
 * Accounts, keys and grants, as the admin command and the development seed use them.
 * A new account's credits are a ledger grant, so its balance equals its ledger from the start.
 * A key is shown once: only its hash and a short prefix are stored.
 * A key revoked or a plan changed is reported to `AccountChanges`, so this process applies it at once.
 */
import { Credits, type Ids, Mode } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option } from "effect"
import { AccountChanges } from "../ports/account-changes.js"
import { Accounts } from "../ports/accounts.js"
import { Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import { Transactor } from "../ports/transactor.js"
import { fieldError, notFound } from "./failures.js"
import { AccountAdmin } from "./tags.js"

/** How many characters of a key are kept to recognise it in listings. */
export const keyPrefixLength = 12

export const AccountAdminLive = Layer.effect(
  AccountAdmin,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const ledger = yield* Ledger
    const secrets = yield* Secrets
    const tx = yield* Transactor
    const changes = yield* AccountChanges

    const getAccount = (id: Ids.AccountId) =>
      accounts.get(id).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(notFound(`account ${id}`, { account_id: id })),
            onSome: Effect.succeed
          })
        )
      )

    /**
     * Grants `amount` to an account whose balance is `balance`: refused before anything is written
     * unless it is a whole number that keeps the balance within `Credits.maxBalance` (the
     * database's check on the balance is the backstop for grants racing each other).
     */
    const grant = (
      account: { readonly id: Ids.AccountId; readonly credits: number },
      amount: number,
      reason: string,
      key: string
    ) =>
      Effect.gen(function* () {
        if (!Number.isInteger(amount) || amount < 0) {
          return yield* fieldError(["amount"], "credits are a whole, non-negative number")
        }
        const room = Credits.grantableTo(account.credits)
        if (amount > room) {
          return yield* fieldError(
            ["amount"],
            `at most ${room} credits can be granted to this account: a balance never exceeds ${Credits.maxBalance}`
          )
        }
        if (amount > 0) {
          const at = yield* DateTime.now
          yield* ledger.grant({ accountId: account.id, key, reason, at }, amount)
        }
      })

    return AccountAdmin.of({
      createAccount: (input) =>
        Effect.gen(function* () {
          const name = input.name.trim()
          if (name.length === 0) return yield* fieldError(["name"], "an account needs a name")
          const id = (yield* secrets.uuid) as Ids.AccountId
          const createdAt = input.createdAt ?? (yield* DateTime.now)
          const defaultMode = input.defaultMode ?? Mode.defaultModeFor(createdAt)
          yield* tx.transaction(
            Effect.flatMap(
              accounts.create({ id, name, plan: input.plan, defaultMode, createdAt }),
              (created) => grant(created, input.credits, "initial credits", "grant:initial")
            )
          )
          return yield* getAccount(id)
        }),
      listAccounts: accounts.list,
      getAccount,
      setPlan: (id, plan) =>
        accounts.setPlan(id, plan).pipe(
          Effect.zipLeft(changes.changed),
          Effect.flatMap(
            Option.match({
              onNone: () => Effect.fail(notFound(`account ${id}`, { account_id: id })),
              onSome: Effect.succeed
            })
          )
        ),
      issueKey: (accountId) =>
        Effect.gen(function* () {
          yield* getAccount(accountId)
          const key = yield* secrets.newApiKey
          const record = yield* accounts.addKey({
            id: yield* secrets.uuid,
            accountId,
            hash: yield* secrets.hashApiKey(key),
            prefix: key.slice(0, keyPrefixLength),
            createdAt: yield* DateTime.now
          })
          return { key, record }
        }),
      listKeys: (accountId) => Effect.zipRight(getAccount(accountId), accounts.listKeys(accountId)),
      revokeKey: (keyId) =>
        Effect.gen(function* () {
          const revoked = yield* accounts.revokeKey(keyId, yield* DateTime.now)
          yield* changes.changed
          if (!revoked) return yield* notFound(`active API key ${keyId}`, { key_id: keyId })
        }),
      // One transaction: a grant that fails at any step (the balance read back included) leaves nothing.
      grantCredits: (accountId, amount, reason, key) =>
        Effect.gen(function* () {
          const entryKey = key ?? `grant:${yield* secrets.uuid}`
          return yield* tx.transaction(
            Effect.gen(function* () {
              yield* grant(yield* getAccount(accountId), amount, reason, entryKey)
              return yield* getAccount(accountId)
            })
          )
        }),
      webhookSecret: (accountId, rotate) =>
        Effect.gen(function* () {
          yield* getAccount(accountId)
          const fresh = yield* secrets.newWebhookSecret
          if (rotate) {
            yield* accounts.setWebhookSecret(accountId, fresh)
            return fresh
          }
          const secret = yield* accounts.ensureWebhookSecret(accountId, fresh)
          return yield* Option.match(secret, {
            onNone: () => Effect.fail(notFound(`account ${accountId}`, { account_id: accountId })),
            onSome: Effect.succeed
          })
        })
    })
  })
)
