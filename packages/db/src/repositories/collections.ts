/**
 * The `Collections` port on SQL. A collection and its videos are written in one transaction (the
 * videos in one statement, from a JSON array), after a channel resolve took one of the month's
 * channel jobs with a conditional upsert (the row lock of `ON CONFLICT DO UPDATE` orders concurrent
 * resolves, so the cap holds). Reads first link the collections they show to their batch (one
 * `UPDATE` from a CTE, only where no batch is linked yet), then read the videos with their batch
 * item's job in one statement; the history counts the same states in SQL, one statement per page.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import {
  type CollectionKey,
  type CollectionKind,
  CollectionRecord,
  type CollectionSummary,
  Collections,
  CollectionVideo,
  type CollectionVideoState,
  type LinkedBatch
} from "@verbatim/core"
import { Ids, Status } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { Timestamp } from "./columns.js"
import { operation } from "./failure.js"

/** A `collections` row: the record, with its dates as the driver returns them. */
const CollectionRow = Schema.Struct({ ...CollectionRecord.fields, createdAt: Timestamp })

/** A collection with the batch linked to it. */
const LinkedRow = Schema.Struct({
  ...CollectionRow.fields,
  batchId: Schema.NullOr(Ids.BatchId),
  batchCreatedAt: Schema.NullOr(Timestamp),
  batchStartedAt: Schema.NullOr(Timestamp)
})

const VideoStateRow = Schema.Struct({
  ...CollectionVideo.fields,
  publishedAt: Schema.NullOr(Timestamp),
  inBatch: Schema.Boolean,
  jobId: Schema.NullOr(Ids.JobId),
  itemError: Schema.NullOr(Schema.String),
  jobStatus: Schema.NullOr(Status.JobStatus),
  jobError: Schema.NullOr(Schema.String),
  jobCompletedAt: Schema.NullOr(Timestamp)
})

const SummaryRow = Schema.Struct({
  ...LinkedRow.fields,
  submitted: Schema.NonNegativeInt,
  completed: Schema.NonNegativeInt,
  failed: Schema.NonNegativeInt,
  processing: Schema.NonNegativeInt,
  lastFinishedAt: Schema.NullOr(Timestamp)
})

const linkedBatch = (row: typeof LinkedRow.Type): LinkedBatch | null =>
  row.batchId === null || row.batchCreatedAt === null
    ? null
    : { id: row.batchId, createdAt: row.batchCreatedAt, startedAt: row.batchStartedAt }

const recordOf = ({
  batchId: _,
  batchCreatedAt: __,
  batchStartedAt: ___,
  ...record
}: typeof LinkedRow.Type) => record

