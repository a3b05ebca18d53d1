/**
 * The `ThemesStore` port on SQL. An unlock is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE` on
 * the account and transcript: it creates the row, or moves a refunded one, and returns nothing when
 * the row was processing or completed, so of concurrent unlocks exactly one wins. Every other move
 * is a conditional `UPDATE` on the status and the lease owner. The detection is a `jsonb` column,
 * decoded with core's `ThemesDetection`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { type ThemesClaim, ThemesDetection, ThemesId, ThemesRecord, ThemesStore } from "@verbatim/core"
import { Effect, Layer, Option, Schema } from "effect"
import { Timestamp } from "./columns.js"
import { operation } from "./failure.js"
import { leaseSql, leaseUntil } from "./lease.js"

/** A `themes` row: the record, its dates as the driver returns them. */
const ThemesRow = Schema.Struct({
  ...ThemesRecord.fields,
  leaseExpiresAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: Schema.NullOr(Timestamp)
})

const UnlockRow = Schema.Struct({
  id: ThemesId,
  accountId: ThemesRecord.fields.accountId,
  transcriptId: ThemesRecord.fields.transcriptId,
  videoId: Schema.String,
  language: ThemesRecord.fields.language,
  status: Schema.Literal("processing", "completed"),
  result: Schema.NullOr(Schema.parseJson(ThemesDetection)),
  creditsCharged: ThemesRecord.fields.creditsCharged,
  at: Timestamp
})

