/**
 * The `Accounts` port on SQL: accounts (created with a zero balance; credits come from the ledger)
 * and their API keys, stored as hashes and found only while not revoked.
 * Depends on the project's naming (`camelCaseNaming`): camelCase fields, snake_case columns.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Account, Accounts, AccountWithBalance } from "@verbatim/core"
import { Credits, Ids } from "@verbatim/domain"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { Int8As, Timestamp, toDate } from "./columns.js"
import { operation } from "./failure.js"

/** An `accounts` row: the core's `AccountWithBalance`, with the balance as int8 text and the date as the driver gives it. */
export const AccountRow = Schema.Struct({
  ...AccountWithBalance.fields,
  credits: Int8As(Credits.Credits),
  createdAt: Timestamp
})

/** The account of a key: the row without its balance (`Access` may keep it for a few seconds). */
const KeyAccountRow = Schema.Struct({ ...Account.fields, createdAt: Timestamp })

const SecretRow = Schema.Struct({ webhookSecret: Schema.Redacted(Schema.String) })

const ApiKeyRow = Schema.Struct({
  id: Schema.String,
  accountId: Ids.AccountId,
  prefix: Schema.String,
  createdAt: Timestamp,
  revokedAt: Schema.NullOr(Timestamp)
})

const decodeAccounts = Schema.decodeUnknown(Schema.Array(AccountRow))
const decodeKeys = Schema.decodeUnknown(Schema.Array(ApiKeyRow))

const first = <A>(rows: ReadonlyArray<A>): Option.Option<A> => Option.fromNullable(rows[0])

const isUuid = Schema.is(Schema.UUID)

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Accounts["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const accountColumns = sql`id, name, plan, credits, default_mode, onboarding_completed, created_at`
  const keyColumns = sql`id, account_id, prefix, created_at, revoked_at`

  const oneAccount = (rows: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
    rows.pipe(Effect.flatMap(decodeAccounts), Effect.map(first))

  const accountById = SqlSchema.findOne({
    Request: Ids.AccountId,
    Result: AccountRow,
    execute: (id) => sql`SELECT ${accountColumns} FROM accounts WHERE id = ${id}`
  })

  const allAccounts = SqlSchema.findAll({
    Request: Schema.Void,
    Result: AccountRow,
    execute: () => sql`SELECT ${accountColumns} FROM accounts ORDER BY created_at, id`
  })

  const accountByKeyHash = SqlSchema.findOne({
    Request: Schema.String,
    Result: KeyAccountRow,
    execute: (hash) =>
      sql`SELECT a.id, a.name, a.plan, a.default_mode, a.onboarding_completed, a.created_at
        FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.hash = ${hash} AND k.revoked_at IS NULL`
  })

  const keysOf = SqlSchema.findAll({
    Request: Ids.AccountId,
    Result: ApiKeyRow,
    execute: (accountId) =>
      sql`SELECT ${keyColumns} FROM api_keys WHERE account_id = ${accountId} ORDER BY created_at, id`
  })

  const ensureSecret = SqlSchema.findOne({
    Request: Schema.Struct({ id: Ids.AccountId, candidate: Schema.String }),
    Result: SecretRow,
    execute: ({ id, candidate }) =>
      sql`UPDATE accounts SET webhook_secret = coalesce(webhook_secret, ${candidate})
        WHERE id = ${id} RETURNING webhook_secret`
  })

  const setSecret = SqlSchema.findOne({
    Request: Schema.Struct({ id: Ids.AccountId, secret: Schema.String }),
    Result: Schema.Struct({ id: Ids.AccountId }),
    execute: ({ id, secret }) =>
      sql`UPDATE accounts SET webhook_secret = ${secret} WHERE id = ${id} RETURNING id`
  })

  return Accounts.of({
    create: (account) =>
      sql`INSERT INTO accounts ${sql.insert({
        id: account.id,
        name: account.name,
        plan: account.plan,
        credits: 0,
        defaultMode: account.defaultMode,
        onboardingCompleted: false,
        createdAt: toDate(account.createdAt)
      })} RETURNING ${accountColumns}`.pipe(
        Effect.flatMap(decodeAccounts),
        Effect.flatMap((rows) => first(rows)),
        operation("Accounts.create")
      ),

    get: (id) => accountById(id).pipe(operation("Accounts.get")),

    list: allAccounts(undefined).pipe(operation("Accounts.list")),

    setPlan: (id, plan) =>
      oneAccount(sql`UPDATE accounts SET plan = ${plan} WHERE id = ${id} RETURNING ${accountColumns}`).pipe(
        operation("Accounts.setPlan")
      ),

    findByKeyHash: (hash) => accountByKeyHash(hash).pipe(operation("Accounts.findByKeyHash")),

    addKey: (key) =>
      sql`INSERT INTO api_keys ${sql.insert({
        id: key.id,
        accountId: key.accountId,
        hash: key.hash,
        prefix: key.prefix,
        createdAt: toDate(key.createdAt),
        revokedAt: null
      })} RETURNING ${keyColumns}`.pipe(
        Effect.flatMap(decodeKeys),
        Effect.flatMap((rows) => first(rows)),
        operation("Accounts.addKey")
      ),

    listKeys: (accountId) => keysOf(accountId).pipe(operation("Accounts.listKeys")),

    revokeKey: (keyId, at) =>
      isUuid(keyId)
        ? sql`UPDATE api_keys SET revoked_at = ${toDate(at)}
            WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0),
            operation("Accounts.revokeKey")
          )
        : Effect.succeed(false),

    ensureWebhookSecret: (id, candidate) =>
      ensureSecret({ id, candidate: Redacted.value(candidate) }).pipe(
        Effect.map(Option.map((row) => row.webhookSecret)),
        operation("Accounts.ensureWebhookSecret")
      ),

    setWebhookSecret: (id, secret) =>
      setSecret({ id, secret: Redacted.value(secret) }).pipe(
        Effect.map(Option.isSome),
        operation("Accounts.setWebhookSecret")
      )
  })
})

/** `Accounts` from the `SqlClient` in context. */
export const layer: Layer.Layer<Accounts, never, SqlClient.SqlClient> = Layer.effect(Accounts, make)
