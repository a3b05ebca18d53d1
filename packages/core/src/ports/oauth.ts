/**
 * The OAuth store (clients, authorization codes, grants and their tokens) and the PKCE hash, for
 * the authorization server that signs hosted assistants in. Every secret is stored as its hash
 * (`Secrets.hashApiKey`): client secrets, codes, access and refresh tokens.
 *
 * A grant is one sign-in of one client for one account; its access and refresh tokens belong to it,
 * and revoking the grant ends them all.
 */
import type { Ids } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../errors.js"

export interface OAuthClientRecord {
  readonly id: string
  /** The hash of the client secret; null for a public client (PKCE only). */
  readonly secretHash: string | null
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
  readonly createdAt: DateTime.Utc
}

export interface OAuthCodeRecord {
  readonly codeHash: string
  readonly clientId: string
  readonly accountId: Ids.AccountId
  readonly redirectUri: string
  /** The PKCE S256 challenge: base64url(SHA-256(verifier)). */
  readonly codeChallenge: string
  readonly resource: string | null
  readonly scope: string | null
  readonly expiresAt: DateTime.Utc
}

export type OAuthTokenKind = "access" | "refresh"

export interface OAuthTokenRecord {
  readonly tokenHash: string
  readonly kind: OAuthTokenKind
  readonly grantId: string
  readonly clientId: string
  readonly accountId: Ids.AccountId
  readonly resource: string | null
  readonly scope: string | null
  readonly expiresAt: DateTime.Utc
  /** When a refresh token was exchanged (rotation): it never works again. */
  readonly usedAt: DateTime.Utc | null
  /** When its grant was revoked. */
  readonly revokedAt: DateTime.Utc | null
}

export interface OAuthGrantView {
  readonly id: string
  readonly clientId: string
  readonly clientName: string
  readonly accountId: Ids.AccountId
  readonly createdAt: DateTime.Utc
  readonly revokedAt: DateTime.Utc | null
}

type Stored<A> = Effect.Effect<A, PersistenceError>

export class OAuthStore extends Context.Tag("@verbatim/core/OAuthStore")<
  OAuthStore,
  {
    readonly saveClient: (client: OAuthClientRecord) => Stored<void>
    readonly client: (id: string) => Stored<Option.Option<OAuthClientRecord>>
    readonly saveCode: (code: OAuthCodeRecord) => Stored<void>
    /** Takes a code once: it is deleted as it is read (a second exchange finds nothing). */
    readonly takeCode: (codeHash: string) => Stored<Option.Option<OAuthCodeRecord>>
    readonly saveGrant: (grant: {
      readonly id: string
      readonly clientId: string
      readonly accountId: Ids.AccountId
      readonly createdAt: DateTime.Utc
    }) => Stored<void>
    readonly saveToken: (token: {
      readonly tokenHash: string
      readonly kind: OAuthTokenKind
      readonly grantId: string
      readonly resource: string | null
      readonly scope: string | null
      readonly createdAt: DateTime.Utc
      readonly expiresAt: DateTime.Utc
    }) => Stored<void>
    readonly token: (tokenHash: string) => Stored<Option.Option<OAuthTokenRecord>>
    /** Marks a refresh token used; false when it already was (only one exchange wins). */
    readonly useRefreshToken: (tokenHash: string, at: DateTime.Utc) => Stored<boolean>
    /** Revokes a grant (all its tokens); false when there is no such live grant. */
    readonly revokeGrant: (grantId: string, at: DateTime.Utc) => Stored<boolean>
    /** Revokes every live grant of a client; how many. */
    readonly revokeClient: (clientId: string, at: DateTime.Utc) => Stored<number>
    /** Grants, newest first; only live ones unless `all`. */
    readonly grants: (options: {
      readonly accountId?: Ids.AccountId | undefined
      readonly all: boolean
    }) => Stored<ReadonlyArray<OAuthGrantView>>
    /**
     * Removes up to `limit` codes and tokens (access and refresh) whose expiry is before `now`, codes
     * first; how many. A token or code before its expiry is never removed here.
     */
    readonly sweepExpired: (now: DateTime.Utc, limit: number) => Stored<number>
  }
>() {}

/** The PKCE S256 transform: base64url (no padding) of the SHA-256 of the verifier's ASCII. */
export class PkceHash extends Context.Tag("@verbatim/core/PkceHash")<
  PkceHash,
  (verifier: string) => Effect.Effect<string>
>() {}
