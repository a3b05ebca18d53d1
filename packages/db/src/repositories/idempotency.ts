/**
 * The `IdempotencyKeys` port on SQL. `begin` is one statement: it inserts the claim, or replaces an
 * expired entry, and returns nothing when it did; otherwise the live entry is read. The primary key
 * (account, endpoint, key) lets exactly one of concurrent claims win. `sweepExpired` deletes a
 * bounded number of entries past their expiry (rows another sweep holds are skipped; the expiry is
 * checked again on the row deleted, so a key claimed anew meanwhile stays).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { type IdempotencyEntry, IdempotencyKeys } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { Timestamp, toDate } from "./columns.js"
import { operation } from "./failure.js"

const EntryRow = Schema.Struct({
  request: Schema.String,
  response: Schema.NullOr(Schema.Unknown),
  expiresAt: Timestamp
})

const Key = Schema.Struct({ accountId: Ids.AccountId, endpoint: Schema.String, key: Schema.String })

const toEntry = (row: typeof EntryRow.Type): IdempotencyEntry => ({
  request: row.request,
  response: row.response === null ? Option.none() : Option.some(row.response),
  expiresAt: row.expiresAt
})

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<IdempotencyKeys["Type"], never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient

    const claim = SqlSchema.findOne({
      Request: Schema.Struct({ ...Key.fields, request: Schema.String, now: Timestamp, expiresAt: Timestamp }),
      Result: Schema.Struct({ key: Schema.String }),
      execute: (c) =>
        sql`INSERT INTO idempotency_keys (account_id, endpoint, key, request, response, created_at, expires_at)
        VALUES (${c.accountId}, ${c.endpoint}, ${c.key}, ${c.request}, NULL, ${c.now}, ${c.expiresAt})
        ON CONFLICT (account_id, endpoint, key) DO UPDATE
          SET request = EXCLUDED.request, response = NULL, created_at = EXCLUDED.created_at,
            expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= ${c.now}
        RETURNING key`
    })

    const find = SqlSchema.findOne({
      Request: Key,
      Result: EntryRow,
      execute: ({ accountId, endpoint, key }) =>
        sql`SELECT request, response, expires_at FROM idempotency_keys
        WHERE account_id = ${accountId} AND endpoint = ${endpoint} AND key = ${key}`
    })

    const keep = SqlSchema.void({
      Request: Schema.Struct({ ...Key.fields, response: Schema.String }),
      execute: ({ accountId, endpoint, key, response }) =>
        sql`UPDATE idempotency_keys SET response = ${response}::jsonb
        WHERE account_id = ${accountId} AND endpoint = ${endpoint} AND key = ${key}`
    })

    const drop = SqlSchema.void({
      Request: Key,
      execute: ({ accountId, endpoint, key }) =>
        sql`DELETE FROM idempotency_keys WHERE account_id = ${accountId} AND endpoint = ${endpoint} AND key = ${key}
        AND response IS NULL`
    })

    const get = (accountId: Ids.AccountId, endpoint: string, key: string) =>
      find({ accountId, endpoint, key }).pipe(Effect.map(Option.map(toEntry)))

    return IdempotencyKeys.of({
      begin: (c) =>
        Effect.gen(function* () {
          const won = yield* claim(c)
          if (Option.isSome(won)) return Option.none()
          return yield* get(c.accountId, c.endpoint, c.key)
        }).pipe(operation("IdempotencyKeys.begin")),
      get: (accountId, endpoint, key) => get(accountId, endpoint, key).pipe(operation("IdempotencyKeys.get")),
      complete: (accountId, endpoint, key, response) =>
        keep({ accountId, endpoint, key, response: JSON.stringify(response) }).pipe(
          operation("IdempotencyKeys.complete")
        ),
      abandon: (accountId, endpoint, key) =>
        drop({ accountId, endpoint, key }).pipe(operation("IdempotencyKeys.abandon")),
      sweepExpired: (now, limit) =>
        sql<{ n: number }>`WITH due AS (
          SELECT account_id, endpoint, key FROM idempotency_keys WHERE expires_at < ${toDate(now)}
          ORDER BY expires_at LIMIT ${Math.max(0, Math.floor(limit))} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM idempotency_keys i USING due
          WHERE i.account_id = due.account_id AND i.endpoint = due.endpoint AND i.key = due.key
            AND i.expires_at < ${toDate(now)}
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`.pipe(
          Effect.map((rows) => Number(rows[0]?.n ?? 0)),
          operation("IdempotencyKeys.sweepExpired")
        )
    })
  }
)

/** `IdempotencyKeys` from the `SqlClient` in context. */
export const layer: Layer.Layer<IdempotencyKeys, never, SqlClient.SqlClient> = Layer.effect(
  IdempotencyKeys,
  make
)
