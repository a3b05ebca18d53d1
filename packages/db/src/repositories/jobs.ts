/**
 * The `Jobs` port on SQL. Jobs are read by their account, listed newest first (`created_at DESC,
 * id DESC`, a total order, so pages never repeat or skip a job). Workers claim, extend, release and
 * settle with single conditional `UPDATE`s, so the database decides every race: a lease is taken
 * only when free or expired, and a job is settled only by the holder of its lease while processing.
 * Rows are decoded with the core's `JobRecord` schema, its dates read as `timestamptz` columns.
 * A job names its transcript only if that transcript still exists: the sub-select locks the row
 * (`FOR KEY SHARE`) so a concurrent delete either finishes first (the job gets null) or waits for
 * the insert, never leaving the foreign key to fail.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { type JobPage, JobRecord, Jobs, type Runnable } from "@verbatim/core"
import { Api, Ids } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { nullableJsonText, Timestamp, toDate, toNullableDate } from "./columns.js"
import { operation } from "./failure.js"
import { countOf, totalOf } from "./page.js"

/** A `jobs` row: the record, with its dates as the driver returns them. */
export const JobRow = Schema.Struct({
  ...JobRecord.fields,
  leaseExpiresAt: Schema.NullOr(Timestamp),
  nextRunAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  completedAt: Schema.NullOr(Timestamp)
})

const RunnableRow = Schema.Struct({
  id: Ids.JobId,
  kind: JobRecord.fields.kind,
  accountId: Ids.AccountId,
  attempts: Schema.NonNegativeInt
})

