/**
 * The `AccountChanges` port over the database's NOTIFY channel of account and key changes
 * (migration 0013 sends it from triggers, so every writer is heard: servers, workers, admin
 * commands, hand-written SQL).
 *
 * - PostgreSQL: one connection of its own LISTENs, opened when the version is first asked for. The
 *   version moves in the driver's notification callback, before anything that follows is handled.
 *   Until it listens, and as soon as the
 *   connection errs, ends or misses a heartbeat, the version is none (nothing is served from the
 *   cache: a change made meanwhile is never missed); it reconnects every `retryEvery`, and the
 *   version moves again when it listens anew.
 * - PGlite: one process holds the database, so listening never drops; PGlite calls back before the
 *   statement that notified returns.
 * - Any other `SqlClient`: never listening (no cache).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { AccountChanges, NoAccountChanges } from "@verbatim/core"
import { Effect, Layer } from "effect"
import { serviceOf, type Tracker } from "./account-changes-tracker.js"
import { accountChangesChannel } from "./migrations/0013_account_changes.js"
import type * as PgliteClient from "./pglite.js"
import { TypeId as PgliteTypeId } from "./pglite.js"

export { applicationName, heartbeatEvery, retryEvery } from "./account-changes-tracker.js"

const isPglite = (sql: SqlClient.SqlClient): sql is PgliteClient.PgliteClient => PgliteTypeId in sql

const listenOnPglite = (client: PgliteClient.PgliteClient) =>
  Effect.gen(function* () {
    const tracker: Tracker = { version: 0, live: true }
    yield* client.onNotify(accountChangesChannel, () => {
      tracker.version += 1
    })
    return serviceOf(tracker)
  })

/** `AccountChanges` from the `SqlClient` in context (whose schema holds migration 0013). */
export const layer: Layer.Layer<AccountChanges, SqlError, SqlClient.SqlClient> = Layer.unwrapScoped(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (isPglite(sql)) return Layer.succeed(AccountChanges, yield* listenOnPglite(sql))
    // Any other client may be node-postgres's: its listener comes with the driver, loaded only here.
    const postgres = yield* Effect.promise(() => import("./account-changes-postgres.js"))
    if (postgres.isPgClient(sql))
      return Layer.succeed(AccountChanges, yield* postgres.listenOnPostgres(sql.config))
    return NoAccountChanges
  })
)