const ClaimRow = Schema.Struct({
  id: ThemesId,
  owner: Schema.String,
  now: Timestamp,
  until: Timestamp
})

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<ThemesStore["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const lease = leaseSql(sql)
  const columns = sql.literal(`id, account_id, transcript_id, video_id, language, status, unlocks,
    credits_charged, result, error, attempts, lease_owner, lease_expires_at, created_at, updated_at,
    completed_at`)

  const findOne = SqlSchema.findOne({
    Request: Schema.Struct({
      accountId: ThemesRecord.fields.accountId,
      transcriptId: ThemesRecord.fields.transcriptId
    }),
    Result: ThemesRow,
    execute: ({ accountId, transcriptId }) =>
      sql`SELECT ${columns} FROM themes WHERE account_id = ${accountId} AND transcript_id = ${transcriptId}`
  })

  const getOne = SqlSchema.findOne({
    Request: ThemesId,
    Result: ThemesRow,
    execute: (id) => sql`SELECT ${columns} FROM themes WHERE id = ${id}`
  })

  const unlockOne = SqlSchema.findOne({
    Request: UnlockRow,
    Result: ThemesRow,
    execute: (u) => {
      const completedAt = u.status === "completed" ? u.at : null
      return sql`INSERT INTO themes (id, account_id, transcript_id, video_id, language, status, unlocks,
          credits_charged, result, error, attempts, lease_owner, lease_expires_at, created_at, updated_at,
          completed_at)
        VALUES (${u.id}, ${u.accountId}, ${u.transcriptId}, ${u.videoId}, ${u.language}, ${u.status}, 1,
          ${u.creditsCharged}, ${u.result}::jsonb, NULL, 0, NULL, NULL, ${u.at}, ${u.at}, ${completedAt})
        ON CONFLICT (account_id, transcript_id) DO UPDATE SET
          status = EXCLUDED.status, unlocks = themes.unlocks + 1, credits_charged = EXCLUDED.credits_charged,
          result = EXCLUDED.result, error = NULL, attempts = 0, ${lease.letGo},
          updated_at = EXCLUDED.updated_at, completed_at = EXCLUDED.completed_at
        WHERE themes.status = 'refunded'
        RETURNING ${columns}`
    }
  })

  const claimOne = SqlSchema.findOne({
    Request: ClaimRow,
    Result: ThemesRow,
    execute: ({ id, owner, now, until }) =>
      sql`UPDATE themes SET ${lease.take(owner, until)}, attempts = attempts + 1, updated_at = ${now}
        WHERE id = ${id} AND status = 'processing' AND ${lease.free(now)}
        RETURNING ${columns}`
  })

  const extendOne = SqlSchema.findOne({
    Request: ClaimRow,
    Result: Schema.Struct({ id: ThemesId }),
    execute: ({ id, owner, until }) =>
      sql`UPDATE themes SET ${lease.extend(until)}
        WHERE id = ${id} AND status = 'processing' AND ${lease.heldBy(owner)} RETURNING id`
  })

  const completeOne = SqlSchema.findOne({
    Request: Schema.Struct({
      id: ThemesId,
      owner: Schema.String,
      result: Schema.parseJson(ThemesDetection),
      at: Timestamp
    }),
    Result: ThemesRow,
    execute: ({ id, owner, result, at }) =>
      sql`UPDATE themes SET status = 'completed', result = ${result}::jsonb, error = NULL, ${lease.letGo},
          updated_at = ${at}, completed_at = ${at}
        WHERE id = ${id} AND status = 'processing' AND ${lease.heldBy(owner)}
        RETURNING ${columns}`
  })

  const refundOne = SqlSchema.findOne({
    Request: Schema.Struct({ id: ThemesId, owner: Schema.String, error: Schema.String, at: Timestamp }),
    Result: ThemesRow,
    execute: ({ id, owner, error, at }) =>
      sql`UPDATE themes SET status = 'refunded', error = ${error}, ${lease.letGo}, updated_at = ${at}
        WHERE id = ${id} AND status = 'processing' AND ${lease.heldBy(owner)}
        RETURNING ${columns}`
  })

  const releaseOne = SqlSchema.void({
    Request: Schema.Struct({ id: ThemesId, owner: Schema.String }),
    execute: ({ id, owner }) =>
      sql`UPDATE themes SET ${lease.letGo} WHERE id = ${id} AND status = 'processing' AND ${lease.heldBy(owner)}`
  })

  const runnableAt = SqlSchema.findAll({
    Request: Schema.Struct({ now: Timestamp, limit: Schema.Int }),
    Result: ThemesRow,
    execute: ({ now, limit }) =>
      sql`SELECT ${columns} FROM themes
        WHERE status = 'processing' AND ${lease.free(now)}
        ORDER BY updated_at LIMIT ${limit}`
  })

  const leaseOf = (claim: ThemesClaim) => ({
    id: claim.id,
    owner: claim.owner,
    now: claim.now,
    until: leaseUntil(claim.now, claim.leaseMs)
  })

  return ThemesStore.of({
    find: (accountId, transcriptId) => findOne({ accountId, transcriptId }).pipe(operation("Themes.find")),
    get: (id) => getOne(id).pipe(operation("Themes.get")),
    unlock: (u) =>
      unlockOne({
        id: u.id,
        accountId: u.accountId,
        transcriptId: u.transcriptId,
        videoId: u.videoId,
        language: u.language,
        status: u.status,
        result: u.result,
        creditsCharged: u.creditsCharged,
        at: u.at
      }).pipe(operation("Themes.unlock")),
    claim: (claim) => claimOne(leaseOf(claim)).pipe(operation("Themes.claim")),
    extendLease: (claim) =>
      extendOne(leaseOf(claim)).pipe(Effect.map(Option.isSome), operation("Themes.extendLease")),
    complete: (id, owner, result, at) =>
      completeOne({ id, owner, result, at }).pipe(operation("Themes.complete")),
    refund: (id, owner, error, at) => refundOne({ id, owner, error, at }).pipe(operation("Themes.refund")),
    release: (id, owner) => releaseOne({ id, owner }).pipe(operation("Themes.release")),
    runnable: (now, limit) => runnableAt({ now, limit }).pipe(operation("Themes.runnable"))
  })
})

/** `ThemesStore` from the `SqlClient` in context. */
export const layer: Layer.Layer<ThemesStore, never, SqlClient.SqlClient> = Layer.effect(ThemesStore, make)
