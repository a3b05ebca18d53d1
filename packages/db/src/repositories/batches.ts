/**
 * The `Batches` port on SQL. A batch and its items are written in one transaction (the items in one
 * statement, from a JSON array); items are taken with a conditional `UPDATE` (not done, lease free or
 * expired) and marked done only by their lease's owner; a batch moves from `processing` once. The
 * view reads the batch, its items by position and their jobs in three statements.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import {
  Account,
  Batches,
  type BatchItemView,
  BatchRecord,
  DeliveryStatus,
  type ItemClaim,
  type NewBatchItem
} from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { Int8, Timestamp } from "./columns.js"
import { operation } from "./failure.js"
import { JobRow } from "./jobs.js"
import { leaseSql, leaseUntil } from "./lease.js"
import { RecordRow, recordColumnList } from "./transcript-rows.js"

/** A `batches` row: the record, with its dates as the driver returns them. */
const BatchRow = Schema.Struct({
  ...BatchRecord.fields,
  fetchWindowStartedAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  completedAt: Schema.NullOr(Timestamp)
})

const ItemRow = Schema.Struct({
  position: Schema.NonNegativeInt,
  requestId: Ids.RequestId,
  videoId: Schema.String,
  jobId: Ids.JobId,
  error: Schema.NullOr(Schema.String),
  done: Schema.Boolean
})

/** A claimed item (its columns prefixed `item_`) with its batch. */
const ClaimRow = Schema.Struct({
  ...BatchRow.fields,
  itemPosition: ItemRow.fields.position,
  itemRequestId: ItemRow.fields.requestId,
  itemVideoId: ItemRow.fields.videoId,
  itemJobId: ItemRow.fields.jobId,
  itemError: ItemRow.fields.error,
  itemDone: ItemRow.fields.done,
  takenBefore: Schema.Boolean,
  // The batch's account, read by the same statement (none when it was deleted).
  accountName: Schema.NullOr(Account.fields.name),
  accountPlan: Schema.NullOr(Account.fields.plan),
  accountDefaultMode: Schema.NullOr(Account.fields.defaultMode),
  accountOnboardingCompleted: Schema.NullOr(Account.fields.onboardingCompleted),
  accountCreatedAt: Schema.NullOr(Timestamp),
  // Its available balance as the claim read it.
  accountAvailable: Schema.NullOr(Int8),
  // Whether the account had a transcript of the item's video as the claim read it.
  ownsVideo: Schema.Boolean
})

