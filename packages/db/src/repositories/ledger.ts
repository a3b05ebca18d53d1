/**
 * The `Ledger` port on SQL. Every posting, hold and settlement runs as statements under the
 * account's row lock, taken by its first statement (`FOR NO KEY UPDATE`, the lock an `UPDATE`
 * takes: it waits for any posting of the account in progress, but not for the transactions that
 * merely reference the account, such as a job being inserted; `FOR UPDATE` would deadlock with
 * those). Each later statement reads with a snapshot taken after the lock was granted, so it sees
 * every posting committed before. A posting (grant, charge, refund) is one call of the
 * `post_ledger_entry` function (migration 0021), one round trip and atomic on its own: it locks,
 * then checks the available balance and inserts the entry (`ON CONFLICT DO NOTHING`: a key already
 * posted inserts nothing) and moves the balance by exactly what was inserted. A refused charge
 * writes nothing and raises nothing in the database, so the caller's transaction stays usable. The
 * balance never goes below zero (the `accounts_credits_nonnegative` check would refuse it anyway),
 * always equals the sum of the entries, and no key posts twice, under any concurrency, on PGlite
 * and PostgreSQL alike.
 *
 * (One statement that locks the row in a CTE, checks it and moves it is not enough: on PostgreSQL
 * its check has been seen to read a balance older than the row its update then moved, racing a
 * hold settled on the same account, and the move broke a check constraint; decision CR-13.)
 *
 * Holds (`credit_holds`, migration 0016) follow the same rules, as statements sent from here in
 * the caller's transaction or one of their own: placing one locks the account's row first, then
 * inserts the hold only if the available balance (`credits - held`) covers it and moves
 * `accounts.held` by what was inserted; settling one does the same with the charge, closing the
 * hold; releasing one locks the hold's row, closes it and moves `held` in one
 * statement. A charge takes from the available balance, so it never spends what a hold reserved.
 *
 * `Jobs.settleMany` (`./jobs.ts`) posts the charges of the jobs it moves by the same rules (a
 * statement that locks the rows, then one that checks and moves them), settling or releasing their
 * holds.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import {
  type CreditHold,
  type EntryKind,
  type EntryRequest,
  type Funds,
  type HoldRequest,
  InsufficientCredits,
  Ledger,
  type LedgerEntry,
  type Posted
} from "@verbatim/core"
import { Credits, Ids } from "@verbatim/domain"
import { type DateTime, Effect, Layer, Option, Schema } from "effect"
import { makeDirectQuery } from "../direct.js"
import { Int8, Int8As, Timestamp } from "./columns.js"
import { AccountNotFound, operation, operationKeeping } from "./failure.js"
import { inSomeTransaction } from "./transaction.js"

const Balance = Int8As(Credits.Credits)

const BalanceRow = Schema.Struct({ credits: Balance })

const FundsRow = Schema.Struct({ credits: Balance, held: Balance })

const HoldRow = Schema.Struct({
  accountId: Ids.AccountId,
  key: Schema.String,
  jobId: Schema.NullOr(Ids.JobId),
  amount: Int8,
  status: Schema.Literal("open", "settled", "released"),
  charged: Int8,
  settledKey: Schema.NullOr(Schema.String),
  reason: Schema.String,
  createdAt: Timestamp,
  expiresAt: Schema.NullOr(Timestamp),
  closedAt: Schema.NullOr(Timestamp)
})

const HoldPlacement = Schema.Struct({
  accountId: Ids.AccountId,
  key: Schema.String,
  jobId: Schema.NullOr(Ids.JobId),
  amount: Schema.Int,
  reason: Schema.String,
  at: Timestamp,
  expiresAt: Schema.NullOr(Timestamp)
})

const HoldSettlement = Schema.Struct({
  holdKey: Schema.String,
  accountId: Ids.AccountId,
  amount: Schema.Int,
  key: Schema.String,
  jobId: Schema.NullOr(Ids.JobId),
  reason: Schema.String,
  at: Timestamp
})

const Count = Schema.Struct({ n: Schema.Int })

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

/** What a posting did: the available balance after it, whether it inserted, whether its key was there. */
const PostRow = Schema.Struct({ available: Balance, applied: Schema.Boolean, posted: Schema.Boolean })