const Updated = Schema.Struct({ id: Ids.JobId })

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Jobs["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, account_id, request_id, kind, video_id, video_title, language, source,
    mode, status, error, credits_used, transcript_id, payload, webhook_url, attempts, lease_owner,
    lease_expires_at, next_run_at, created_at, started_at, completed_at`)

  const leaseUntil = (now: DateTime.Utc, leaseMs: number) => DateTime.add(now, { millis: leaseMs })

  const findById = SqlSchema.findOne({
    Request: Ids.JobId,
    Result: JobRow,
    execute: (id) => sql`SELECT ${columns} FROM jobs WHERE id = ${id}`
  })

  const findOwned = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, id: Ids.JobId }),
    Result: JobRow,
    execute: ({ accountId, id }) =>
      sql`SELECT ${columns} FROM jobs WHERE account_id = ${accountId} AND id = ${id}`
  })

  const LeaseRequest = Schema.Struct({
    id: Ids.JobId,
    owner: Schema.String,
    now: Timestamp,
    until: Timestamp
  })

  const claimOne = SqlSchema.findOne({
    Request: LeaseRequest,
    Result: JobRow,
    execute: ({ id, owner, now, until }) =>
      sql`UPDATE jobs SET lease_owner = ${owner}, lease_expires_at = ${until}, attempts = attempts + 1,
          started_at = coalesce(started_at, ${now}), updated_at = ${now}
        WHERE id = ${id} AND status = 'processing' AND (next_run_at IS NULL OR next_run_at <= ${now})
          AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
        RETURNING ${columns}`
  })

  const extendOne = SqlSchema.findOne({
    Request: LeaseRequest,
    Result: Updated,
    execute: ({ id, owner, now, until }) =>
      sql`UPDATE jobs SET lease_expires_at = ${until}, updated_at = ${now}
        WHERE id = ${id} AND status = 'processing' AND lease_owner = ${owner} RETURNING id`
  })

  const releaseOne = SqlSchema.findOne({
    Request: Schema.Struct({ id: Ids.JobId, owner: Schema.String, at: Timestamp }),
    Result: Updated,
    execute: ({ id, owner, at }) =>
      sql`UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, next_run_at = ${at}, updated_at = ${at}
        WHERE id = ${id} AND status = 'processing' AND lease_owner = ${owner} RETURNING id`
  })

  const settleOne = SqlSchema.findOne({
    Request: Schema.Struct({
      id: Ids.JobId,
      owner: Schema.String,
      status: JobRecord.fields.status,
      error: JobRecord.fields.error,
      creditsUsed: JobRecord.fields.creditsUsed,
      transcriptId: JobRecord.fields.transcriptId,
      videoTitle: JobRecord.fields.videoTitle,
      language: JobRecord.fields.language,
      source: JobRecord.fields.source,
      completedAt: Timestamp
    }),
    Result: JobRow,
    execute: (s) =>
      sql`UPDATE jobs SET status = ${s.status}, error = ${s.error}, credits_used = ${s.creditsUsed},
          transcript_id = (SELECT t.id FROM transcripts t WHERE t.id = ${s.transcriptId} FOR KEY SHARE),
          video_title = coalesce(${s.videoTitle}, video_title), language = ${s.language}, source = ${s.source},
          completed_at = ${s.completedAt}, lease_owner = NULL, lease_expires_at = NULL, updated_at = ${s.completedAt}
        WHERE id = ${s.id} AND status = 'processing' AND lease_owner = ${s.owner}
        RETURNING ${columns}`
  })

  const runnableAt = SqlSchema.findAll({
    Request: Schema.Struct({ now: Timestamp, limit: Schema.Int }),
    Result: RunnableRow,
    execute: ({ now, limit }) =>
      sql`SELECT id, kind, account_id, attempts FROM jobs
        WHERE status = 'processing' AND (next_run_at IS NULL OR next_run_at <= ${now})
          AND (lease_expires_at IS NULL OR lease_expires_at <= ${now})
        ORDER BY next_run_at NULLS FIRST, created_at LIMIT ${limit}`
  })

  const decodeRows = Schema.decodeUnknown(Schema.Array(JobRow))
  const decodeInserted = Schema.decodeUnknown(
    Schema.Array(Schema.Struct({ transcriptId: JobRecord.fields.transcriptId }))
  )

  return Jobs.of({
    insert: (job) =>
      Effect.gen(function* () {
        const payload = yield* nullableJsonText(Api.FreeFormObject, job.payload)
        const rows = yield* sql`INSERT INTO jobs (id, account_id, request_id, kind, video_id, video_title,
            language, source, mode, status, error, credits_used, transcript_id, payload, webhook_url,
            attempts, lease_owner, lease_expires_at, next_run_at, created_at, started_at, completed_at,
            updated_at)
          VALUES (${job.id}, ${job.accountId}, ${job.requestId}, ${job.kind}, ${job.videoId},
            ${job.videoTitle}, ${job.language}, ${job.source}, ${job.mode}, ${job.status}, ${job.error},
            ${job.creditsUsed},
            (SELECT t.id FROM transcripts t WHERE t.id = ${job.transcriptId} FOR KEY SHARE),
            ${payload}::jsonb, ${job.webhookUrl}, ${job.attempts}, ${job.leaseOwner},
            ${toNullableDate(job.leaseExpiresAt)}, ${toNullableDate(job.nextRunAt)}, ${toDate(job.createdAt)},
            ${toNullableDate(job.startedAt)}, ${toNullableDate(job.completedAt)}, ${toDate(job.createdAt)})
          RETURNING transcript_id`
        // Only the transcript reference can differ from what was written (null when it was gone).
        const [row] = yield* decodeInserted(rows)
        if (row === undefined) return yield* Effect.dieMessage("INSERT ... RETURNING gave no row")
        return { ...job, transcriptId: row.transcriptId }
      }).pipe(operation("Jobs.insert")),

    get: (accountId, id) => findOwned({ accountId, id }).pipe(operation("Jobs.get")),

    find: (id) => findById(id).pipe(operation("Jobs.find")),

    list: (accountId, filter) =>
      Effect.gen(function* () {
        const where = sql.and([
          sql`account_id = ${accountId}`,
          ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`])
        ])
        const items = yield* Effect.flatMap(
          sql`SELECT ${columns} FROM jobs WHERE ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${filter.limit} OFFSET ${filter.offset}`,
          decodeRows
        )
        const total = yield* totalOf(
          filter.offset,
          filter.limit,
          items.length,
          countOf(sql`SELECT count(*)::int AS n FROM jobs WHERE ${where}`)
        )
        return { items, total } satisfies JobPage
      }).pipe(operation("Jobs.list")),

    claim: ({ id, owner, now, leaseMs }) =>
      claimOne({ id, owner, now, until: leaseUntil(now, leaseMs) }).pipe(operation("Jobs.claim")),

    extendLease: ({ id, owner, now, leaseMs }) =>
      extendOne({ id, owner, now, until: leaseUntil(now, leaseMs) }).pipe(
        Effect.map(Option.isSome),
        operation("Jobs.extendLease")
      ),

    release: (id, owner, nextRunAt) =>
      releaseOne({ id, owner, at: nextRunAt }).pipe(Effect.map(Option.isSome), operation("Jobs.release")),

    settle: (id, owner, settlement) => settleOne({ id, owner, ...settlement }).pipe(operation("Jobs.settle")),

    runnable: (now, limit) =>
      runnableAt({ now, limit }).pipe(
        Effect.map((rows): ReadonlyArray<Runnable> => rows),
        operation("Jobs.runnable")
      )
  })
})

/** `Jobs` from the `SqlClient` in context. */
export const layer: Layer.Layer<Jobs, never, SqlClient.SqlClient> = Layer.effect(Jobs, make)
