/**
 * Idempotency keys: the first answer to a request sent with an `Idempotency-Key`, per account,
 * endpoint and key, for 24 hours. `begin` claims a key atomically (one request wins; the others
 * find the winner's row), `complete` keeps the winner's answer, `abandon` frees the key when the
 * winner could not answer (a server failure: the retry may run). `sweepExpired` removes entries past
 * their expiry (only ever replaced or refused), a bounded number a call.
 */
import type { Ids } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../errors.js"

export interface IdempotencyEntry {
  /** The canonical JSON of the request that claimed the key. */
  readonly request: string
  /** The kept answer (JSON); none while the first request runs. */
  readonly response: Option.Option<unknown>
  readonly expiresAt: DateTime.Utc
}

export interface IdempotencyClaim {
  readonly accountId: Ids.AccountId
  readonly endpoint: string
  readonly key: string
  readonly request: string
  readonly now: DateTime.Utc
  readonly expiresAt: DateTime.Utc
}

export class IdempotencyKeys extends Context.Tag("@verbatim/core/IdempotencyKeys")<
  IdempotencyKeys,
  {
    /** Claims the key (an expired entry is replaced): none when this request won, else the entry. */
    readonly begin: (
      claim: IdempotencyClaim
    ) => Effect.Effect<Option.Option<IdempotencyEntry>, PersistenceError>
    readonly get: (
      accountId: Ids.AccountId,
      endpoint: string,
      key: string
    ) => Effect.Effect<Option.Option<IdempotencyEntry>, PersistenceError>
    readonly complete: (
      accountId: Ids.AccountId,
      endpoint: string,
      key: string,
      response: unknown
    ) => Effect.Effect<void, PersistenceError>
    readonly abandon: (
      accountId: Ids.AccountId,
      endpoint: string,
      key: string
    ) => Effect.Effect<void, PersistenceError>
    /** Removes up to `limit` entries whose expiry is before `now`; how many. */
    readonly sweepExpired: (now: DateTime.Utc, limit: number) => Effect.Effect<number, PersistenceError>
  }
>() {}
