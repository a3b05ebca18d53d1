/**
 * The database a Verbatim process talks to, as an `@effect/sql` `SqlClient`: PostgreSQL through
 * `@effect/sql-pg` when `DATABASE_URL` is set, otherwise PGlite persisted under
 * `${VERBATIM_DATA_DIR}/pg`. Both clients use the same naming rules, so repositories see the same rows.
 * Also builds fresh isolated databases for tests (a throw-away schema, or an in-memory PGlite).
 */

import { randomBytes } from "node:crypto"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Config, type ConfigError, Effect, Layer, Option, Redacted, String as Str } from "effect"
import * as PgliteClient from "./pglite-client.js"
import { pgliteTemplate } from "./pglite-template.js"

/** How names map between TypeScript and SQL. */
export interface NamingOptions {
  readonly transformQueryNames?: ((name: string) => string) | undefined
  readonly transformResultNames?: ((name: string) => string) | undefined
  readonly transformJson?: boolean | undefined
}

/**
 * The project's naming: camelCase fields in TypeScript, snake_case columns in SQL. JSON values are
 * stored and returned exactly as given (`transformJson: false`): their keys are never renamed.
 */
export const camelCaseNaming: NamingOptions = {
  transformQueryNames: Str.camelToSnake,
  transformResultNames: Str.snakeToCamel,
  transformJson: false
}

/** Pool settings for PostgreSQL. */
export interface PoolOptions {
  readonly maxConnections: number
}

export interface DatabaseSettings {
  /** PostgreSQL connection string; `None` selects the embedded PGlite. */
  readonly url: Option.Option<Redacted.Redacted>
  /** Root of Verbatim's local data; PGlite lives in its `pg` folder. */
  readonly dataDir: string
  readonly pool: PoolOptions
}

/** `DATABASE_URL` (optional, secret; empty counts as unset), `VERBATIM_DATA_DIR`, `DATABASE_POOL_MAX`. */
export const DatabaseConfig: Config.Config<DatabaseSettings> = Config.all({
  url: Config.option(Config.redacted("DATABASE_URL")).pipe(
    Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))
  ),
  dataDir: Config.string("VERBATIM_DATA_DIR").pipe(Config.withDefault("./.data")),
  pool: Config.all({
    maxConnections: Config.integer("DATABASE_POOL_MAX").pipe(
      Config.validate({ message: "DATABASE_POOL_MAX must be at least 1", validation: (n) => n >= 1 }),
      Config.withDefault(10)
    )
  })
})

const defaultPool: PoolOptions = { maxConnections: 10 }

/** PostgreSQL through node-postgres, with Verbatim's pool settings and naming. */
export const postgresLayer = (
  url: Redacted.Redacted,
  pool: PoolOptions = defaultPool,
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  PgClient.layer({
    url,
    maxConnections: pool.maxConnections,
    minConnections: 0,
    idleTimeout: "30 seconds",
    connectTimeout: "10 seconds",
    applicationName: "verbatim",
    ...naming
  })

/** PGlite, in memory when `dataDir` is undefined, else persisted in that folder. */
export const pgliteLayer = (
  dataDir: string | undefined,
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient, SqlError> => PgliteClient.layer({ dataDir, ...naming })

/** The database these settings select. */
export const databaseLayer = (
  settings: DatabaseSettings,
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Option.match(settings.url, {
    onNone: () => pgliteLayer(join(settings.dataDir, "pg"), naming),
    onSome: (url) => postgresLayer(url, settings.pool, naming)
  })

/** The process's database, chosen from configuration. */
export const DatabaseLive: Layer.Layer<SqlClient.SqlClient, ConfigError.ConfigError | SqlError> =
  Layer.unwrapEffect(Effect.map(DatabaseConfig, (settings) => databaseLayer(settings)))

/** Adds `-c search_path=<schema>` to the connection's startup options, keeping any given ones. */
export const withSearchPath = (url: Redacted.Redacted, schema: string): Redacted.Redacted => {
  const parsed = new URL(Redacted.value(url))
  const options = parsed.searchParams.get("options")
  const searchPath = `-c search_path=${schema}`
  parsed.searchParams.set("options", options === null ? searchPath : `${options} ${searchPath}`)
  return Redacted.make(parsed.toString())
}

/** A fresh schema name for one test database. */
export const makeTestSchemaName: Effect.Effect<string> = Effect.sync(
  () => `verbatim_test_${randomBytes(6).toString("hex")}`
)

/**
 * A fresh, empty PostgreSQL database for one test suite: a new schema `verbatim_test_<random>` that
 * every pooled connection uses as its only `search_path`, dropped (with all it holds) when the layer
 * is released.
 */
export const postgresTestLayer = (
  url: Redacted.Redacted,
  naming: NamingOptions = camelCaseNaming
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
      return postgresLayer(withSearchPath(url, schema), { maxConnections: 10 }, naming)
    }).pipe(Effect.provide(Reactivity.layer))
  )

/** A fresh in-memory PGlite database, started from the shared template (see `pglite-template.ts`). */
export const pgliteTestLayer = (
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(pgliteTemplate, (loadDataDir) =>
      PgliteClient.layer({ dataDir: undefined, loadDataDir, ...naming })
    )
  )

/**
 * A fresh isolated database chosen from configuration: a throw-away schema on PostgreSQL when
 * `DATABASE_URL` is set, otherwise an in-memory PGlite.
 */
export const TestDatabaseLive: Layer.Layer<SqlClient.SqlClient, ConfigError.ConfigError | SqlError> =
  Layer.unwrapEffect(
    Effect.map(DatabaseConfig, (settings) =>
      Option.match(settings.url, { onNone: () => pgliteTestLayer(), onSome: (url) => postgresTestLayer(url) })
    )
  )
