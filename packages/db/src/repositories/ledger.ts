/**
 * The `Ledger` port on SQL. A posting is ONE statement, atomic on its own and inside the caller's
 * transaction alike (no savepoint): it locks the account's row (`FOR NO KEY UPDATE`, the lock an
 * `UPDATE` takes: it waits for any posting of the account in progress and then reads the latest
 * balance, but not for the transactions that merely reference the account, such as a job being
 * inserted; `FOR UPDATE` would deadlock with those), inserts the entry only if
 * that balance covers it (`ON CONFLICT DO NOTHING`: a key already posted inserts nothing), and moves
 * the balance by exactly what was inserted. A refused charge writes nothing and raises nothing in
 * the database, so the caller's transaction stays usable. The balance never goes below zero (the
 * `accounts_credits_nonnegative` check would refuse it anyway), always equals the sum of the
 * entries, and no key posts twice, under any concurrency, on PGlite and PostgreSQL alike.
 *
 * When the statement did not insert and the balance could not cover the amount, a second read
 * tells a refused charge from a key posted before (every insert of the account's entries happens
 * under its row lock, so that read sees every posting that finished).
 *
 * `Jobs.settleMany` (`./jobs.ts`) posts the charges of the jobs it moves by the same rules, in its
 * own statement.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import {
  type EntryKind,
  type EntryRequest,
  InsufficientCredits,
  Ledger,
  type LedgerEntry,
  type Posted
} from "@verbatim/core"
import { Credits, Ids } from "@verbatim/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { makeDirectQuery } from "../direct.js"
import { Int8, Int8As, Timestamp } from "./columns.js"
import { AccountNotFound, operation, operationKeeping } from "./failure.js"

const Balance = Int8As(Credits.Credits)

const BalanceRow = Schema.Struct({ credits: Balance })

const EntryRow = Schema.Struct({
  id: Schema.String,
  accountId: Ids.AccountId,
  kind: Schema.Literal("grant", "charge", "refund"),
  amount: Int8,
  key: Schema.String,
  jobId: Schema.NullOr(Ids.JobId),
  reason: Schema.String,
  createdAt: Timestamp
})

/** A posting: the entry to insert, with its signed amount. */
const PostRequest = Schema.Struct({
  accountId: Ids.AccountId,
  kind: Schema.Literal("grant", "charge", "refund"),
  delta: Schema.Int,
  key: Schema.String,
  jobId: Schema.NullOr(Ids.JobId),
  reason: Schema.String,
  at: Timestamp
})

/** What a posting found and did: the balance before, and after when it inserted the entry. */
const PostRow = Schema.Struct({ before: Balance, after: Schema.NullOr(Balance) })

/** Whether a key is posted, and the balance now. */
const KeyRow = Schema.Struct({ credits: Balance, posted: Schema.Boolean })

const isInsufficientCredits = (error: unknown): error is InsufficientCredits =>
  error instanceof InsufficientCredits

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Ledger["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Every GET /credits reads it: the direct lane (`direct.ts`).
  const direct = yield* makeDirectQuery
  const balanceRow = SqlSchema.findOne({
    Request: Ids.AccountId,
    Result: BalanceRow,
    execute: (accountId) => direct("SELECT credits FROM accounts WHERE id = $1", [accountId])
  })

  const entriesOf = SqlSchema.findAll({
    Request: Ids.AccountId,
    Result: EntryRow,
    execute: (accountId) =>
      sql`SELECT id, account_id, kind, amount, key, job_id, reason, created_at
        FROM ledger_entries WHERE account_id = ${accountId} ORDER BY seq`
  })

  const postOne = SqlSchema.findOne({
    Request: PostRequest,
    Result: PostRow,
    execute: (p) =>
      sql`WITH account AS MATERIALIZED (
          SELECT id, credits FROM accounts WHERE id = ${p.accountId} FOR NO KEY UPDATE
        ), entry AS (
          INSERT INTO ledger_entries (account_id, kind, amount, key, job_id, reason, created_at)
          SELECT id, ${p.kind}, ${p.delta}, ${p.key}, ${p.jobId}, ${p.reason}, ${p.at} FROM account
          WHERE credits + ${p.delta} >= 0
          ON CONFLICT (account_id, key) DO NOTHING
          RETURNING account_id
        ), moved AS (
          UPDATE accounts SET credits = credits + ${p.delta}
          WHERE id IN (SELECT account_id FROM entry) RETURNING credits
        )
        SELECT credits AS before, (SELECT credits FROM moved) AS after FROM account`
  })

  const keyPosted = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, key: Schema.String }),
    Result: KeyRow,
    execute: ({ accountId, key }) =>
      sql`SELECT credits, EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = a.id AND e.key = ${key})
          AS posted
        FROM accounts a WHERE id = ${accountId}`
  })

  const balanceOf = (accountId: Ids.AccountId) =>
    balanceRow(accountId).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => new AccountNotFound({ accountId }),
          onSome: (row) => Effect.succeed(row.credits)
        })
      )
    )

  /** Posts an entry moving the balance by `delta` (signed); fails when the balance would go below zero. */
  const post = (kind: EntryKind, request: EntryRequest, delta: number) =>
    Effect.gen(function* () {
      const found = yield* postOne({
        accountId: request.accountId,
        kind,
        delta,
        key: request.key,
        jobId: request.jobId ?? null,
        reason: request.reason,
        at: request.at
      })
      if (Option.isNone(found)) return yield* new AccountNotFound({ accountId: request.accountId })
      const { before, after } = found.value
      if (after !== null) return { balance: after, applied: true } satisfies Posted
      if (before + delta >= 0) return { balance: before, applied: false } satisfies Posted
      // Not inserted, and the balance was short: refused, unless the key was posted before.
      const key = yield* keyPosted({ accountId: request.accountId, key: request.key })
      if (Option.isSome(key) && key.value.posted) {
        return { balance: key.value.credits, applied: false } satisfies Posted
      }
      return yield* new InsufficientCredits({ required: -delta, balance: before })
    })

  return Ledger.of({
    balance: (accountId) => balanceOf(accountId).pipe(operation("Ledger.balance")),
    grant: (request, amount) => post("grant", request, amount).pipe(operation("Ledger.grant")),
    charge: (request, amount) =>
      post("charge", request, -amount).pipe(operationKeeping("Ledger.charge", isInsufficientCredits)),
    refund: (request, amount) => post("refund", request, amount).pipe(operation("Ledger.refund")),
    entries: (accountId) =>
      entriesOf(accountId).pipe(
        Effect.map((rows): ReadonlyArray<LedgerEntry> => rows),
        operation("Ledger.entries")
      )
  })
})

/** `Ledger` from the `SqlClient` in context. */
export const layer: Layer.Layer<Ledger, never, SqlClient.SqlClient> = Layer.effect(Ledger, make)
