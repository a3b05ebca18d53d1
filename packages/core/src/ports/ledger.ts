/**
 * The credit ledger: every grant, charge and refund of an account, its balance, and its holds.
 * A balance never goes below zero and always equals the sum of the account's entries.
 * Every entry has a key; writing the same key twice is a no-op, so no charge happens twice.
 *
 * A hold reserves credits for paid work accepted now and run later (its quote): the available
 * balance is the balance minus the open holds, never below zero. Every 402 check, every charge and
 * every new hold takes from the available balance; a hold is closed once, either settled (charged
 * at most its amount, by a ledger entry it names) or released (nothing charged), and its row stays.
 */
import type { Credits, Ids } from "@verbatim/domain"
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

export type EntryKind = "grant" | "charge" | "refund"

export interface LedgerEntry {
  readonly id: string
  readonly accountId: Ids.AccountId
  readonly kind: EntryKind
  /** Signed: positive for grants and refunds, negative for charges. */
  readonly amount: number
  /** Unique per account: `charge:job:<job id>`, `grant:<uuid>`, ... */
  readonly key: string
  readonly jobId: Ids.JobId | null
  readonly reason: string
  readonly createdAt: DateTime.Utc
}

export interface EntryRequest {
  readonly accountId: Ids.AccountId
  readonly key: string
  readonly jobId?: Ids.JobId | null
  readonly reason: string
  readonly at: DateTime.Utc
}

/** A charge to post (`Jobs.settleMany` posts one with each job it moves). */
export interface ChargeRequest {
  readonly request: EntryRequest
  readonly amount: Credits.Credits
}

/** The balance cannot cover a charge. */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  required: Schema.Number,
  balance: Schema.Number
}) {}

/** An account's credits: the ledger balance, what open holds reserve, and what is left to spend. */
export interface Funds {
  /** The sum of the ledger entries. */
  readonly balance: Credits.Credits
  /** The sum of the open holds. */
  readonly held: Credits.Credits
  /** `balance - held`: what a charge or a new hold may take. */
  readonly available: Credits.Credits
}

/** A hold to place: keyed per account like an entry (`hold:job:<job id>`, ...). */
export interface HoldRequest extends EntryRequest {
  /** When the reconciler releases it if it is still open (a hold not tied to a job); none for a job's hold. */
  readonly expiresAt?: DateTime.Utc | null
}

export type HoldStatus = "open" | "settled" | "released"

/** One hold, as its row records it. */
export interface CreditHold {
  readonly accountId: Ids.AccountId
  readonly key: string
  readonly jobId: Ids.JobId | null
  readonly amount: number
  readonly status: HoldStatus
  /** What its settlement charged (0 unless settled). */
  readonly charged: number
  /** The key of the ledger entry that settled it. */
  readonly settledKey: string | null
  readonly reason: string
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc | null
  readonly closedAt: DateTime.Utc | null
}

/** The outcome of writing an entry: its amount now stands in the ledger (new or already there). */
export interface Posted {
  /** The available balance after it (`Funds.available`). */
  readonly balance: Credits.Credits
  /** False when an entry with the same key already existed and nothing changed. */
  readonly applied: boolean
}

export class Ledger extends Context.Tag("@verbatim/core/Ledger")<
  Ledger,
  {
    /** The available balance (`Funds.available`): what every 402 check compares with. */
    readonly balance: (accountId: Ids.AccountId) => Effect.Effect<Credits.Credits, PersistenceError>
    readonly funds: (accountId: Ids.AccountId) => Effect.Effect<Funds, PersistenceError>
    readonly grant: (
      request: EntryRequest,
      amount: Credits.Credits
    ) => Effect.Effect<Posted, PersistenceError>
    /** Takes `amount` from the available balance, atomically refusing when it is short. */
    readonly charge: (
      request: EntryRequest,
      amount: Credits.Credits
    ) => Effect.Effect<Posted, InsufficientCredits | PersistenceError>
    readonly refund: (
      request: EntryRequest,
      amount: Credits.Credits
    ) => Effect.Effect<Posted, PersistenceError>
    readonly entries: (
      accountId: Ids.AccountId
    ) => Effect.Effect<ReadonlyArray<LedgerEntry>, PersistenceError>
    /**
     * Reserves `amount` (> 0) of the available balance, atomically refusing when it is short; a key
     * already held (open or closed) changes nothing (`applied: false`).
     */
    readonly hold: (
      request: HoldRequest,
      amount: Credits.Credits
    ) => Effect.Effect<Posted, InsufficientCredits | PersistenceError>
    /**
     * Settles the open hold `holdKey` with the charge `request` of `amount` (at most the hold's;
     * more is refused): one statement posts the charge and closes the hold. Without an open hold
     * the charge is taken from the available balance, as `charge` would.
     */
    readonly settleHold: (
      holdKey: string,
      request: EntryRequest,
      amount: Credits.Credits
    ) => Effect.Effect<Posted, InsufficientCredits | PersistenceError>
    /** Releases the open hold `key` (nothing charged); false when no such hold was open. */
    readonly release: (
      accountId: Ids.AccountId,
      key: string,
      at: DateTime.Utc
    ) => Effect.Effect<boolean, PersistenceError>
    /**
     * Releases, at most `limit` of them, the open holds whose work is gone: their job no longer
     * exists or is no longer processing, or they expired. How many were released.
     */
    readonly releaseStale: (now: DateTime.Utc, limit: number) => Effect.Effect<number, PersistenceError>
    /** The account's holds, open and closed, oldest first (then by key). */
    readonly holds: (accountId: Ids.AccountId) => Effect.Effect<ReadonlyArray<CreditHold>, PersistenceError>
  }
>() {}
