/**
 * The `Uploads` port on SQL. Every move is one conditional `UPDATE` on the current status, so the
 * database decides races: one `complete` marks an upload uploaded, one transcribe consumes it.
 * Rows decode with core's `UploadRecord`, dates as `timestamptz` and the size as `bigint`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { UploadRecord, Uploads } from "@verbatim/core"
import { Ids, Plan } from "@verbatim/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { Int8, Timestamp } from "./columns.js"
import { operation } from "./failure.js"
import { inSomeTransaction } from "./transaction.js"

/** An `uploads` row: the record, with its dates and size as the driver returns them. */
export const UploadRow = Schema.Struct({
  ...UploadRecord.fields,
  sizeBytes: Int8,
  expiresAt: Timestamp,
  createdAt: Timestamp,
  uploadedAt: Schema.NullOr(Timestamp),
  consumedAt: Schema.NullOr(Timestamp),
  fileRemovedAt: Schema.NullOr(Timestamp),
  putClosesAt: Timestamp
})

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Uploads["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(`id, account_id, filename, mime_type, size_bytes, duration_seconds, path,
    status, job_id, expires_at, created_at, uploaded_at, consumed_at, file_removed_at, put_closes_at`)

  const insertOne = SqlSchema.void({
    Request: UploadRow,
    execute: (u) =>
      sql`INSERT INTO uploads (id, account_id, filename, mime_type, size_bytes, duration_seconds, path,
          status, job_id, expires_at, created_at, uploaded_at, consumed_at, file_removed_at, put_closes_at)
        VALUES (${u.id}, ${u.accountId}, ${u.filename}, ${u.mimeType}, ${u.sizeBytes}, ${u.durationSeconds},
          ${u.path}, ${u.status}, ${u.jobId}, ${u.expiresAt}, ${u.createdAt}, ${u.uploadedAt},
          ${u.consumedAt}, ${u.fileRemovedAt}, ${u.putClosesAt})`
  })

  // Inserts of one account take turns on a transaction-scoped advisory lock; the usage is read by
  // a statement after the lock was granted, so it sees every upload committed before.
  const lockAccount = (accountId: Ids.AccountId) =>
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${`uploads:${accountId}`}, 0))`

  // In flight: not yet transcribed and still usable (its URL or its wait not expired, or a PUT may
  // still land). Stored: every upload whose file the store keeps or may still receive.
  const usageOf = SqlSchema.single({
    Request: Schema.Struct({ accountId: Ids.AccountId, now: Timestamp }),
    Result: Schema.Struct({ inFlight: Int8, bytesStored: Int8 }),
    execute: ({ accountId, now }) =>
      sql`SELECT
          count(*) FILTER (WHERE status <> 'consumed' AND (expires_at > ${now} OR put_closes_at > ${now})) AS in_flight,
          coalesce(sum(size_bytes), 0)::bigint AS bytes_stored
        FROM uploads WHERE account_id = ${accountId} AND file_removed_at IS NULL`
  })

  const insertWithin = (upload: UploadRecord, quota: Plan.UploadQuota) =>
    inSomeTransaction(sql)(
      Effect.gen(function* () {
        yield* lockAccount(upload.accountId)
        const usage = yield* usageOf({ accountId: upload.accountId, now: upload.createdAt })
        const inserted = Plan.uploadQuotaExceeded(quota, usage, upload.sizeBytes) === undefined
        if (inserted) yield* insertOne(upload)
        return { inserted, usage }
      })
    )

  const findOwned = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, id: Ids.UploadId }),
    Result: UploadRow,
    execute: ({ accountId, id }) =>
      sql`SELECT ${columns} FROM uploads WHERE account_id = ${accountId} AND id = ${id}`
  })

  const markOne = SqlSchema.findOne({
    Request: Schema.Struct({ id: Ids.UploadId, at: Timestamp, expiresAt: Timestamp }),
    Result: UploadRow,
    execute: ({ id, at, expiresAt }) =>
      sql`UPDATE uploads SET status = 'uploaded', uploaded_at = ${at}, expires_at = ${expiresAt}
        WHERE id = ${id} AND status = 'registered' RETURNING ${columns}`
  })

  const consumeOne = SqlSchema.findOne({
    Request: Schema.Struct({ id: Ids.UploadId, jobId: Ids.JobId, at: Timestamp }),
    Result: Schema.Struct({ id: Ids.UploadId }),
    execute: ({ id, jobId, at }) =>
      sql`UPDATE uploads SET status = 'consumed', job_id = ${jobId}, consumed_at = ${at}
        WHERE id = ${id} AND status = 'uploaded' RETURNING id`
  })

  // Unconsumed uploads past their expiry and their PUT window, consumed ones whose job has finished
  // (or is gone), and ended ones whose file was removed while a PUT could still land, once it cannot.
  const sweepableAt = SqlSchema.findAll({
    Request: Schema.Struct({ now: Timestamp, limit: Schema.Int }),
    Result: UploadRow,
    execute: ({ now, limit }) =>
      sql`SELECT ${sql.literal(
        `u.id, u.account_id, u.filename, u.mime_type, u.size_bytes, u.duration_seconds, u.path, u.status,
        u.job_id, u.expires_at, u.created_at, u.uploaded_at, u.consumed_at, u.file_removed_at,
        u.put_closes_at`
      )}
        FROM uploads u LEFT JOIN jobs j ON j.id = u.job_id
        WHERE (u.file_removed_at IS NULL
            AND ((u.status <> 'consumed' AND u.expires_at <= ${now} AND u.put_closes_at <= ${now})
              OR (u.status = 'consumed' AND (j.id IS NULL OR j.status <> 'processing'))))
          OR (u.file_removed_at < u.put_closes_at AND u.put_closes_at <= ${now})
        ORDER BY u.expires_at LIMIT ${limit}`
  })

  const removed = SqlSchema.void({
    Request: Schema.Struct({ id: Ids.UploadId, at: Timestamp }),
    execute: ({ id, at }) =>
      sql`WITH gone AS (DELETE FROM uploads WHERE id = ${id} AND status <> 'consumed' RETURNING id)
        UPDATE uploads SET file_removed_at = ${at} WHERE id = ${id} AND status = 'consumed'`
  })

  return Uploads.of({
    insert: (upload, quota) => insertWithin(upload, quota).pipe(operation("Uploads.insert")),
    get: (accountId, id) => findOwned({ accountId, id }).pipe(operation("Uploads.get")),
    markUploaded: (id, at, expiresAt) =>
      markOne({ id, at, expiresAt }).pipe(operation("Uploads.markUploaded")),
    consume: (id, jobId, at) =>
      consumeOne({ id, jobId, at }).pipe(Effect.map(Option.isSome), operation("Uploads.consume")),
    sweepable: (now, limit) => sweepableAt({ now, limit }).pipe(operation("Uploads.sweepable")),
    fileRemoved: (id, at) => removed({ id, at }).pipe(operation("Uploads.fileRemoved"))
  })
})

/** `Uploads` from the `SqlClient` in context. */
export const layer: Layer.Layer<Uploads, never, SqlClient.SqlClient> = Layer.effect(Uploads, make)
