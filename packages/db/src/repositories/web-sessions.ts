/**
 * The `WebSessionStore` port on SQL (`0045_web_sessions`). A session is saved from the hash of the
 * active key that signed in (one `INSERT ... SELECT`: a key revoked meanwhile saves nothing), and
 * read with that key's state and its account in one statement, so a revoked key ends its sessions
 * for every server at once. `sweep` deletes a bounded number of ended sessions (expired, or their
 * key revoked); rows another sweep holds are skipped.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Account, WebSessionStore } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { Timestamp, toDate } from "./columns.js"
import { operation } from "./failure.js"

const SavedRow = Schema.Struct({ accountId: Ids.AccountId, apiKeyId: Schema.String })

const SessionRow = Schema.Struct({
  ...Account.fields,
  createdAt: Timestamp,
  apiKeyId: Schema.String,
  sessionCreatedAt: Timestamp,
  expiresAt: Timestamp
})

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<WebSessionStore["Type"], never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient

    const save = SqlSchema.findOne({
      Request: Schema.Struct({
        idHash: Schema.String,
        keyHash: Schema.String,
        createdAt: Schema.DateFromSelf,
        expiresAt: Schema.DateFromSelf
      }),
      Result: SavedRow,
      execute: (session) =>
        sql`INSERT INTO web_sessions (id_hash, account_id, api_key_id, created_at, expires_at)
        SELECT ${session.idHash}, k.account_id, k.id, ${session.createdAt}, ${session.expiresAt}
        FROM api_keys k WHERE k.hash = ${session.keyHash} AND k.revoked_at IS NULL
        RETURNING account_id, api_key_id`
    })

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ idHash: Schema.String, now: Schema.DateFromSelf }),
      Result: SessionRow,
      execute: ({ idHash, now }) =>
        sql`SELECT a.id, a.name, a.plan, a.default_mode, a.onboarding_completed, a.created_at,
          s.api_key_id, s.created_at AS session_created_at, s.expires_at
        FROM web_sessions s JOIN api_keys k ON k.id = s.api_key_id JOIN accounts a ON a.id = s.account_id
        WHERE s.id_hash = ${idHash} AND s.expires_at > ${now} AND k.revoked_at IS NULL`
    })

    return WebSessionStore.of({
      save: (session) =>
        save({
          idHash: session.idHash,
          keyHash: session.keyHash,
          createdAt: toDate(session.createdAt),
          expiresAt: toDate(session.expiresAt)
        }).pipe(operation("WebSessionStore.save")),
      find: (idHash, now) =>
        find({ idHash, now: toDate(now) }).pipe(
          Effect.map(
            Option.map((row) => ({
              account: {
                id: row.id,
                name: row.name,
                plan: row.plan,
                defaultMode: row.defaultMode,
                onboardingCompleted: row.onboardingCompleted,
                createdAt: row.createdAt
              },
              apiKeyId: row.apiKeyId,
              createdAt: row.sessionCreatedAt,
              expiresAt: row.expiresAt
            }))
          ),
          operation("WebSessionStore.find")
        ),
      extend: (idHash, expiresAt) =>
        sql`UPDATE web_sessions SET expires_at = ${toDate(expiresAt)} WHERE id_hash = ${idHash}`.pipe(
          Effect.asVoid,
          operation("WebSessionStore.extend")
        ),
      remove: (idHash) =>
        sql<{ n: number }>`WITH gone AS (DELETE FROM web_sessions WHERE id_hash = ${idHash} RETURNING 1)
        SELECT count(*)::int AS n FROM gone`.pipe(
          Effect.map((rows) => Number(rows[0]?.n ?? 0) > 0),
          operation("WebSessionStore.remove")
        ),
      sweep: (now, limit) => {
        const bound = Math.max(0, Math.floor(limit))
        const at = toDate(now)
        return (
          bound === 0
            ? Effect.succeed(0)
            : sql<{ n: number }>`WITH due AS (
                SELECT s.id_hash FROM web_sessions s JOIN api_keys k ON k.id = s.api_key_id
                WHERE s.expires_at <= ${at} OR k.revoked_at IS NOT NULL
                LIMIT ${bound} FOR UPDATE OF s SKIP LOCKED
              ), gone AS (
                DELETE FROM web_sessions s USING due WHERE s.id_hash = due.id_hash RETURNING 1
              )
              SELECT count(*)::int AS n FROM gone`.pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)))
        ).pipe(operation("WebSessionStore.sweep"))
      }
    })
  }
)

/** `WebSessionStore` from the `SqlClient` in context. */
export const layer: Layer.Layer<WebSessionStore, never, SqlClient.SqlClient> = Layer.effect(
  WebSessionStore,
  make
)
