/**
 * The `Ledger` port on SQL. Each posting runs in a transaction (a savepoint inside the caller's):
 * it inserts the entry unless the account already has one with that key (`ON CONFLICT DO NOTHING`,
 * which waits for a concurrent insert of the same key and then does nothing), then moves the balance;
 * a charge moves it only while it stays non-negative (`credits >= amount`, rechecked on the latest
 * row under its lock), else the transaction rolls back and the charge fails with
 * `InsufficientCredits`. So the balance never goes below zero, always equals the sum of the entries,
 * and no key posts twice, under any concurrency, on PGlite and PostgreSQL alike.
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
import { Int8, Int8As, Timestamp, toDate } from "./columns.js"
import { AccountNotFound, operation, operationKeeping } from "./failure.js"

const BalanceRow = Schema.Struct({ credits: Int8As(Credits.Credits) })
const decodeBalances = Schema.decodeUnknown(Schema.Array(BalanceRow))

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

const isInsufficientCredits = (error: unknown): error is InsufficientCredits =>
  error instanceof InsufficientCredits

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Ledger["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const balanceRow = SqlSchema.findOne({
    Request: Ids.AccountId,
    Result: BalanceRow,
    execute: (accountId) => sql`SELECT credits FROM accounts WHERE id = ${accountId}`
  })

  const entriesOf = SqlSchema.findAll({
    Request: Ids.AccountId,
    Result: EntryRow,
    execute: (accountId) =>
      sql`SELECT id, account_id, kind, amount, key, job_id, reason, created_at
        FROM ledger_entries WHERE account_id = ${accountId} ORDER BY seq`
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

  /** Inserts the entry unless its key was used; true when inserted. */
  const insertEntry = (kind: EntryKind, request: EntryRequest, amount: number) =>
    Effect.map(
      sql`INSERT INTO ledger_entries ${sql.insert({
        accountId: request.accountId,
        kind,
        amount,
        key: request.key,
        jobId: request.jobId ?? null,
        reason: request.reason,
        createdAt: toDate(request.at)
      })} ON CONFLICT (account_id, key) DO NOTHING RETURNING id`,
      (rows) => rows.length > 0
    )

  /** Posts an entry moving the balance by `delta` (signed); fails when the balance would go below zero. */
  const post = (kind: EntryKind, request: EntryRequest, delta: number) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const inserted = yield* insertEntry(kind, request, delta)
        if (!inserted) {
          const balance = yield* balanceOf(request.accountId)
          return { balance, applied: false } satisfies Posted
        }
        const moved = yield* sql`UPDATE accounts SET credits = credits + ${delta}
          WHERE id = ${request.accountId} AND credits + ${delta} >= 0
          RETURNING credits`.pipe(Effect.flatMap(decodeBalances))
        const [row] = moved
        if (row === undefined) {
          const balance = yield* balanceOf(request.accountId)
          return yield* new InsufficientCredits({ required: -delta, balance })
        }
        return { balance: row.credits, applied: true } satisfies Posted
      })
    )

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
