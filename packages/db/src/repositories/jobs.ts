/**
 * The `Jobs` port on SQL: jobs are read only by their account, listed newest first
 * (`created_at DESC, id DESC`, a total order, so pages never repeat or skip a job).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type JobPage, type JobRecord, Jobs } from "@verbatim/core"
import { Credits, Ids, Language, Mode, Status, Transcript } from "@verbatim/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { Timestamp, toDate, toNullableDate } from "./columns.js"
import { operation } from "./failure.js"
import { countOf, totalOf } from "./page.js"

const JobRow = Schema.Struct({
  id: Ids.JobId,
  accountId: Ids.AccountId,
  requestId: Ids.RequestId,
  videoId: Schema.String,
  videoTitle: Schema.NullOr(Schema.String),
  language: Schema.NullOr(Language.LanguageCode),
  source: Schema.NullOr(Transcript.SourceKind),
  mode: Mode.Mode,
  status: Status.JobStatus,
  error: Schema.NullOr(Schema.String),
  creditsUsed: Credits.Credits,
  transcriptId: Schema.NullOr(Ids.TranscriptId),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  completedAt: Schema.NullOr(Timestamp)
})

const decodeJobs = Schema.decodeUnknown(Schema.Array(JobRow))

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Jobs["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, account_id, request_id, video_id, video_title, language, source, mode,
    status, error, credits_used, transcript_id, created_at, started_at, completed_at`)

  return Jobs.of({
    insert: (job) =>
      sql`INSERT INTO jobs ${sql.insert({
        id: job.id,
        accountId: job.accountId,
        requestId: job.requestId,
        videoId: job.videoId,
        videoTitle: job.videoTitle,
        language: job.language,
        source: job.source,
        mode: job.mode,
        status: job.status,
        error: job.error,
        creditsUsed: job.creditsUsed,
        transcriptId: job.transcriptId,
        createdAt: toDate(job.createdAt),
        startedAt: toNullableDate(job.startedAt),
        completedAt: toNullableDate(job.completedAt)
      })} RETURNING ${columns}`.pipe(
        Effect.flatMap(decodeJobs),
        Effect.flatMap((rows) => Option.fromNullable(rows[0])),
        Effect.map((row): JobRecord => row),
        operation("Jobs.insert")
      ),

    get: (accountId, id) =>
      sql`SELECT ${columns} FROM jobs WHERE account_id = ${accountId} AND id = ${id}`.pipe(
        Effect.flatMap(decodeJobs),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        operation("Jobs.get")
      ),

    list: (accountId, filter) =>
      Effect.gen(function* () {
        const where = sql.and([
          sql`account_id = ${accountId}`,
          ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`])
        ])
        const items = yield* Effect.flatMap(
          sql`SELECT ${columns} FROM jobs WHERE ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${filter.limit} OFFSET ${filter.offset}`,
          decodeJobs
        )
        const total = yield* totalOf(
          filter.offset,
          filter.limit,
          items.length,
          countOf(sql`SELECT count(*)::int AS n FROM jobs WHERE ${where}`)
        )
        return { items, total } satisfies JobPage
      }).pipe(operation("Jobs.list"))
  })
})

/** `Jobs` from the `SqlClient` in context. */
export const layer: Layer.Layer<Jobs, never, SqlClient.SqlClient> = Layer.effect(Jobs, make)