const BatchKey = Schema.Struct({ batchId: Ids.BatchId, position: Schema.NonNegativeInt })

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Batches["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const lease = leaseSql(sql)
  const columns = sql.literal(`id, account_id, request_id, status, request, total, webhook_url,
    webhook_delivery_id, fetches_after_finish, fetch_window_started_at, created_at, started_at, completed_at`)
  const jobColumns = sql.literal(`id, account_id, request_id, kind, video_id, video_title, language, source,
    mode, status, error, credits_used, transcript_id, payload, webhook_url, attempts, lease_owner,
    lease_expires_at, next_run_at, created_at, started_at, completed_at`)
  const transcriptColumns = sql.literal(recordColumnList)

  const insertBatch = SqlSchema.void({
    Request: BatchRow,
    execute: (b) =>
      sql`INSERT INTO batches (id, account_id, request_id, status, request, total, webhook_url,
          webhook_delivery_id, fetches_after_finish, fetch_window_started_at, created_at, started_at, completed_at)
        VALUES (${b.id}, ${b.accountId}, ${b.requestId}, ${b.status}, ${JSON.stringify(b.request)}::jsonb,
          ${b.total}, ${b.webhookUrl}, ${b.webhookDeliveryId}, ${b.fetchesAfterFinish},
          ${b.fetchWindowStartedAt}, ${b.createdAt}, ${b.startedAt}, ${b.completedAt})`
  })

  /**
   * The items in one statement from compact JSON: the video ids in position order, the errors by
   * position, and the ids only when given (else `gen_random_uuid()`), so 3,000 items send about 45 kB
   * instead of an object each.
   */
  const insertItems = (batchId: Ids.BatchId, items: ReadonlyArray<NewBatchItem>) => {
    const errors: Record<string, string> = {}
    const ids: Record<string, readonly [string | null, string | null]> = {}
    for (const [position, item] of items.entries()) {
      if (item.error !== null) errors[position] = item.error
      if (item.requestId !== undefined || item.jobId !== undefined) {
        ids[position] = [item.requestId ?? null, item.jobId ?? null]
      }
    }
    return sql`INSERT INTO batch_items (batch_id, position, request_id, video_id, job_id, error, done)
      SELECT ${batchId}, v.ord - 1, coalesce((i.pair->>0)::uuid, gen_random_uuid()), v.video_id,
        coalesce((i.pair->>1)::uuid, gen_random_uuid()), e.error, e.error IS NOT NULL
      FROM jsonb_array_elements_text(${JSON.stringify(items.map((item) => item.videoId))}::jsonb)
          WITH ORDINALITY AS v(video_id, ord)
        LEFT JOIN jsonb_each_text(${JSON.stringify(errors)}::jsonb) AS e(position, error)
          ON e.position::integer = v.ord - 1
        LEFT JOIN jsonb_each(${JSON.stringify(ids)}::jsonb) AS i(position, pair)
          ON i.position::integer = v.ord - 1`
  }

  const findBatch = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, id: Ids.BatchId }),
    Result: BatchRow,
    execute: ({ accountId, id }) =>
      sql`SELECT ${columns} FROM batches WHERE account_id = ${accountId} AND id = ${id}`
  })

  const itemsOf = SqlSchema.findAll({
    Request: Ids.BatchId,
    Result: ItemRow,
    execute: (id) =>
      sql`SELECT position, request_id, video_id, job_id, error, done FROM batch_items
        WHERE batch_id = ${id} ORDER BY position`
  })

  const jobsOf = SqlSchema.findAll({
    Request: Ids.BatchId,
    Result: JobRow,
    execute: (id) =>
      sql`SELECT ${jobColumns} FROM jobs WHERE id IN (SELECT job_id FROM batch_items WHERE batch_id = ${id})`
  })

  const deliveryOf = SqlSchema.findOne({
    Request: Schema.UUID,
    Result: Schema.Struct({ status: DeliveryStatus, attempts: Schema.NonNegativeInt }),
    execute: (id) => sql`SELECT status, attempts FROM webhook_deliveries WHERE id = ${id}`
  })

  /**
   * An item of the same account and video, not done, that comes earlier (older batch, or the same
   * batch at a lower position): only the first such item of a video may run at a time.
   */
  const earlierSibling = (batchId: string, position: number) =>
    sql`SELECT 1 FROM batch_items o JOIN batches ob ON ob.id = o.batch_id,
          batches me
        WHERE me.id = ${batchId} AND ob.account_id = me.account_id AND ob.status = 'processing'
          AND o.video_id = batch_items.video_id AND NOT o.done
          AND (ob.created_at, o.batch_id, o.position) < (me.created_at, me.id, ${position})`

  /**
   * Takes the item and answers it with its batch, in one statement; the batch row is written only
   * by the first claim (`started_at`), so concurrent claims of one batch never queue on its row.
   * `taken_before` reads the lease as this statement's snapshot saw it: a claim that succeeds over
   * a lease taken since would have failed its own conditions.
   */
  const claimOne = SqlSchema.findOne({
    Request: Schema.Struct({ ...BatchKey.fields, owner: Schema.String, now: Timestamp, until: Timestamp }),
    Result: ClaimRow,
    execute: ({ batchId, position, owner, now, until }) =>
      sql`WITH before AS (
          SELECT lease_expires_at FROM batch_items WHERE batch_id = ${batchId} AND position = ${position}
        ), claimed AS (
          UPDATE batch_items SET ${lease.take(owner, until)}
          WHERE batch_id = ${batchId} AND position = ${position} AND NOT done AND ${lease.free(now)}
            AND NOT EXISTS (${earlierSibling(batchId, position)})
          RETURNING position, request_id, video_id, job_id, error, done
        ), started AS (
          UPDATE batches SET started_at = ${now}
          WHERE id = ${batchId} AND started_at IS NULL AND EXISTS (SELECT 1 FROM claimed)
          RETURNING id
        )
        SELECT c.position AS item_position, c.request_id AS item_request_id, c.video_id AS item_video_id,
          c.job_id AS item_job_id, c.error AS item_error, c.done AS item_done,
          EXISTS (SELECT 1 FROM before WHERE lease_expires_at IS NOT NULL) AS taken_before,
          b.id, b.account_id, b.request_id, b.status, b.request, b.total, b.webhook_url,
          b.webhook_delivery_id, b.fetches_after_finish, b.fetch_window_started_at, b.created_at,
          coalesce(b.started_at, ${now}) AS started_at, b.completed_at,
          a.name AS account_name, a.plan AS account_plan, a.default_mode AS account_default_mode,
          a.onboarding_completed AS account_onboarding_completed, a.created_at AS account_created_at,
          a.credits - a.held AS account_available,
          EXISTS (SELECT 1 FROM transcripts t WHERE t.account_id = b.account_id AND t.video_id = c.video_id)
            AS owns_video
        FROM claimed c JOIN batches b ON b.id = ${batchId} LEFT JOIN accounts a ON a.id = b.account_id`
  })

  /**
   * Whether an item not taken is free to take but waits for an earlier item of the same video, with
   * its batch's size (none when the batch is gone).
   */
  const waitingOne = SqlSchema.findOne({
    Request: Schema.Struct({ ...BatchKey.fields, now: Timestamp }),
    Result: Schema.Struct({ waiting: Schema.Boolean, total: Schema.NonNegativeInt }),
    execute: ({ batchId, position, now }) =>
      sql`SELECT EXISTS (SELECT 1 FROM batch_items
          WHERE batch_id = ${batchId} AND position = ${position} AND NOT done AND ${lease.free(now)}
            AND EXISTS (${earlierSibling(batchId, position)})) AS waiting, b.total
        FROM batches b WHERE b.id = ${batchId}`
  })

  const extendOne = SqlSchema.findOne({
    Request: Schema.Struct({ ...BatchKey.fields, owner: Schema.String, until: Timestamp }),
    Result: Schema.Struct({ position: Schema.NonNegativeInt }),
    execute: ({ batchId, position, owner, until }) =>
      sql`UPDATE batch_items SET ${lease.extend(until)}
        WHERE batch_id = ${batchId} AND position = ${position} AND ${lease.heldBy(owner)} AND NOT done
        RETURNING position`
  })

  /** The done mark and the check whether it was the batch's last, in one call (migration 0024). */
  const doneOne = SqlSchema.single({
    Request: Schema.Struct({ ...BatchKey.fields, owner: Schema.String }),
    Result: Schema.Struct({ done: Schema.Literal("last", "marked", "not held") }),
    execute: ({ batchId, position, owner }) =>
      sql`SELECT mark_batch_item_done(${batchId}, ${position}, ${owner}) AS done`
  })

  /** An item's error, refused before its job was recorded, while its lease is the owner's. */
  const failOne = SqlSchema.findOne({
    Request: Schema.Struct({ ...BatchKey.fields, owner: Schema.String, error: Schema.String }),
    Result: Schema.Struct({ position: Schema.NonNegativeInt }),
    execute: ({ batchId, position, owner, error }) =>
      sql`UPDATE batch_items SET error = ${error}
        WHERE batch_id = ${batchId} AND position = ${position} AND ${lease.heldBy(owner)} AND NOT done
        RETURNING position`
  })

  /**
   * Expired leases, and items never taken inside their batch's offer window (see the port), ranked
   * by position within their batch: the n-th item of every batch before the (n+1)-th of any.
   */
  const pendingAt = SqlSchema.findAll({
    Request: Schema.Struct({
      now: Timestamp,
      limit: Schema.Int,
      window: Schema.Int,
      acceptedBefore: Timestamp
    }),
    Result: Schema.Struct({
      batchId: Ids.BatchId,
      position: Schema.NonNegativeInt,
      accountId: Ids.AccountId,
      leaseExpiresAt: Schema.NullOr(Timestamp)
    }),
    execute: ({ now, limit, window, acceptedBefore }) =>
      sql`SELECT batch_id, position, account_id, lease_expires_at FROM (
          SELECT i.batch_id, i.position, b.account_id, i.lease_expires_at, b.created_at,
            row_number() OVER (PARTITION BY i.batch_id ORDER BY i.position) AS turn
          FROM batch_items i JOIN batches b ON b.id = i.batch_id
            LEFT JOIN batch_items p ON p.batch_id = i.batch_id AND p.position = i.position - ${window}
          WHERE NOT i.done AND b.status = 'processing'
            AND (i.lease_expires_at <= ${now}
              OR (i.lease_expires_at IS NULL AND b.created_at <= ${acceptedBefore}
                AND (i.position < ${window} OR p.done OR p.lease_expires_at IS NOT NULL)))
        ) t ORDER BY turn, created_at, batch_id LIMIT ${limit}`
  })

  const undoneOne = SqlSchema.findOne({
    Request: Ids.BatchId,
    Result: Schema.Struct({ position: Schema.NonNegativeInt }),
    execute: (id) => sql`SELECT position FROM batch_items WHERE batch_id = ${id} AND NOT done LIMIT 1`
  })

  const finishableNow = SqlSchema.findAll({
    Request: Schema.Int,
    Result: Schema.Struct({ id: Ids.BatchId, accountId: Ids.AccountId }),
    execute: (limit) =>
      sql`SELECT b.id, b.account_id FROM batches b
        WHERE b.status = 'processing' AND NOT EXISTS (
          SELECT 1 FROM batch_items i LEFT JOIN jobs j ON j.id = i.job_id
          WHERE i.batch_id = b.id
            AND (NOT i.done OR (i.error IS NULL AND (j.id IS NULL OR j.status = 'processing'))))
        ORDER BY b.created_at LIMIT ${limit}`
  })

  const finishOne = SqlSchema.findOne({
    Request: Schema.Struct({
      id: Ids.BatchId,
      status: Schema.Literal("completed", "partial", "failed"),
      at: Timestamp,
      deliveryId: Schema.NullOr(Schema.UUID)
    }),
    Result: Schema.Struct({ id: Ids.BatchId }),
    execute: ({ id, status, at, deliveryId }) =>
      sql`UPDATE batches SET status = ${status}, completed_at = ${at}, started_at = coalesce(started_at, ${at}),
          webhook_delivery_id = ${deliveryId}
        WHERE id = ${id} AND status = 'processing' RETURNING id`
  })

  const fetchOne = SqlSchema.single({
    Request: Schema.Struct({ id: Ids.BatchId, now: Timestamp, windowStart: Timestamp }),
    Result: Schema.Struct({ fetchesAfterFinish: Schema.NonNegativeInt }),
    execute: ({ id, now, windowStart }) =>
      sql`UPDATE batches SET
          fetches_after_finish = CASE WHEN fetch_window_started_at IS NULL OR fetch_window_started_at <= ${windowStart}
            THEN 1 ELSE fetches_after_finish + 1 END,
          fetch_window_started_at = CASE WHEN fetch_window_started_at IS NULL OR fetch_window_started_at <= ${windowStart}
            THEN ${now} ELSE fetch_window_started_at END
        WHERE id = ${id} RETURNING fetches_after_finish`
  })

  const ownedOf = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Ids.AccountId, videos: Schema.String }),
    Result: Schema.Struct({ videoId: Schema.String }),
    execute: ({ accountId, videos }) =>
      sql`SELECT DISTINCT video_id FROM transcripts
        WHERE account_id = ${accountId} AND video_id IN (SELECT jsonb_array_elements_text(${videos}::jsonb))`
  })

  const transcriptsById = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Ids.AccountId, ids: Schema.String }),
    Result: RecordRow,
    execute: ({ accountId, ids }) =>
      sql`SELECT ${transcriptColumns} FROM transcripts
        WHERE account_id = ${accountId} AND id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::uuid)`
  })

  return Batches.of({
    insert: (batch, items) =>
      sql
        .withTransaction(Effect.zipRight(insertBatch(batch), insertItems(batch.id, items)))
        .pipe(Effect.asVoid, operation("Batches.insert")),
    view: (accountId, id) =>
      Effect.gen(function* () {
        const found = yield* findBatch({ accountId, id })
        if (Option.isNone(found)) return Option.none()
        const batch = found.value
        const items = yield* itemsOf(id)
        const jobs = new Map((yield* jobsOf(id)).map((job) => [job.id, job]))
        const delivery =
          batch.webhookDeliveryId === null ? Option.none() : yield* deliveryOf(batch.webhookDeliveryId)
        return Option.some({
          batch,
          items: items.map((item): BatchItemView => ({ ...item, job: jobs.get(item.jobId) ?? null })),
          delivery: Option.getOrNull(delivery)
        })
      }).pipe(operation("Batches.view")),
    claimItem: ({ batchId, position, owner, now, leaseMs }) =>
      Effect.gen(function* () {
        const claimed = yield* claimOne({
          batchId,
          position,
          owner,
          now,
          until: leaseUntil(now, leaseMs)
        })
        if (Option.isSome(claimed)) {
          const {
            itemPosition,
            itemRequestId,
            itemVideoId,
            itemJobId,
            itemError,
            itemDone,
            takenBefore,
            accountName,
            accountPlan,
            accountDefaultMode,
            accountOnboardingCompleted,
            accountCreatedAt,
            accountAvailable,
            ownsVideo,
            ...batch
          } = claimed.value
          const account: Option.Option<Account> =
            accountName === null ||
            accountPlan === null ||
            accountDefaultMode === null ||
            accountOnboardingCompleted === null ||
            accountCreatedAt === null
              ? Option.none()
              : Option.some({
                  id: batch.accountId,
                  name: accountName,
                  plan: accountPlan,
                  defaultMode: accountDefaultMode,
                  onboardingCompleted: accountOnboardingCompleted,
                  createdAt: accountCreatedAt
                })
          return {
            _tag: "Claimed",
            batch,
            account,
            available: accountAvailable ?? 0,
            ownsVideo,
            item: {
              position: itemPosition,
              requestId: itemRequestId,
              videoId: itemVideoId,
              jobId: itemJobId,
              error: itemError,
              done: itemDone
            },
            takenBefore
          } satisfies ItemClaim
        }
        const found = yield* waitingOne({ batchId, position, now })
        return Option.match(found, {
          onNone: (): ItemClaim => ({ _tag: "Taken", total: 0 }),
          onSome: ({ waiting, total }): ItemClaim =>
            waiting ? { _tag: "Waiting" } : { _tag: "Taken", total }
        })
      }).pipe(operation("Batches.claimItem")),
    extendItemLease: ({ batchId, position, owner, now, leaseMs }) =>
      extendOne({ batchId, position, owner, until: leaseUntil(now, leaseMs) }).pipe(
        Effect.map(Option.isSome),
        operation("Batches.extendItemLease")
      ),
    itemDone: (batchId, position, owner) =>
      doneOne({ batchId, position, owner }).pipe(
        Effect.map((row) => row.done),
        operation("Batches.itemDone")
      ),
    itemFailed: (batchId, position, owner, error) =>
      failOne({ batchId, position, owner, error }).pipe(
        Effect.map(Option.isSome),
        operation("Batches.itemFailed")
      ),
    pending: (now, limit, { window, acceptedBefore }) =>
      pendingAt({ now, limit, window, acceptedBefore }).pipe(operation("Batches.pending")),
    hasUndone: (id) => undoneOne(id).pipe(Effect.map(Option.isSome), operation("Batches.hasUndone")),
    finishable: (limit) => finishableNow(limit).pipe(operation("Batches.finishable")),
    finish: (id, status, at, deliveryId) =>
      finishOne({ id, status, at, deliveryId }).pipe(Effect.map(Option.isSome), operation("Batches.finish")),
    countFetch: (id, now) =>
      fetchOne({ id, now, windowStart: DateTime.subtract(now, { hours: 24 }) }).pipe(
        Effect.map((row) => row.fetchesAfterFinish),
        operation("Batches.countFetch")
      ),
    ownedVideos: (accountId, videoIds) =>
      (videoIds.length === 0
        ? Effect.succeed([])
        : ownedOf({ accountId, videos: JSON.stringify(videoIds) })
      ).pipe(
        Effect.map((rows) => new Set(rows.map((row) => row.videoId))),
        operation("Batches.ownedVideos")
      ),
    transcriptsOf: (accountId, ids) =>
      (ids.length === 0 ? Effect.succeed([]) : transcriptsById({ accountId, ids: JSON.stringify(ids) })).pipe(
        Effect.map((rows) => new Map(rows.map((row) => [row.id as string, row]))),
        operation("Batches.transcriptsOf")
      )
  })
})

/** `Batches` from the `SqlClient` in context. */
export const layer: Layer.Layer<Batches, never, SqlClient.SqlClient> = Layer.effect(Batches, make)