/** Whether a key is posted (an entry, or a hold), and the available balance now. */
const KeyRow = Schema.Struct({ credits: Balance, posted: Schema.Boolean })

/** The port's own refusal, kept as it is by `operationKeeping` (here and in `Jobs.insertPaid`). */
export const isInsufficientCredits = (error: unknown): error is InsufficientCredits =>
  error instanceof InsufficientCredits

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Ledger["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Every GET /credits reads it: the direct lane (`direct.ts`).
  const direct = yield* makeDirectQuery
  const balanceRow = SqlSchema.findOne({
    Request: Ids.AccountId,
    Result: BalanceRow,
    execute: (accountId) =>
      direct("SELECT credits - held AS credits FROM accounts WHERE id = $1", [accountId])
  })
  // GET /credits reads it too.
  const fundsRow = SqlSchema.findOne({
    Request: Ids.AccountId,
    Result: FundsRow,
    execute: (accountId) => direct("SELECT credits, held FROM accounts WHERE id = $1", [accountId])
  })

  const entriesOf = SqlSchema.findAll({
    Request: Ids.AccountId,
    Result: EntryRow,
    execute: (accountId) =>
      sql`SELECT id, account_id, kind, amount, key, job_id, reason, created_at
        FROM ledger_entries WHERE account_id = ${accountId} ORDER BY seq`
  })

  // One round trip: the function locks the account's row, then checks and moves it in statements
  // of their own (migration 0021, decision CR-13).
  const postEntry = SqlSchema.findOne({
    Request: PostRequest,
    Result: PostRow,
    execute: (p) =>
      sql`SELECT available, applied, posted FROM post_ledger_entry(${p.accountId}, ${p.kind}, ${p.delta},
        ${p.key}, ${p.jobId}, ${p.reason}, ${p.at})`
  })

  // The first statement of every posting, hold and settlement (see the module's comment).
  const lockFunds = SqlSchema.findOne({
    Request: Ids.AccountId,
    Result: FundsRow,
    execute: (accountId) => sql`SELECT credits, held FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`
  })

  const insertHold = SqlSchema.findAll({
    Request: HoldPlacement,
    Result: Schema.Struct({ amount: Int8 }),
    execute: (h) =>
      sql`INSERT INTO credit_holds (account_id, key, job_id, amount, reason, created_at, expires_at)
        VALUES (${h.accountId}, ${h.key}, ${h.jobId}, ${h.amount}, ${h.reason}, ${h.at}, ${h.expiresAt})
        ON CONFLICT (account_id, key) DO NOTHING RETURNING amount`
  })

  /** Moves the locked account's balance and held credits; the available balance after. */
  const moveFunds = SqlSchema.single({
    Request: Schema.Struct({ accountId: Ids.AccountId, credits: Schema.Int, held: Schema.Int }),
    Result: BalanceRow,
    execute: ({ accountId, credits, held }) =>
      sql`UPDATE accounts SET credits = credits + ${credits}, held = held + ${held}
        WHERE id = ${accountId} RETURNING credits - held AS credits`
  })

  const openHold = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, key: Schema.String }),
    Result: Schema.Struct({ id: Schema.String, amount: Int8 }),
    execute: ({ accountId, key }) =>
      sql`SELECT id, amount FROM credit_holds WHERE account_id = ${accountId} AND key = ${key} AND status = 'open'
        FOR UPDATE`
  })

  const insertCharge = SqlSchema.findAll({
    Request: HoldSettlement,
    Result: Schema.Struct({ key: Schema.String }),
    execute: (p) =>
      sql`INSERT INTO ledger_entries (account_id, kind, amount, key, job_id, reason, created_at)
        VALUES (${p.accountId}, 'charge', ${-p.amount}, ${p.key}, ${p.jobId}, ${p.reason}, ${p.at})
        ON CONFLICT (account_id, key) DO NOTHING RETURNING key`
  })

  const closeSettled = SqlSchema.void({
    Request: Schema.Struct({ id: Schema.String, charged: Schema.Int, key: Schema.String, at: Timestamp }),
    execute: ({ id, charged, key, at }) =>
      sql`UPDATE credit_holds SET status = 'settled', charged = ${charged}, settled_key = ${key}, closed_at = ${at}
        WHERE id = ${id}`
  })

  const releaseOne = SqlSchema.single({
    Request: Schema.Struct({ accountId: Ids.AccountId, key: Schema.String, at: Timestamp }),
    Result: Count,
    execute: ({ accountId, key, at }) =>
      sql`WITH hold AS MATERIALIZED (
          SELECT id FROM credit_holds WHERE account_id = ${accountId} AND key = ${key} AND status = 'open'
          FOR UPDATE
        ), closed AS (
          UPDATE credit_holds c SET status = 'released', closed_at = ${at}
          FROM hold WHERE c.id = hold.id RETURNING c.account_id, c.amount
        ), moved AS (
          UPDATE accounts a SET held = a.held - c.amount FROM closed c WHERE a.id = c.account_id RETURNING a.id
        )
        SELECT count(*)::int AS n FROM moved`
  })

  // A job's hold is stale once its job is finished or gone (settling closes it in the same
  // statement, so this only finds holds a path left open); a request's hold once it expired. Holds
  // another transaction is closing are skipped.
  const releaseStaleSome = SqlSchema.single({
    Request: Schema.Struct({ now: Timestamp, limit: Schema.Int }),
    Result: Count,
    execute: ({ now, limit }) =>
      sql`WITH stale AS MATERIALIZED (
          SELECT h.id FROM credit_holds h LEFT JOIN jobs j ON j.id = h.job_id
          WHERE h.status = 'open' AND (h.expires_at <= ${now}
            OR (h.job_id IS NOT NULL AND (j.id IS NULL OR j.status <> 'processing')))
          ORDER BY h.id LIMIT ${limit} FOR UPDATE OF h SKIP LOCKED
        ), closed AS (
          UPDATE credit_holds c SET status = 'released', closed_at = ${now}
          FROM stale WHERE c.id = stale.id AND c.status = 'open' RETURNING c.account_id, c.amount
        ), moved AS (
          UPDATE accounts a SET held = a.held - d.amount
          FROM (SELECT account_id, sum(amount)::bigint AS amount FROM closed GROUP BY account_id) d
          WHERE a.id = d.account_id RETURNING a.id
        )
        SELECT count(*)::int AS n FROM closed`
  })

  const holdsOf = SqlSchema.findAll({
    Request: Ids.AccountId,
    Result: HoldRow,
    execute: (accountId) =>
      sql`SELECT account_id, key, job_id, amount, status, charged, settled_key, reason, created_at,
          expires_at, closed_at
        FROM credit_holds WHERE account_id = ${accountId} ORDER BY created_at, key`
  })

  const holdKeyed = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, key: Schema.String }),
    Result: KeyRow,
    execute: ({ accountId, key }) =>
      sql`SELECT credits - held AS credits,
          EXISTS (SELECT 1 FROM credit_holds h WHERE h.account_id = a.id AND h.key = ${key}) AS posted
        FROM accounts a WHERE id = ${accountId}`
  })

  const keyPosted = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, key: Schema.String }),
    Result: KeyRow,
    execute: ({ accountId, key }) =>
      sql`SELECT credits - held AS credits,
          EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = a.id AND e.key = ${key})
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

  // Every posting, hold and settlement takes the account's row lock first (the module's comment).
  const underLock = inSomeTransaction(sql)

  /**
   * Posts an entry moving the balance by `delta` (signed); fails when the available balance would
   * go below zero, unless the key was posted before (then nothing moves).
   */
  const post = (kind: EntryKind, request: EntryRequest, delta: number) =>
    Effect.flatMap(
      postEntry({
        accountId: request.accountId,
        kind,
        delta,
        key: request.key,
        jobId: request.jobId ?? null,
        reason: request.reason,
        at: request.at
      }),
      (found): Effect.Effect<Posted, AccountNotFound | InsufficientCredits> => {
        if (Option.isNone(found)) return new AccountNotFound({ accountId: request.accountId })
        const { available, applied, posted } = found.value
        return applied || posted
          ? Effect.succeed({ balance: available, applied })
          : new InsufficientCredits({ required: -delta, balance: available })
      }
    )

  const hold = (request: HoldRequest, amount: number) =>
    amount <= 0
      ? Effect.map(balanceOf(request.accountId), (balance): Posted => ({ balance, applied: false }))
      : underLock(
          Effect.gen(function* () {
            const { accountId, key } = request
            const funds = yield* lockFunds(accountId)
            if (Option.isNone(funds)) return yield* new AccountNotFound({ accountId })
            const available = funds.value.credits - funds.value.held
            if (available >= amount) {
              const placed = yield* insertHold({
                accountId,
                key,
                jobId: request.jobId ?? null,
                amount,
                reason: request.reason,
                at: request.at,
                expiresAt: request.expiresAt ?? null
              })
              if (placed.length === 0) return { balance: available, applied: false } satisfies Posted
              const moved = yield* moveFunds({ accountId, credits: 0, held: amount })
              return { balance: moved.credits, applied: true } satisfies Posted
            }
            const known = yield* holdKeyed({ accountId, key })
            if (Option.isSome(known) && known.value.posted) {
              return { balance: available, applied: false } satisfies Posted
            }
            return yield* new InsufficientCredits({ required: amount, balance: available })
          })
        )

  const settleHold = (holdKey: string, request: EntryRequest, amount: number) =>
    underLock(
      Effect.gen(function* () {
        const { accountId } = request
        const funds = yield* lockFunds(accountId)
        if (Option.isNone(funds)) return yield* new AccountNotFound({ accountId })
        const open = yield* openHold({ accountId, key: holdKey })
        const freed = Option.match(open, { onNone: () => 0, onSome: (h) => h.amount })
        const available = funds.value.credits - funds.value.held
        const fits = available + freed >= amount && (Option.isNone(open) || amount <= freed)
        if (fits) {
          const charged = yield* insertCharge({
            holdKey,
            accountId,
            amount,
            key: request.key,
            jobId: request.jobId ?? null,
            reason: request.reason,
            at: request.at
          })
          if (charged.length === 0) return { balance: available, applied: false } satisfies Posted
          if (Option.isSome(open)) {
            yield* closeSettled({ id: open.value.id, charged: amount, key: request.key, at: request.at })
          }
          const moved = yield* moveFunds({ accountId, credits: -amount, held: -freed })
          return { balance: moved.credits, applied: true } satisfies Posted
        }
        const known = yield* keyPosted({ accountId, key: request.key })
        if (Option.isSome(known) && known.value.posted) {
          return { balance: available, applied: false } satisfies Posted
        }
        return yield* new InsufficientCredits({ required: amount, balance: available + freed })
      })
    )

  const fundsOf = (accountId: Ids.AccountId) =>
    fundsRow(accountId).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => new AccountNotFound({ accountId }),
          onSome: ({ credits, held }): Effect.Effect<Funds> =>
            Effect.succeed({ balance: credits, held, available: credits - held })
        })
      )
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
      ),
    funds: (accountId) => fundsOf(accountId).pipe(operation("Ledger.funds")),
    hold: (request, amount) =>
      hold(request, amount).pipe(operationKeeping("Ledger.hold", isInsufficientCredits)),
    settleHold: (holdKey, request, amount) =>
      settleHold(holdKey, request, amount).pipe(operationKeeping("Ledger.settleHold", isInsufficientCredits)),
    release: (accountId, key, at: DateTime.Utc) =>
      releaseOne({ accountId, key, at }).pipe(
        Effect.map((row) => row.n > 0),
        operation("Ledger.release")
      ),
    releaseStale: (now, limit) =>
      releaseStaleSome({ now, limit }).pipe(
        Effect.map((row) => row.n),
        operation("Ledger.releaseStale")
      ),
    holds: (accountId) =>
      holdsOf(accountId).pipe(
        Effect.map((rows): ReadonlyArray<CreditHold> => rows),
        operation("Ledger.holds")
      )
  })
})

/** `Ledger` from the `SqlClient` in context. */
export const layer: Layer.Layer<Ledger, never, SqlClient.SqlClient> = Layer.effect(Ledger, make)
