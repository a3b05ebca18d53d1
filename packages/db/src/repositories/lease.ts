/**
 * The one lease mechanism of background work, as SQL: jobs, webhook deliveries, batch items and
 * theme detections each carry `lease_owner` and `lease_expires_at`, and every statement that
 * claims, extends, finishes or hands back one of them says it with these fragments, so a lease means
 * the same on every table:
 *
 * - free: never taken, handed back, or expired (`lease_expires_at <= now`): an expired lease is
 *   taken over by the next claim, no matter who held it;
 * - claimed: `lease_owner` and `lease_expires_at` set in the same conditional `UPDATE` that checks
 *   it is free, so the database decides every race (the statements claiming several rows lock them
 *   with `FOR NO KEY UPDATE SKIP LOCKED` first, in id order);
 * - extended (the heartbeat) and finished only while `lease_owner` is the caller;
 * - let go: both columns cleared, whether the work finished or is handed back.
 *
 * What makes a row claimable besides a free lease (a status, a time to run, an earlier item of the
 * same video) stays with each table. `test/repositories/leases.test.ts` is the shared contract.
 */
import type { Statement } from "@effect/sql"
import type * as SqlClient from "@effect/sql/SqlClient"
import { DateTime } from "effect"

/** When a lease taken or extended at `now` for `leaseMs` expires. */
export const leaseUntil = (now: DateTime.Utc, leaseMs: number): DateTime.Utc =>
  DateTime.add(now, { millis: leaseMs })

/** The lease fragments over a client; `Date`s and `DateTime`s are bound as parameters. */
export const leaseSql = (sql: SqlClient.SqlClient) => ({
  /** The row's lease is free at `now`: never taken, let go, or expired. */
  free: (now: unknown): Statement.Fragment => sql`(lease_expires_at IS NULL OR lease_expires_at <= ${now})`,
  /** `SET` items that give the lease to `owner` until `until`. */
  take: (owner: string, until: unknown): Statement.Fragment =>
    sql`lease_owner = ${owner}, lease_expires_at = ${until}`,
  /** A `SET` item that extends the lease held to `until` (the heartbeat; with `heldBy`). */
  extend: (until: unknown): Statement.Fragment => sql`lease_expires_at = ${until}`,
  /** The row's lease is held by `owner` (expired or not: it is theirs until another claim). */
  heldBy: (owner: string): Statement.Fragment => sql`lease_owner = ${owner}`,
  /** `SET` items that let the lease go (the work finished or was handed back). */
  letGo: sql`lease_owner = NULL, lease_expires_at = NULL`
})
