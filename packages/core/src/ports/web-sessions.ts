/**
 * The sessions of the web library (`@verbatim/web`): a person signs in with an API key and the
 * browser holds only a random session token in a cookie. The store keeps the token's hash, the key
 * it was made with and its account; a session works only while that key is active, so revoking the
 * key (or deleting it, or its account) ends every session it made, on every server at once.
 */
import type { Ids } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account } from "./accounts.js"

/** A live session as read with its account: when it ends unless used. */
export interface WebSessionRecord {
  readonly account: Account
  readonly apiKeyId: string
  readonly createdAt: DateTime.Utc
  /** When the session ends: its idle end, never after `createdAt` plus the absolute lifetime. */
  readonly expiresAt: DateTime.Utc
}

type Stored<A> = Effect.Effect<A, PersistenceError>

export class WebSessionStore extends Context.Tag("@verbatim/core/WebSessionStore")<
  WebSessionStore,
  {
    /**
     * Holds a session made with the active API key whose hash is `keyHash`: its account and key id;
     * none when no active key has that hash.
     */
    readonly save: (session: {
      readonly idHash: string
      readonly keyHash: string
      readonly createdAt: DateTime.Utc
      readonly expiresAt: DateTime.Utc
    }) => Stored<Option.Option<{ readonly accountId: Ids.AccountId; readonly apiKeyId: string }>>
    /**
     * The session whose hash is `idHash` with its account, while it has not expired at `now` and
     * the key that made it is active; none otherwise.
     */
    readonly find: (idHash: string, now: DateTime.Utc) => Stored<Option.Option<WebSessionRecord>>
    /** Moves a session's end (a session used keeps going). */
    readonly extend: (idHash: string, expiresAt: DateTime.Utc) => Stored<void>
    /** Ends a session; false when there was none. */
    readonly remove: (idHash: string) => Stored<boolean>
    /**
     * Removes up to `limit` sessions that expired before `now` or whose key is revoked or gone; how
     * many. A live session is never removed here.
     */
    readonly sweep: (now: DateTime.Utc, limit: number) => Stored<number>
  }
>() {}
