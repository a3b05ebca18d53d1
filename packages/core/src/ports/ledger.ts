/**
 * The credit ledger: every grant, charge and refund of an account, and its balance.
 * A balance never goes below zero and always equals the sum of the account's entries.
 * Every entry has a key; writing the same key twice is a no-op, so no charge happens twice.
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

/** The outcome of writing an entry: its amount now stands in the ledger (new or already there). */
export interface Posted {
  readonly balance: Credits.Credits
  /** False when an entry with the same key already existed and nothing changed. */
  readonly applied: boolean
}

export class Ledger extends Context.Tag("@verbatim/core/Ledger")<
  Ledger,
  {
    readonly balance: (accountId: Ids.AccountId) => Effect.Effect<Credits.Credits, PersistenceError>
    readonly grant: (
      request: EntryRequest,
      amount: Credits.Credits
    ) => Effect.Effect<Posted, PersistenceError>
    /** Takes `amount` from the balance, atomically refusing when the balance is short. */
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
  }
>() {}
