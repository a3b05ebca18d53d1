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
import {
  InsufficientCredits,
  type JobPage,
  JobRecord,
  Jobs,
  type Runnable,
  type SettleResult
} from "@verbatim/core"
import { Api, Ids } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { hasPostgresErrorCode, postgresDetail } from "../postgres-error.js"
import { makePreparedQuery } from "../prepared.js"
import { Int8, nullableJsonText, Timestamp, toDate, toNullableDate } from "./columns.js"
import { operation, operationKeeping } from "./failure.js"
import { leaseSql, leaseUntil } from "./lease.js"
import { isInsufficientCredits } from "./ledger.js"
import { countOf, totalOf } from "./page.js"
import { inSomeTransaction } from "./transaction.js"
import { InsertRow, ServedRow, servedColumnList, servedFieldList, servedOf } from "./transcript-rows.js"
import { ownedConditions } from "./transcripts.js"

/** What `post_charge_or_raise` raises when the balance cannot cover the charge (migration 0023). */
const chargeRefused = hasPostgresErrorCode("VB402")

/** A `jobs` row: the record, with its dates as the driver returns them. */
export const JobRow = Schema.Struct({
  ...JobRecord.fields,
  leaseExpiresAt: Schema.NullOr(Timestamp),
  nextRunAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  completedAt: Schema.NullOr(Timestamp)
})

/** A claimed `jobs` row, with the owner of the expired lease it took over (null when it was free). */
const ClaimedRow = Schema.Struct({ ...JobRow.fields, takenOverFrom: Schema.NullOr(Schema.String) })

const RunnableRow = Schema.Struct({
  id: Ids.JobId,
  kind: JobRecord.fields.kind,
  accountId: Ids.AccountId,
  attempts: Schema.NonNegativeInt
})

const Updated = Schema.Struct({ id: Ids.JobId })

const isJobId = Schema.is(Ids.JobId)

/** A `uuid[]` parameter as array text (ids checked as uuids first, so nothing needs quoting). */
const uuidArray = (ids: ReadonlyArray<string>): string => `{${ids.join(",")}}`

/** One settlement of a batch, with its charge: an element of the JSON read by `jsonb_to_recordset`. */
interface BatchSettlement {
  readonly n: number
  readonly id: string
  readonly status: string
  readonly error: string | null
  readonly credits_used: number
  readonly transcript_id: string | null
  readonly video_title: string | null
  readonly language: string | null
  readonly source: string | null
  readonly completed_at: string
  readonly account_id: string | null
  readonly key: string | null
  readonly amount: number | null
  readonly job_id: string | null
  readonly reason: string | null
  readonly charged_at: string | null
}

/** The jobs a settle moves, with their owner, and what to write for each. */
const SettleRequest = Schema.Struct({
  ids: Schema.String,
  owner: Schema.String,
  /** JSON of `BatchSettlement`s, built from settlements the port's types already checked. */
  settlements: Schema.String
})