const videoState = (row: typeof VideoStateRow.Type): CollectionVideoState => {
  const { inBatch, itemError, jobStatus, jobError, jobCompletedAt, ...video } = row
  const status: Status.JobStatus | null = !inBatch
    ? null
    : itemError !== null
      ? "failed"
      : (jobStatus ?? "processing")
  return {
    ...video,
    status,
    jobId: inBatch && itemError === null ? row.jobId : null,
    finishedAt: status === null || status === "processing" ? null : jobCompletedAt,
    error: itemError ?? jobError
  }
}

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Collections["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = `id, account_id, kind, playlist_id, playlist_title, playlist_url, channel_id, channel_title,
    channel_url, metadata, total_videos, created_at`
  const linkedColumns = sql.literal(
    `${columns
      .split(",")
      .map((column) => `c.${column.trim()}`)
      .join(", ")}, c.batch_id, b.created_at AS batch_created_at, b.started_at AS batch_started_at`
  )

  const insertCollection = SqlSchema.void({
    Request: CollectionRow,
    execute: (c) =>
      sql`INSERT INTO collections (id, account_id, kind, playlist_id, playlist_title, playlist_url, channel_id,
          channel_title, channel_url, metadata, total_videos, created_at)
        VALUES (${c.id}, ${c.accountId}, ${c.kind}, ${c.playlistId}, ${c.playlistTitle}, ${c.playlistUrl},
          ${c.channelId}, ${c.channelTitle}, ${c.channelUrl},
          ${c.metadata === null ? null : JSON.stringify(c.metadata)}::jsonb, ${c.totalVideos}, ${c.createdAt})`
  })

  const insertVideos = (collectionId: Ids.CollectionId, videos: ReadonlyArray<CollectionVideo>) =>
    sql`INSERT INTO collection_videos (collection_id, position, id, video_id, title, url, published_at,
        duration_seconds)
      SELECT ${collectionId}, x.position, x.id, x.video_id, x.title, x.url, x.published_at, x.duration_seconds
      FROM jsonb_to_recordset(${JSON.stringify(
        videos.map((video) => ({
          position: video.position,
          id: video.id,
          video_id: video.videoId,
          title: video.title,
          url: video.url,
          published_at: video.publishedAt === null ? null : DateTime.formatIso(video.publishedAt),
          duration_seconds: video.durationSeconds
        }))
      )}::jsonb) AS x(position integer, id uuid, video_id text, title text, url text, published_at timestamptz,
        duration_seconds integer)`

  const Used = Schema.Struct({ used: Schema.NonNegativeInt })

  const takeChannelJob = SqlSchema.findOne({
    Request: Schema.Struct({
      accountId: Ids.AccountId,
      month: Schema.String,
      cap: Schema.NullOr(Schema.Int)
    }),
    Result: Used,
    execute: ({ accountId, month, cap }) =>
      cap === null
        ? sql`INSERT INTO channel_job_months (account_id, month, used) VALUES (${accountId}, ${month}, 1)
            ON CONFLICT (account_id, month) DO UPDATE SET used = channel_job_months.used + 1
            RETURNING used`
        : sql`INSERT INTO channel_job_months (account_id, month, used) VALUES (${accountId}, ${month}, 1)
            ON CONFLICT (account_id, month) DO UPDATE SET used = channel_job_months.used + 1
              WHERE channel_job_months.used < ${cap}
            RETURNING used`
  })

  const usedIn = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, month: Schema.String }),
    Result: Used,
    execute: ({ accountId, month }) =>
      sql`SELECT used FROM channel_job_months WHERE account_id = ${accountId} AND month = ${month}`
  })

  /** Links each of these collections that has no batch yet to its batch, when that batch exists. */
  const link = (accountId: Ids.AccountId, ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.void
      : sql`WITH found AS (
          SELECT c.id, (
            SELECT b.id FROM batches b
            WHERE b.account_id = c.account_id AND b.created_at >= c.created_at
              AND EXISTS (
                SELECT 1 FROM batch_items i
                JOIN collection_videos v ON v.collection_id = c.id AND v.video_id = i.video_id
                WHERE i.batch_id = b.id)
            ORDER BY b.created_at, b.id LIMIT 1) AS batch_id
          FROM collections c
          WHERE c.account_id = ${accountId} AND c.batch_id IS NULL
            AND c.id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::uuid))
        UPDATE collections c SET batch_id = found.batch_id FROM found
        WHERE c.id = found.id AND found.batch_id IS NOT NULL AND c.batch_id IS NULL`.pipe(Effect.asVoid)

  const findKey = SqlSchema.findOne({
    Request: Schema.Struct({
      accountId: Ids.AccountId,
      kind: Schema.Literal("playlist", "channel"),
      tag: Schema.Literal("Id", "Platform"),
      id: Schema.String
    }),
    Result: Schema.Struct({ id: Ids.CollectionId }),
    execute: ({ accountId, kind, tag, id }) =>
      tag === "Id"
        ? sql`SELECT id FROM collections WHERE account_id = ${accountId} AND kind = ${kind} AND id = ${id}::uuid`
        : sql`SELECT id FROM collections WHERE account_id = ${accountId} AND kind = ${kind}
            AND ${sql(kind === "playlist" ? "playlist_id" : "channel_id")} = ${id}
            ORDER BY created_at DESC, id DESC LIMIT 1`
  })

  const findLinked = SqlSchema.single({
    Request: Ids.CollectionId,
    Result: LinkedRow,
    execute: (id) =>
      sql`SELECT ${linkedColumns} FROM collections c LEFT JOIN batches b ON b.id = c.batch_id WHERE c.id = ${id}`
  })

  const videosOf = SqlSchema.findAll({
    Request: Ids.CollectionId,
    Result: VideoStateRow,
    execute: (id) =>
      sql`WITH items AS (
          SELECT DISTINCT ON (i.video_id) i.video_id, i.job_id, i.error
          FROM batch_items i JOIN collections c ON c.batch_id = i.batch_id
          WHERE c.id = ${id}
          ORDER BY i.video_id, i.position)
        SELECT v.id, v.position, v.video_id, v.title, v.url, v.published_at, v.duration_seconds,
          items.video_id IS NOT NULL AS in_batch, items.job_id, items.error AS item_error,
          j.status AS job_status, j.error AS job_error, j.completed_at AS job_completed_at
        FROM collection_videos v
        LEFT JOIN items ON items.video_id = v.video_id
        LEFT JOIN jobs j ON j.id = items.job_id
        WHERE v.collection_id = ${id}
        ORDER BY v.position`
  })

  const unlinkedPage = SqlSchema.findAll({
    Request: Schema.Struct({
      accountId: Ids.AccountId,
      kind: Schema.Literal("playlist", "channel"),
      limit: Schema.Int
    }),
    Result: Schema.Struct({ id: Ids.CollectionId, batchId: Schema.NullOr(Ids.BatchId) }),
    execute: ({ accountId, kind, limit }) =>
      sql`SELECT id, batch_id FROM collections WHERE account_id = ${accountId} AND kind = ${kind}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`
  })

  const summaries = SqlSchema.findAll({
    Request: Schema.Struct({
      accountId: Ids.AccountId,
      kind: Schema.Literal("playlist", "channel"),
      limit: Schema.Int
    }),
    Result: SummaryRow,
    execute: ({ accountId, kind, limit }) =>
      sql`WITH page AS MATERIALIZED (
          SELECT * FROM collections WHERE account_id = ${accountId} AND kind = ${kind}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}),
        items AS (
          SELECT DISTINCT ON (i.batch_id, i.video_id) i.batch_id, i.video_id, i.job_id, i.error
          FROM batch_items i WHERE i.batch_id IN (SELECT batch_id FROM page WHERE batch_id IS NOT NULL)
          ORDER BY i.batch_id, i.video_id, i.position),
        states AS (
          SELECT v.collection_id,
            CASE WHEN it.video_id IS NULL THEN NULL WHEN it.error IS NOT NULL THEN 'failed'
              ELSE coalesce(j.status, 'processing') END AS status,
            j.completed_at
          FROM page p JOIN collection_videos v ON v.collection_id = p.id
          LEFT JOIN items it ON it.batch_id = p.batch_id AND it.video_id = v.video_id
          LEFT JOIN jobs j ON j.id = it.job_id),
        counts AS (
          SELECT collection_id,
            count(status)::int AS submitted,
            (count(*) FILTER (WHERE status = 'completed'))::int AS completed,
            (count(*) FILTER (WHERE status IN ('failed', 'requires_asr_confirmation')))::int AS failed,
            (count(*) FILTER (WHERE status = 'processing'))::int AS processing,
            max(completed_at) FILTER (WHERE status <> 'processing') AS last_finished_at
          FROM states GROUP BY collection_id)
        SELECT ${linkedColumns}, coalesce(n.submitted, 0) AS submitted, coalesce(n.completed, 0) AS completed,
          coalesce(n.failed, 0) AS failed, coalesce(n.processing, 0) AS processing, n.last_finished_at
        FROM page c LEFT JOIN counts n ON n.collection_id = c.id LEFT JOIN batches b ON b.id = c.batch_id
        ORDER BY c.created_at DESC, c.id DESC`
  })

  const topOf = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Ids.AccountId, limit: Schema.Int }),
    Result: Schema.Struct({ channelId: Ids.ChannelId, transcribedCount: Schema.NonNegativeInt }),
    execute: ({ accountId, limit }) =>
      sql`SELECT channel_id, count(DISTINCT video_id)::int AS transcribed_count FROM transcripts
        WHERE account_id = ${accountId} AND status = 'succeeded' AND channel_id ~ '^UC[A-Za-z0-9_-]{22}$'
        GROUP BY channel_id
        ORDER BY transcribed_count DESC, max(created_at) DESC, channel_id
        LIMIT ${limit}`
  })

  const view = (accountId: Ids.AccountId, kind: CollectionKind, key: CollectionKey) =>
    Effect.gen(function* () {
      const found = yield* findKey({ accountId, kind, tag: key._tag, id: key.id })
      if (Option.isNone(found)) return Option.none()
      const id = found.value.id
      yield* link(accountId, [id])
      const row = yield* findLinked(id)
      const videos = yield* videosOf(id)
      return Option.some({
        collection: recordOf(row),
        batch: linkedBatch(row),
        videos: videos.map(videoState)
      })
    })

  const history = (accountId: Ids.AccountId, kind: CollectionKind, limit: number) =>
    Effect.gen(function* () {
      const page = yield* unlinkedPage({ accountId, kind, limit })
      yield* link(
        accountId,
        page.filter((row) => row.batchId === null).map((row) => row.id)
      )
      const rows = yield* summaries({ accountId, kind, limit })
      return rows.map(
        (row): CollectionSummary => ({
          collection: recordOf(row),
          batch: linkedBatch(row),
          submitted: row.submitted,
          completed: row.completed,
          failed: row.failed,
          processing: row.processing,
          lastFinishedAt: row.lastFinishedAt
        })
      )
    })

  return Collections.of({
    insert: (collection, videos, channelJob) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            if (channelJob !== null) {
              if (channelJob.cap !== null && channelJob.cap < 1) return false
              const taken = yield* takeChannelJob({
                accountId: collection.accountId,
                month: channelJob.month,
                cap: channelJob.cap
              })
              if (Option.isNone(taken)) return false
            }
            yield* insertCollection(collection)
            if (videos.length > 0) yield* insertVideos(collection.id, videos)
            return true
          })
        )
        .pipe(operation("Collections.insert")),
    channelJobsUsed: (accountId, month) =>
      usedIn({ accountId, month }).pipe(
        Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.used })),
        operation("Collections.channelJobsUsed")
      ),
    view: (accountId, kind, key) => view(accountId, kind, key).pipe(operation("Collections.view")),
    history: (accountId, kind, limit) =>
      history(accountId, kind, limit).pipe(operation("Collections.history")),
    topChannels: (accountId, limit) => topOf({ accountId, limit }).pipe(operation("Collections.topChannels"))
  })
})

/** `Collections` from the `SqlClient` in context. */
export const layer: Layer.Layer<Collections, never, SqlClient.SqlClient> = Layer.effect(Collections, make)
