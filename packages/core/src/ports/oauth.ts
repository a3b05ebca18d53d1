/**
 * The OAuth store (clients, authorization codes, grants and their tokens) and the PKCE hash, for
 * the authorization server that signs hosted assistants in. Every secret is stored as its hash
 * (`Secrets.hashApiKey`): client secrets, codes, access and refresh tokens.
 *
 * A grant is one sign-in of one client for one account, made with one API key; its access and
 * refresh tokens belong to it, and revoking the grant, or the key that made it, ends them all.
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
  /** The API key the person signed in with: the grant follows it. */
  readonly apiKeyId: string
  readonly redirectUri: string
  /** The PKCE S256 challenge: base64url(SHA-256(verifier)). */
  readonly codeChallenge: string
  readonly resource: string | null
  readonly scope: string | null
  readonly expiresAt: DateTime.Utc
}

/** A code or sign-in as taken: whether the key that made it was revoked since. */
export type Taken<A> = A & { readonly keyRevoked: boolean }

/**
 * A person signed in on the consent page, held here until they allow or deny (never in the page):
 * the page carries only the random sign-in id, stored as its hash.
 */
export interface OAuthSignInRecord {
  readonly idHash: string
  readonly clientId: string
  readonly accountId: Ids.AccountId
  readonly apiKeyId: string
  /** The hash of the authorization request it was made for: it serves no other. */
  readonly requestHash: string
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
  /** When its grant was revoked, or the API key that made the grant. */
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
    readonly takeCode: (codeHash: string) => Stored<Option.Option<Taken<OAuthCodeRecord>>>
    /**
     * Holds a sign-in made with the active API key whose hash is `keyHash` (its account and key id
     * are the key's); none when no active key has that hash.
     */
    readonly saveSignIn: (signIn: {
      readonly idHash: string
      readonly clientId: string
      readonly keyHash: string
      readonly requestHash: string
      readonly expiresAt: DateTime.Utc
    }) => Stored<Option.Option<OAuthSignInRecord>>
    /** Takes a sign-in once: it is deleted as it is read. */
    readonly takeSignIn: (idHash: string) => Stored<Option.Option<Taken<OAuthSignInRecord>>>
    readonly saveGrant: (grant: {
      readonly id: string
      readonly clientId: string
      readonly accountId: Ids.AccountId
      readonly apiKeyId: string
      readonly createdAt: DateTime.Utc
      /** The hash of the code it was made from: that code presented again revokes it. */
      readonly codeHash?: string | undefined
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
    /**
     * Revokes the live grant made from the code whose hash is `codeHash` (a code presented after it
     * was taken); false when there is none.
     */
    readonly revokeGrantOfCode: (codeHash: string, at: DateTime.Utc) => Stored<boolean>
    /** Revokes every live grant of a client; how many. */
    readonly revokeClient: (clientId: string, at: DateTime.Utc) => Stored<number>
    /** Grants, newest first; only live ones (neither they nor their key revoked) unless `all`. */
    readonly grants: (options: {
      readonly accountId?: Ids.AccountId | undefined
      readonly all: boolean
    }) => Stored<ReadonlyArray<OAuthGrantView>>
    /**
     * Removes up to `limit` codes, sign-ins and tokens (access and refresh) whose expiry is before
     * `now`, codes first; how many. A token, sign-in or code before its expiry is never removed here.
     */
    readonly sweepExpired: (now: DateTime.Utc, limit: number) => Stored<number>
    /**
     * Removes up to `limit` clients registered before `createdBefore` that never completed a
     * sign-in (no grant) and have none under way (no code or sign-in); how many.
     */
    readonly sweepUnusedClients: (createdBefore: DateTime.Utc, limit: number) => Stored<number>
  }
>() {}

/** The PKCE S256 transform: base64url (no padding) of the SHA-256 of the verifier's ASCII. */
export class PkceHash extends Context.Tag("@verbatim/core/PkceHash")<
  PkceHash,
  (verifier: string) => Effect.Effect<string>
>() {}
