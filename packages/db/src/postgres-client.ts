/**
 * PostgreSQL through node-postgres and `@effect/sql-pg`: the pool with Verbatim's settings, the
 * `SqlClient` over it, and throw-away test schemas. Imported only by a process that opens a
 * PostgreSQL database (`postgresLayer` in `client.ts` loads it), so a process on PGlite never loads
 * node-postgres: loading it builds the runtime's `fetch` classes (node-postgres probes for
 * Cloudflare Workers with a `Response`), about 60 ms of a command's start.
 */

import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import { PgPool } from "./direct.js"
import {
  camelCaseNaming,
  defaultConnectTimeoutMs,
  defaultPool,
  defaultStatementTimeoutMs,
  describeTarget,
  makeTestSchemaName,
  type NamingOptions,
  type PoolOptions,
  queryTimeoutGraceMs,
  withSearchPath
} from "./postgres-options.js"

/**
 * The node-postgres pool: every connection gets `statement_timeout` from the settings (sent when it
 * opens), every query a client-side `query_timeout` a little longer (a hung server answers
 * nothing), opening a connection or waiting for a free one is bounded by the connect timeout, and
 * the first connection is tried at once so a wrong address fails the start.
 */
const makePool = (url: Redacted.Redacted, pool: PoolOptions) => {
  const connectTimeoutMs = pool.connectTimeoutMs ?? defaultConnectTimeoutMs
  const statementTimeoutMs = pool.statementTimeoutMs ?? defaultStatementTimeoutMs
  return Effect.acquireRelease(
    Effect.sync(() => {
      const created = new Pg.Pool({
        connectionString: Redacted.value(url),
        max: pool.maxConnections,
        min: 0,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: connectTimeoutMs,
        keepAlive: true,
        application_name: "verbatim",
        ...(statementTimeoutMs > 0
          ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + queryTimeoutGraceMs }
          : {})
      })
      // A pooled idle connection that dies (server restart) is dropped by the pool; nothing to do.
      created.on("error", () => {})
      return created
    }),
    (created) => Effect.promise(() => created.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  ).pipe(
    Effect.tap((created) =>
      Effect.tryPromise({
        try: () => created.query("SELECT 1"),
        catch: (cause) =>
          new SqlError({ cause, message: `cannot connect to PostgreSQL at ${describeTarget(url)}` })
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(connectTimeoutMs + 1_000),
          onTimeout: () =>
            new SqlError({
              cause: new Error("Connection timed out"),
              message: `cannot connect to PostgreSQL at ${describeTarget(url)}: no answer within ${connectTimeoutMs} ms`
            })
        })
      )
    )
  )
}

/**
 * PostgreSQL through node-postgres, with Verbatim's pool settings, timeouts and naming; the pool
 * itself too, for the hot statements' direct lane (`direct.ts`).
 */
export const layer = (
  url: Redacted.Redacted,
  pool: PoolOptions = defaultPool,
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient | PgPool, SqlError> =>
  Layer.unwrapScoped(
    Effect.map(makePool(url, pool), (created) =>
      Layer.merge(
        PgClient.layerFromPool({ acquire: Effect.succeed(created), applicationName: "verbatim", ...naming }),
        Layer.succeed(PgPool, created)
      )
    )
  )

/**
 * A fresh, empty PostgreSQL database for one test suite: a new schema `verbatim_test_<random>` that
 * every pooled connection uses as its only `search_path`, dropped (with all it holds) when the layer
 * is released.
 */
export const testLayer = (
  url: Redacted.Redacted,
  naming: NamingOptions,
  pool: PoolOptions,
  reachAt: Redacted.Redacted
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const schema = yield* makeTestSchemaName
      const admin = yield* PgClient.make({ url, maxConnections: 1, applicationName: "verbatim-test-admin" })
      yield* Effect.acquireRelease(admin`CREATE SCHEMA ${admin(schema)}`, () =>
        admin`DROP SCHEMA IF EXISTS ${admin(schema)} CASCADE`.pipe(
          Effect.catchAll((error) => Effect.logWarning(`Could not drop test schema ${schema}`, error))
        )
      )
      return layer(withSearchPath(reachAt, schema), pool, naming)
    }).pipe(Effect.provide(Reactivity.layer))
  )
