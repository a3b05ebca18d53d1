/**
 * The `WebhookDeliveries` port on SQL: the outbox (`webhook_deliveries`) and its log
 * (`webhook_attempts`). A delivery is taken for one attempt with a conditional `UPDATE` (pending,
 * due, lease free or expired), and its attempt is recorded together with its next state in one
 * statement, only while the lease is still held.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { DeliveryAttempt, DeliveryRecord, type DueDelivery, WebhookDeliveries } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { Timestamp } from "./columns.js"
import { operation } from "./failure.js"
import { leaseSql, leaseUntil } from "./lease.js"

const DeliveryRow = Schema.Struct({
  ...DeliveryRecord.fields,
  nextAttemptAt: Timestamp,
  createdAt: Timestamp,
  completedAt: Schema.NullOr(Timestamp)
})

const AttemptRow = Schema.Struct({ ...DeliveryAttempt.fields, at: Timestamp })

const DueRow = Schema.Struct({ id: Schema.UUID, accountId: Ids.AccountId, attempts: Schema.NonNegativeInt })

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<WebhookDeliveries["Type"], never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const lease = leaseSql(sql)
    const columns = sql.literal(`id, account_id, job_id, event, url, payload, status, attempts,
      next_attempt_at, last_status, last_error, created_at, completed_at`)

    const insertOne = SqlSchema.single({
      Request: Schema.Struct({
        id: Schema.UUID,
        accountId: Ids.AccountId,
        jobId: Schema.NullOr(Ids.JobId),
        event: Schema.String,
        url: Schema.String,
        payload: Schema.String,
        at: Timestamp
      }),
      Result: DeliveryRow,
      execute: (d) =>
        sql`INSERT INTO webhook_deliveries (id, account_id, job_id, event, url, payload, status, attempts,
            next_attempt_at, created_at)
          VALUES (${d.id}, ${d.accountId}, ${d.jobId}, ${d.event}, ${d.url}, ${d.payload}, 'pending', 0,
            ${d.at}, ${d.at})
          RETURNING ${columns}`
    })

    const claimOne = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.UUID, owner: Schema.String, now: Timestamp, until: Timestamp }),
      Result: DeliveryRow,
      execute: ({ id, owner, now, until }) =>
        sql`UPDATE webhook_deliveries SET ${lease.take(owner, until)}
          WHERE id = ${id} AND status = 'pending' AND next_attempt_at <= ${now} AND ${lease.free(now)}
          RETURNING ${columns}`
    })

    const recordOne = SqlSchema.findOne({
      Request: Schema.Struct({
        id: Schema.UUID,
        owner: Schema.String,
        attempt: Schema.Int,
        at: Timestamp,
        statusCode: Schema.NullOr(Schema.Int),
        error: Schema.NullOr(Schema.String),
        durationMs: Schema.NonNegativeInt,
        status: DeliveryRecord.fields.status,
        nextAttemptAt: Timestamp,
        completedAt: Schema.NullOr(Timestamp)
      }),
      Result: Schema.Struct({ id: Schema.UUID }),
      execute: (r) =>
        sql`WITH updated AS (
            UPDATE webhook_deliveries SET status = ${r.status}, attempts = ${r.attempt},
              next_attempt_at = ${r.nextAttemptAt}, last_status = ${r.statusCode}, last_error = ${r.error},
              completed_at = ${r.completedAt}, ${lease.letGo}
            WHERE id = ${r.id} AND ${lease.heldBy(r.owner)} AND status = 'pending' AND attempts = ${r.attempt - 1}
            RETURNING id
          ), logged AS (
            INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms)
            SELECT id, ${r.attempt}, ${r.at}, ${r.statusCode}, ${r.error}, ${r.durationMs} FROM updated
            RETURNING delivery_id
          )
          SELECT delivery_id AS id FROM logged`
    })

    const attemptsOf = SqlSchema.findAll({
      Request: Schema.UUID,
      Result: AttemptRow,
      execute: (id) =>
        sql`SELECT attempt, at, status_code, error, duration_ms FROM webhook_attempts
          WHERE delivery_id = ${id} ORDER BY attempt`
    })

    const ofJob = SqlSchema.findAll({
      Request: Ids.JobId,
      Result: DeliveryRow,
      execute: (jobId) =>
        sql`SELECT ${columns} FROM webhook_deliveries WHERE job_id = ${jobId} ORDER BY created_at, id`
    })

    const dueAt = SqlSchema.findAll({
      Request: Schema.Struct({ now: Timestamp, limit: Schema.Int }),
      Result: DueRow,
      execute: ({ now, limit }) =>
        sql`SELECT id, account_id, attempts FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= ${now} AND ${lease.free(now)}
          ORDER BY next_attempt_at LIMIT ${limit}`
    })

    return WebhookDeliveries.of({
      insert: (delivery) => insertOne(delivery).pipe(operation("WebhookDeliveries.insert")),
      claim: (id, owner, now, leaseMs) =>
        claimOne({ id, owner, now, until: leaseUntil(now, leaseMs) }).pipe(
          operation("WebhookDeliveries.claim")
        ),
      record: (id, owner, result) =>
        recordOne({
          id,
          owner,
          ...result.attempt,
          status: result.status,
          nextAttemptAt: result.nextAttemptAt,
          completedAt: result.status === "pending" ? null : result.attempt.at
        }).pipe(Effect.map(Option.isSome), operation("WebhookDeliveries.record")),
      attempts: (id) => attemptsOf(id).pipe(operation("WebhookDeliveries.attempts")),
      ofJob: (jobId) => ofJob(jobId).pipe(operation("WebhookDeliveries.ofJob")),
      due: (now, limit) =>
        dueAt({ now, limit }).pipe(
          Effect.map((rows): ReadonlyArray<DueDelivery> => rows),
          operation("WebhookDeliveries.due")
        )
    })
  }
)

/** `WebhookDeliveries` from the `SqlClient` in context. */
export const layer: Layer.Layer<WebhookDeliveries, never, SqlClient.SqlClient> = Layer.effect(
  WebhookDeliveries,
  make
)
