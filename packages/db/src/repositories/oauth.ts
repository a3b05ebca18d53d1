/**
 * The `OAuthStore` port on SQL (tables of `0009_oauth` and `0017_oauth_sign_ins`). A code or a
 * sign-in is taken with one `DELETE ... RETURNING`, so it is used once; a refresh token is marked
 * used with one conditional `UPDATE`, so of two exchanges only one wins. A token's revocation is its
 * grant's or, read in the same statement, that of the API key the grant was made with: a revoked
 * key ends its grants at once for every server. `sweepExpired` deletes a bounded number of codes,
 * sign-ins and tokens past their expiry, `sweepUnusedClients` old clients never signed in with
 * (rows another sweep holds are skipped).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { type OAuthClientRecord, OAuthStore } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { Effect, Layer, Schema } from "effect"
import { Timestamp, toDate } from "./columns.js"
import { operation } from "./failure.js"

const ClientRow = Schema.Struct({
  id: Schema.String,
  secretHash: Schema.NullOr(Schema.String),
  name: Schema.String,
  redirectUris: Schema.Array(Schema.String),
  createdAt: Timestamp
})

const CodeRow = Schema.Struct({
  codeHash: Schema.String,
  clientId: Schema.String,
  accountId: Ids.AccountId,
  apiKeyId: Schema.String,
  redirectUri: Schema.String,
  codeChallenge: Schema.String,
  resource: Schema.NullOr(Schema.String),
  scope: Schema.NullOr(Schema.String),
  expiresAt: Timestamp,
  keyRevoked: Schema.Boolean
})

const SignInRow = Schema.Struct({
  idHash: Schema.String,
  clientId: Schema.String,
  accountId: Ids.AccountId,
  apiKeyId: Schema.String,
  requestHash: Schema.String,
  expiresAt: Timestamp
})

const TakenSignInRow = Schema.Struct({ ...SignInRow.fields, keyRevoked: Schema.Boolean })

const TokenRow = Schema.Struct({
  tokenHash: Schema.String,
  kind: Schema.Literal("access", "refresh"),
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: Ids.AccountId,
  resource: Schema.NullOr(Schema.String),
  scope: Schema.NullOr(Schema.String),
  expiresAt: Timestamp,
  usedAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp)
})

const GrantRow = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  clientName: Schema.String,
  accountId: Ids.AccountId,
  createdAt: Timestamp,
  revokedAt: Schema.NullOr(Timestamp)
})

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<OAuthStore["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const findClient = SqlSchema.findOne({
    Request: Schema.String,
    Result: ClientRow,
    execute: (id) =>
      sql`SELECT id, secret_hash, name, redirect_uris, created_at FROM oauth_clients WHERE id = ${id}`
  })

  const takeCode = SqlSchema.findOne({
    Request: Schema.String,
    Result: CodeRow,
    execute: (hash) =>
      sql`WITH taken AS (
        DELETE FROM oauth_codes WHERE code_hash = ${hash}
        RETURNING code_hash, client_id, account_id, api_key_id, redirect_uri, code_challenge, resource,
          scope, expires_at
      )
      SELECT taken.*, (k.revoked_at IS NOT NULL OR k.id IS NULL) AS key_revoked
      FROM taken LEFT JOIN api_keys k ON k.id = taken.api_key_id`
  })

  const saveSignIn = SqlSchema.findOne({
    Request: Schema.Struct({
      idHash: Schema.String,
      clientId: Schema.String,
      keyHash: Schema.String,
      requestHash: Schema.String,
      expiresAt: Schema.DateFromSelf
    }),
    Result: SignInRow,
    execute: (signIn) =>
      sql`INSERT INTO oauth_sign_ins (id_hash, client_id, account_id, api_key_id, request_hash, expires_at)
      SELECT ${signIn.idHash}, ${signIn.clientId}, k.account_id, k.id, ${signIn.requestHash}, ${signIn.expiresAt}
      FROM api_keys k WHERE k.hash = ${signIn.keyHash} AND k.revoked_at IS NULL
      RETURNING id_hash, client_id, account_id, api_key_id, request_hash, expires_at`
  })

  const takeSignIn = SqlSchema.findOne({
    Request: Schema.String,
    Result: TakenSignInRow,
    execute: (hash) =>
      sql`WITH taken AS (
        DELETE FROM oauth_sign_ins WHERE id_hash = ${hash}
        RETURNING id_hash, client_id, account_id, api_key_id, request_hash, expires_at
      )
      SELECT taken.*, (k.revoked_at IS NOT NULL OR k.id IS NULL) AS key_revoked
      FROM taken LEFT JOIN api_keys k ON k.id = taken.api_key_id`
  })

  /** A grant's revocation: its own, else its key's (a grant without a key predates 0017 and is revoked). */
  const grantRevokedAt = sql.literal(
    "coalesce(g.revoked_at, k.revoked_at, CASE WHEN k.id IS NULL THEN g.created_at END)"
  )

  const findToken = SqlSchema.findOne({
    Request: Schema.String,
    Result: TokenRow,
    execute: (hash) =>
      sql`SELECT t.token_hash, t.kind, t.grant_id, g.client_id, g.account_id, t.resource, t.scope,
        t.expires_at, t.used_at, ${grantRevokedAt} AS revoked_at
      FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
        LEFT JOIN api_keys k ON k.id = g.api_key_id
      WHERE t.token_hash = ${hash}`
  })

  const listGrants = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Schema.NullOr(Schema.String), all: Schema.Boolean }),
    Result: GrantRow,
    execute: ({ accountId, all }) =>
      sql`SELECT g.id, g.client_id, c.name AS client_name, g.account_id, g.created_at,
        ${grantRevokedAt} AS revoked_at
      FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
        LEFT JOIN api_keys k ON k.id = g.api_key_id
      WHERE (${accountId}::uuid IS NULL OR g.account_id = ${accountId}::uuid)
        AND (${all} OR ${grantRevokedAt} IS NULL)
      ORDER BY g.created_at DESC, g.id
      LIMIT 1000`
  })

  /** Deletes up to `limit` rows of `table` (keyed by `column`) whose expiry is before `now`; how many. */
  const sweep =
    (
      table: "oauth_codes" | "oauth_sign_ins" | "oauth_tokens",
      column: "code_hash" | "id_hash" | "token_hash"
    ) =>
    (now: Date, limit: number) =>
      limit <= 0
        ? Effect.succeed(0)
        : sql<{ n: number }>`WITH due AS (
            SELECT ${sql(column)} AS id FROM ${sql(table)} WHERE expires_at < ${now}
            ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
          ), gone AS (
            DELETE FROM ${sql(table)} t USING due WHERE t.${sql(column)} = due.id AND t.expires_at < ${now}
            RETURNING 1
          )
          SELECT count(*)::int AS n FROM gone`.pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)))
  const sweepCodes = sweep("oauth_codes", "code_hash")
  const sweepSignIns = sweep("oauth_sign_ins", "id_hash")
  const sweepTokens = sweep("oauth_tokens", "token_hash")

  /** Whether client `c` has (or had) a sign-in: a grant, a code or a sign-in under way. */
  const everUsed = sql.literal(`EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)
    OR EXISTS (SELECT 1 FROM oauth_codes o WHERE o.client_id = c.id)
    OR EXISTS (SELECT 1 FROM oauth_sign_ins s WHERE s.client_id = c.id)`)

  return OAuthStore.of({
    saveClient: (client: OAuthClientRecord) =>
      sql`INSERT INTO oauth_clients (id, secret_hash, name, redirect_uris, created_at)
      VALUES (${client.id}, ${client.secretHash}, ${client.name}, ${JSON.stringify(client.redirectUris)}::jsonb,
        ${toDate(client.createdAt)})`.pipe(Effect.asVoid, operation("OAuthStore.saveClient")),
    client: (id) => findClient(id).pipe(operation("OAuthStore.client")),
    saveCode: (code) =>
      sql`INSERT INTO oauth_codes (code_hash, client_id, account_id, api_key_id, redirect_uri, code_challenge,
        resource, scope, expires_at)
      VALUES (${code.codeHash}, ${code.clientId}, ${code.accountId}, ${code.apiKeyId}, ${code.redirectUri},
        ${code.codeChallenge}, ${code.resource}, ${code.scope}, ${toDate(code.expiresAt)})`.pipe(
        Effect.asVoid,
        operation("OAuthStore.saveCode")
      ),
    takeCode: (hash) => takeCode(hash).pipe(operation("OAuthStore.takeCode")),
    saveSignIn: (signIn) =>
      saveSignIn({ ...signIn, expiresAt: toDate(signIn.expiresAt) }).pipe(operation("OAuthStore.saveSignIn")),
    takeSignIn: (hash) => takeSignIn(hash).pipe(operation("OAuthStore.takeSignIn")),
    saveGrant: (grant) =>
      sql`INSERT INTO oauth_grants (id, client_id, account_id, api_key_id, created_at, code_hash)
      VALUES (${grant.id}, ${grant.clientId}, ${grant.accountId}, ${grant.apiKeyId}, ${toDate(grant.createdAt)},
        ${grant.codeHash ?? null})`.pipe(Effect.asVoid, operation("OAuthStore.saveGrant")),
    saveToken: (token) =>
      sql`INSERT INTO oauth_tokens (token_hash, kind, grant_id, resource, scope, created_at, expires_at)
      VALUES (${token.tokenHash}, ${token.kind}, ${token.grantId}, ${token.resource}, ${token.scope},
        ${toDate(token.createdAt)}, ${toDate(token.expiresAt)})`.pipe(
        Effect.asVoid,
        operation("OAuthStore.saveToken")
      ),
    token: (hash) => findToken(hash).pipe(operation("OAuthStore.token")),
    useRefreshToken: (hash, at) =>
      sql<{ tokenHash: string }>`UPDATE oauth_tokens SET used_at = ${toDate(at)}
      WHERE token_hash = ${hash} AND kind = 'refresh' AND used_at IS NULL RETURNING token_hash`.pipe(
        Effect.map((rows) => rows.length === 1),
        operation("OAuthStore.useRefreshToken")
      ),
    revokeGrant: (id, at) =>
      (/^[0-9a-f-]{36}$/i.test(id)
        ? sql<{ id: string }>`UPDATE oauth_grants SET revoked_at = ${toDate(at)}
          WHERE id = ${id} AND revoked_at IS NULL RETURNING id`
        : Effect.succeed<ReadonlyArray<{ id: string }>>([])
      ).pipe(
        Effect.map((rows) => rows.length === 1),
        operation("OAuthStore.revokeGrant")
      ),
    revokeGrantOfCode: (codeHash, at) =>
      sql<{ id: string }>`UPDATE oauth_grants SET revoked_at = ${toDate(at)}
      WHERE code_hash = ${codeHash} AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1),
        operation("OAuthStore.revokeGrantOfCode")
      ),
    revokeClient: (id, at) =>
      (/^[0-9a-f-]{36}$/i.test(id)
        ? sql<{ id: string }>`UPDATE oauth_grants SET revoked_at = ${toDate(at)}
          WHERE client_id = ${id} AND revoked_at IS NULL RETURNING id`
        : Effect.succeed<ReadonlyArray<{ id: string }>>([])
      ).pipe(
        Effect.map((rows) => rows.length),
        operation("OAuthStore.revokeClient")
      ),
    grants: ({ accountId, all }) =>
      listGrants({ accountId: accountId ?? null, all }).pipe(operation("OAuthStore.grants")),
    sweepExpired: (now, limit) =>
      Effect.gen(function* () {
        const bound = Math.max(0, Math.floor(limit))
        const codes = yield* sweepCodes(toDate(now), bound)
        const signIns = yield* sweepSignIns(toDate(now), bound - codes)
        return codes + signIns + (yield* sweepTokens(toDate(now), bound - codes - signIns))
      }).pipe(operation("OAuthStore.sweepExpired")),
    sweepUnusedClients: (createdBefore, limit) => {
      const bound = Math.max(0, Math.floor(limit))
      const before = toDate(createdBefore)
      return (
        bound === 0
          ? Effect.succeed(0)
          : sql<{ n: number }>`WITH due AS (
              SELECT c.id FROM oauth_clients c WHERE c.created_at < ${before} AND NOT (${everUsed})
              ORDER BY c.created_at LIMIT ${bound} FOR UPDATE SKIP LOCKED
            ), gone AS (
              DELETE FROM oauth_clients c USING due WHERE c.id = due.id AND NOT (${everUsed}) RETURNING 1
            )
            SELECT count(*)::int AS n FROM gone`.pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)))
      ).pipe(operation("OAuthStore.sweepUnusedClients"))
    }
  })
})

/** `OAuthStore` from the `SqlClient` in context. */
export const layer: Layer.Layer<OAuthStore, never, SqlClient.SqlClient> = Layer.effect(OAuthStore, make)