/** One settlement's fate, in the order of the settlements. */
const BatchSettled = Schema.Struct({
  n: Schema.Int,
  held: Schema.Boolean,
  moved: Schema.Boolean,
  transcriptId: JobRecord.fields.transcriptId,
  required: Schema.NullOr(Int8),
  balance: Schema.NullOr(Int8)
})

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Jobs["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, account_id, request_id, kind, video_id, video_title, language, source,
    mode, status, error, credits_used, transcript_id, payload, webhook_url, attempts, lease_owner,
    lease_expires_at, next_run_at, created_at, started_at, completed_at`)

  const lease = leaseSql(sql)

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
      sql`UPDATE jobs SET ${lease.take(owner, until)}, attempts = attempts + 1,
          started_at = coalesce(started_at, ${now}), updated_at = ${now}
        WHERE id = ${id} AND status = 'processing' AND (next_run_at IS NULL OR next_run_at <= ${now})
          AND ${lease.free(now)}
        RETURNING ${columns}`
  })

  const extendOne = SqlSchema.findOne({
    Request: LeaseRequest,
    Result: Updated,
    execute: ({ id, owner, now, until }) =>
      sql`UPDATE jobs SET ${lease.extend(until)}, updated_at = ${now}
        WHERE id = ${id} AND status = 'processing' AND ${lease.heldBy(owner)} RETURNING id`
  })

  const releaseOne = SqlSchema.findOne({
    Request: Schema.Struct({ id: Ids.JobId, owner: Schema.String, at: Timestamp }),
    Result: Updated,
    execute: ({ id, owner, at }) =>
      sql`UPDATE jobs SET ${lease.letGo}, next_run_at = ${at}, updated_at = ${at}
        WHERE id = ${id} AND status = 'processing' AND ${lease.heldBy(owner)} RETURNING id`
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
          completed_at = ${s.completedAt}, ${lease.letGo}, updated_at = ${s.completedAt}
        WHERE id = ${s.id} AND status = 'processing' AND ${lease.heldBy(s.owner)}
        RETURNING ${columns}`
  })

  const LeasesRequest = Schema.Struct({
    ids: Schema.String,
    owner: Schema.String,
    now: Timestamp,
    until: Timestamp
  })

  // Statements on several jobs find them by primary key alone and check their state on the locked
  // rows: a condition on the status would let the planner pick the partial runnable index and read
  // every processing job (which it does when its statistics lag behind a sudden backlog). Rows are
  // locked in id order, so two such statements never deadlock.

  // Rows another transaction holds (it is taking or settling the job) are skipped: two workers
  // claiming overlapping ids neither wait for each other nor both get one.
  // `locked` holds the rows as they were before the update: an expired lease's owner is the worker
  // whose job this claim takes over.
  const claimSome = SqlSchema.findAll({
    Request: LeasesRequest,
    Result: ClaimedRow,
    execute: ({ ids, owner, now, until }) =>
      sql`WITH locked AS MATERIALIZED (
          SELECT id, status, next_run_at, lease_expires_at, lease_owner FROM jobs WHERE id = ANY(${ids}::uuid[])
          ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
        )
        UPDATE jobs SET ${lease.take(owner, until)}, attempts = attempts + 1,
          started_at = coalesce(started_at, ${now}), updated_at = ${now}
        WHERE id IN (SELECT id FROM locked WHERE status = 'processing'
          AND (next_run_at IS NULL OR next_run_at <= ${now}) AND ${lease.free(now)})
        RETURNING ${columns}, (SELECT l.lease_owner FROM locked l WHERE l.id = jobs.id) AS taken_over_from`
  })

  const extendSome = SqlSchema.findAll({
    Request: LeasesRequest,
    Result: Updated,
    execute: ({ ids, owner, now, until }) =>
      sql`WITH locked AS MATERIALIZED (
          SELECT id, status, lease_owner FROM jobs WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR NO KEY UPDATE
        )
        UPDATE jobs SET ${lease.extend(until)}, updated_at = ${now}
        WHERE id IN (SELECT id FROM locked WHERE status = 'processing' AND ${lease.heldBy(owner)})
        RETURNING id`
  })

  // Locks in the order every writer follows (jobs, then their holds, then accounts, each in id
  // order), so it never deadlocks with another settle or a request's charge. The charges follow
  // `./ledger.ts`: the rows are locked by a statement of their own (`lockSettling`), then one
  // statement, whose snapshot sees every posting committed before the locks were granted, checks
  // each account's balance, writes its entries (an entry whose key exists inserts nothing) and
  // moves the balance by exactly what was inserted. Each moved job's open hold (migration 0016) is
  // closed in the same statement: settled by its charge, released without one; an account's
  // charges are paid from its available balance plus what its moving jobs' holds free.
  const settling = ({ ids, owner, settlements }: typeof SettleRequest.Type) =>
    sql`WITH s AS MATERIALIZED (
          SELECT * FROM jsonb_to_recordset(${settlements}::jsonb) AS s(n integer, id uuid, status text,
            error text, credits_used integer, transcript_id uuid, video_title text, language text, source text,
            completed_at timestamptz, account_id uuid, key text, amount bigint, job_id uuid, reason text,
            charged_at timestamptz)
        ), locked_jobs AS MATERIALIZED (
          SELECT id, status, lease_owner FROM jobs WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR NO KEY UPDATE
        ), held AS MATERIALIZED (
          SELECT id FROM locked_jobs WHERE status = 'processing' AND ${lease.heldBy(owner)}
        ), holds AS MATERIALIZED (
          SELECT id, account_id, job_id, amount FROM credit_holds
          WHERE job_id IN (SELECT id FROM held) AND status = 'open' ORDER BY id FOR UPDATE
        ), need AS MATERIALIZED (
          SELECT account_id, sum(amount)::bigint AS amount FROM s
          WHERE amount IS NOT NULL AND id IN (SELECT id FROM held) GROUP BY account_id
        ), freed AS MATERIALIZED (
          SELECT account_id, sum(amount)::bigint AS amount FROM holds GROUP BY account_id
        ), locked AS MATERIALIZED (
          SELECT a.id, a.credits - a.held + coalesce(f.amount, 0) AS available
          FROM accounts a LEFT JOIN freed f ON f.account_id = a.id
          WHERE a.id IN (SELECT account_id FROM need UNION SELECT account_id FROM freed)
          ORDER BY a.id FOR NO KEY UPDATE OF a
        )`

  const lockSettling = SqlSchema.void({
    Request: SettleRequest,
    execute: (request) => sql`${settling(request)} SELECT count(*) FROM locked`
  })

  const settleSome = SqlSchema.findAll({
    Request: SettleRequest,
    Result: BatchSettled,
    execute: (request) =>
      sql`${settling(request)}, moving AS MATERIALIZED (
          SELECT s.* FROM s WHERE s.id IN (SELECT id FROM held) AND (s.amount IS NULL OR s.account_id IN (
            SELECT l.id FROM locked l JOIN need ON need.account_id = l.id WHERE l.available >= need.amount))
        ), moved AS (
          UPDATE jobs j SET status = m.status, error = m.error, credits_used = m.credits_used,
            transcript_id = (SELECT t.id FROM transcripts t WHERE t.id = m.transcript_id FOR KEY SHARE),
            video_title = coalesce(m.video_title, j.video_title), language = m.language, source = m.source,
            completed_at = m.completed_at, ${lease.letGo}, updated_at = m.completed_at
          FROM moving m WHERE j.id = m.id
          RETURNING j.id, j.transcript_id
        ), entry AS (
          INSERT INTO ledger_entries (account_id, kind, amount, key, job_id, reason, created_at)
          SELECT account_id, 'charge', -amount, key, job_id, reason, charged_at FROM moving
          WHERE amount IS NOT NULL ORDER BY n
          ON CONFLICT (account_id, key) DO NOTHING
          RETURNING account_id, amount
        ), closed AS (
          UPDATE credit_holds c SET status = CASE WHEN m.amount IS NULL THEN 'released' ELSE 'settled' END,
            charged = coalesce(m.amount, 0), settled_key = m.key, closed_at = m.completed_at
          FROM holds h JOIN moving m ON m.id = h.job_id WHERE c.id = h.id
          RETURNING c.account_id, c.amount
        ), paid AS (
          UPDATE accounts a SET credits = a.credits + coalesce(d.amount, 0), held = a.held - coalesce(r.amount, 0)
          FROM locked l
            LEFT JOIN (SELECT account_id, sum(amount)::bigint AS amount FROM entry GROUP BY account_id) d
              ON d.account_id = l.id
            LEFT JOIN (SELECT account_id, sum(amount)::bigint AS amount FROM closed GROUP BY account_id) r
              ON r.account_id = l.id
          WHERE a.id = l.id AND (d.amount IS NOT NULL OR r.amount IS NOT NULL) RETURNING a.id
        )
        SELECT s.n, h.id IS NOT NULL AS held, m.id IS NOT NULL AS moved, m.transcript_id,
          need.amount AS required, l.available AS balance
        FROM s LEFT JOIN held h ON h.id = s.id LEFT JOIN moved m ON m.id = s.id
          LEFT JOIN need ON need.account_id = s.account_id LEFT JOIN locked l ON l.id = s.account_id
        ORDER BY s.n`
  })

  const settleLocked = (request: typeof SettleRequest.Type) =>
    inSomeTransaction(sql)(Effect.zipRight(lockSettling(request), settleSome(request)))

  const runnableAt = SqlSchema.findAll({
    Request: Schema.Struct({ now: Timestamp, limit: Schema.Int }),
    Result: RunnableRow,
    execute: ({ now, limit }) =>
      sql`SELECT id, kind, account_id, attempts FROM jobs
        WHERE status = 'processing' AND (next_run_at IS NULL OR next_run_at <= ${now})
          AND ${lease.free(now)}
        ORDER BY next_run_at NULLS FIRST, created_at LIMIT ${limit}`
  })

  const decodeRows = Schema.decodeUnknown(Schema.Array(JobRow))
  const servedColumns = sql.literal(servedColumnList)
  const servedFields = sql.literal(servedFieldList)
  const preparedQuery = yield* makePreparedQuery
  const decodeServed = Schema.decodeUnknown(Schema.Array(ServedRow))
  const encodeTranscript = Schema.encode(InsertRow)
  const decodeInserted = Schema.decodeUnknown(
    Schema.Array(Schema.Struct({ transcriptId: JobRecord.fields.transcriptId }))
  )

  return Jobs.of({
    insert: (job) =>
      Effect.gen(function* () {
        const payload = yield* nullableJsonText(Api.FreeFormObject, job.payload)
        // Prepared (`prepared.ts`): every POST /transcribe that stores captions runs it.
        const rows =
          yield* preparedQuery(sql`INSERT INTO jobs (id, account_id, request_id, kind, video_id, video_title,
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
          RETURNING transcript_id AS "transcriptId"`)
        // Only the transcript reference can differ from what was written (null when it was gone).
        const [row] = yield* decodeInserted(rows)
        if (row === undefined) return yield* Effect.dieMessage("INSERT ... RETURNING gave no row")
        return { ...job, transcriptId: row.transcriptId }
      }).pipe(operation("Jobs.insert")),

    insertPaid: (job, transcript, { request, amount }) =>
      Effect.gen(function* () {
        const payload = yield* nullableJsonText(Api.FreeFormObject, job.payload)
        const row = yield* encodeTranscript(transcript)
        // One statement, in a transaction of its own: the transcript (none when the account owns
        // one with its key), the job naming it (only with it), then the charge, posted only with the
        // job (`LATERAL` on its row) and raising when refused, which takes the two inserts back.
        const statement = sql`WITH transcript AS (
            INSERT INTO transcripts ${sql.insert({ ...row, segmentsJson: row.segments, updatedAt: row.createdAt })}
            ON CONFLICT (account_id, video_id, language, source_kind) DO NOTHING
            RETURNING id
          ), job AS (
            INSERT INTO jobs (id, account_id, request_id, kind, video_id, video_title, language, source,
              mode, status, error, credits_used, transcript_id, payload, webhook_url, attempts, lease_owner,
              lease_expires_at, next_run_at, created_at, started_at, completed_at, updated_at)
            SELECT ${job.id}, ${job.accountId}, ${job.requestId}, ${job.kind}, ${job.videoId},
              ${job.videoTitle}, ${job.language}, ${job.source}, ${job.mode}, ${job.status}, ${job.error},
              ${job.creditsUsed}, transcript.id, ${payload}::jsonb, ${job.webhookUrl}, ${job.attempts},
              ${job.leaseOwner}, ${toNullableDate(job.leaseExpiresAt)}, ${toNullableDate(job.nextRunAt)},
              ${toDate(job.createdAt)}, ${toNullableDate(job.startedAt)}, ${toNullableDate(job.completedAt)},
              ${toDate(job.createdAt)}
            FROM transcript
            RETURNING id
          )
          SELECT charged.available FROM job CROSS JOIN LATERAL post_charge_or_raise(${request.accountId},
            ${amount}, ${request.key}, job.id, ${request.reason}, ${toDate(request.at)}) AS charged(available)`
        // Inside a caller's transaction, a savepoint: the refusal must not abort the caller's work.
        const outer = yield* Effect.serviceOption(SqlClient.TransactionConnection)
        const rows = yield* (Option.isSome(outer) ? sql.withTransaction(statement) : statement).pipe(
          Effect.catchIf(chargeRefused, (error) =>
            Effect.fail(
              new InsufficientCredits({
                required: amount,
                balance: Number(Option.getOrElse(postgresDetail(error), () => "0"))
              })
            )
          )
        )
        return rows.length === 0 ? ("exists" as const) : ("stored" as const)
      }).pipe(operationKeeping("Jobs.insertPaid", isInsufficientCredits)),

    insertServing: (job, filter) =>
      Effect.gen(function* () {
        const payload = yield* nullableJsonText(Api.FreeFormObject, job.payload)
        // The insert runs once whether or not the outer SELECT reads it; it inserts nothing when
        // no transcript was found. FOR KEY SHARE: a concurrent delete waits for the job's insert.
        const statement = sql`WITH served AS (
            SELECT ${servedColumns} FROM transcripts
            WHERE ${ownedConditions(sql, job.accountId, job.videoId, filter)}
            ORDER BY created_at DESC, id DESC LIMIT 1 FOR KEY SHARE
          ), job AS (
            INSERT INTO jobs (id, account_id, request_id, kind, video_id, video_title, language, source,
              mode, status, error, credits_used, transcript_id, payload, webhook_url, attempts, lease_owner,
              lease_expires_at, next_run_at, created_at, started_at, completed_at, updated_at)
            SELECT ${job.id}, ${job.accountId}, ${job.requestId}, ${job.kind}, ${job.videoId},
              served.video_title, served.language, served.source_kind, ${job.mode}, ${job.status},
              ${job.error}, ${job.creditsUsed}, served.id, ${payload}::jsonb, ${job.webhookUrl},
              ${job.attempts}, ${job.leaseOwner}, ${toNullableDate(job.leaseExpiresAt)},
              ${toNullableDate(job.nextRunAt)}, ${toDate(job.createdAt)}, ${toNullableDate(job.startedAt)},
              ${toNullableDate(job.completedAt)}, ${toDate(job.createdAt)}
            FROM served
            RETURNING id
          )
          SELECT ${servedFields} FROM served`
        // Every owned POST /transcribe runs it: prepared, on the direct lane (`prepared.ts`,
        // `direct.ts`), the text compiled as the client compiles it, the columns named as the row's fields.
        const rows = yield* preparedQuery(statement)
        const [served] = yield* decodeServed(rows)
        return served === undefined ? Option.none() : Option.some(servedOf(served))
      }).pipe(operation("Jobs.insertServing")),

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

    claimMany: ({ ids, owner, now, leaseMs }) => {
      const valid = ids.filter(isJobId)
      return valid.length === 0
        ? Effect.succeed([])
        : claimSome({ ids: uuidArray(valid), owner, now, until: leaseUntil(now, leaseMs) }).pipe(
            operation("Jobs.claimMany")
          )
    },

    extendLeases: ({ ids, owner, now, leaseMs }) => {
      const valid = ids.filter(isJobId)
      return valid.length === 0
        ? Effect.succeed([])
        : extendSome({ ids: uuidArray(valid), owner, now, until: leaseUntil(now, leaseMs) }).pipe(
            Effect.map((rows) => rows.map((row) => row.id)),
            operation("Jobs.extendLeases")
          )
    },

    settleMany: (owner, settlements) =>
      settlements.length === 0
        ? Effect.succeed([])
        : settleLocked({
            ids: uuidArray(settlements.map((s) => s.id)),
            owner,
            settlements: JSON.stringify(
              settlements.map(
                (s, n): BatchSettlement => ({
                  n,
                  id: s.id,
                  status: s.status,
                  error: s.error,
                  credits_used: s.creditsUsed,
                  transcript_id: s.transcriptId,
                  video_title: s.videoTitle,
                  language: s.language,
                  source: s.source,
                  completed_at: DateTime.formatIso(s.completedAt),
                  account_id: s.charge?.request.accountId ?? null,
                  key: s.charge?.request.key ?? null,
                  amount: s.charge?.amount ?? null,
                  job_id: s.charge?.request.jobId ?? null,
                  reason: s.charge?.request.reason ?? null,
                  charged_at: s.charge === null ? null : DateTime.formatIso(s.charge.request.at)
                })
              )
            )
          }).pipe(
            Effect.map((rows) =>
              rows.map(
                (row): SettleResult =>
                  row.moved
                    ? { _tag: "Settled", transcriptId: row.transcriptId }
                    : row.held
                      ? { _tag: "Unpaid", required: row.required ?? 0, balance: row.balance ?? 0 }
                      : { _tag: "NotHeld" }
              )
            ),
            operation("Jobs.settleMany")
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
