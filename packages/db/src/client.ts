/**
 * The database a Verbatim process talks to, as an `@effect/sql` `SqlClient`: PostgreSQL through
 * `@effect/sql-pg` when `DATABASE_URL` is set, otherwise PGlite persisted under
 * `${VERBATIM_DATA_DIR}/pg`. Both clients use the same naming rules, so repositories see the same rows.
 * Also builds fresh isolated databases for tests (a throw-away schema, or an in-memory PGlite).
 */

import { join } from "node:path"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Config, ConfigError, Effect, Either, Layer, Option, Redacted } from "effect"
import type { PgPool } from "./direct.js"
import {
  camelCaseNaming,
  defaultConnectTimeoutMs,
  defaultPool,
  defaultStatementTimeoutMs,
  type NamingOptions,
  type PoolOptions
} from "./postgres-options.js"

export * from "./postgres-options.js"

export interface DatabaseSettings {
  /** PostgreSQL connection string; `None` selects the embedded PGlite. */
  readonly url: Option.Option<Redacted.Redacted>
  /** Root of Verbatim's local data; PGlite lives in its `pg` folder. */
  readonly dataDir: string
  readonly pool: PoolOptions
}

const milliseconds = (name: string, fallback: number, least: number) =>
  Config.integer(name).pipe(
    Config.validate({
      message: `${name} must be a whole number of milliseconds, at least ${least}`,
      validation: (n) => n >= least
    }),
    Config.withDefault(fallback)
  )

/** Why a `DATABASE_URL` cannot be a PostgreSQL connection string, if it cannot. */
export const databaseUrlProblem = (text: string): Option.Option<string> => {
  const example = "postgres://user:password@host:5432/database"
  let parsed: URL
  try {
    parsed = new URL(text.trim())
  } catch {
    return Option.some(`DATABASE_URL must be a PostgreSQL connection string such as ${example}`)
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    return Option.some(
      `DATABASE_URL must start with postgres:// or postgresql:// (not ${parsed.protocol}//), such as ${example}`
    )
  }
  const socket = parsed.searchParams.get("host")
  if (parsed.hostname === "" && (socket === null || socket === "")) {
    return Option.some(`DATABASE_URL names no host: expected ${example}`)
  }
  return Option.none()
}

/**
 * `DATABASE_URL` (optional, secret; empty counts as unset; must be a postgres:// URL),
 * `VERBATIM_DATA_DIR`, `DATABASE_POOL_MAX`, `DATABASE_CONNECT_TIMEOUT_MS` (default 5000) and
 * `DATABASE_STATEMENT_TIMEOUT_MS` (default 15000; 0 switches it off).
 */
export const DatabaseConfig: Config.Config<DatabaseSettings> = Config.all({
  url: Config.option(
    Config.redacted("DATABASE_URL").pipe(
      Config.mapOrFail((url) => {
        const text = Redacted.value(url)
        return Option.match(text.trim() === "" ? Option.none() : databaseUrlProblem(text), {
          onNone: () => Either.right(url),
          onSome: (problem) => Either.left(ConfigError.InvalidData(["DATABASE_URL"], problem))
        })
      })
    )
  ).pipe(Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))),
  dataDir: Config.string("VERBATIM_DATA_DIR").pipe(Config.withDefault("./.data")),
  pool: Config.all({
    maxConnections: Config.integer("DATABASE_POOL_MAX").pipe(
      Config.validate({ message: "DATABASE_POOL_MAX must be at least 1", validation: (n) => n >= 1 }),
      Config.withDefault(10)
    ),
    connectTimeoutMs: milliseconds("DATABASE_CONNECT_TIMEOUT_MS", defaultConnectTimeoutMs, 1),
    statementTimeoutMs: milliseconds("DATABASE_STATEMENT_TIMEOUT_MS", defaultStatementTimeoutMs, 0)
  })
})

/**
 * A database driver's modules, imported when a process first opens a database of that kind: a
 * process on PostgreSQL never loads PGlite (about 9 MB resident), and one on PGlite never loads
 * node-postgres.
 */
const loadDriver = <A>(driver: string, load: () => Promise<A>): Effect.Effect<A, SqlError> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) => new SqlError({ cause, message: `could not load ${driver}` })
  })

/** The PostgreSQL client (`postgres-client.ts`). */
const loadPostgres = loadDriver("the PostgreSQL client (node-postgres)", () => import("./postgres-client.js"))

/**
 * PostgreSQL through node-postgres, with Verbatim's pool settings, timeouts and naming; the pool
 * itself too, for the hot statements' direct lane (`direct.ts`).
 */
export const postgresLayer = (
  url: Redacted.Redacted,
  pool: PoolOptions = defaultPool,
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient | PgPool, SqlError> =>
  Layer.unwrapEffect(Effect.map(loadPostgres, (PostgresClient) => PostgresClient.layer(url, pool, naming)))

/** A module of PGlite's. */
const loadPglite = <A>(load: () => Promise<A>): Effect.Effect<A, SqlError> => loadDriver("PGlite", load)

/** PGlite, in memory when `dataDir` is undefined, else persisted in that folder. */
export const pgliteLayer = (
  dataDir: string | undefined,
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(
      loadPglite(() => import("./pglite-client.js")),
      (PgliteClient) => PgliteClient.layer({ dataDir, ...naming })
    )
  )

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

/**
 * A fresh, empty PostgreSQL database for one test suite: a new schema `verbatim_test_<random>` that
 * every pooled connection uses as its only `search_path`, dropped (with all it holds) when the layer
 * is released.
 */
export const postgresTestLayer = (
  url: Redacted.Redacted,
  naming: NamingOptions = camelCaseNaming,
  pool: PoolOptions = defaultPool,
  /** Where the server is reached, when not at `url` itself (a proxy in front of it, in fault tests). */
  reachAt: Redacted.Redacted = url
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(loadPostgres, (PostgresClient) => PostgresClient.testLayer(url, naming, pool, reachAt))
  )

/** A fresh in-memory PGlite database, started from the shared template (see `pglite-template.ts`). */
export const pgliteTestLayer = (
  naming: NamingOptions = camelCaseNaming
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const [PgliteClient, { pgliteTemplate }] = yield* loadPglite(() =>
        Promise.all([import("./pglite-client.js"), import("./pglite-template.js")])
      )
      const loadDataDir = yield* pgliteTemplate
      return PgliteClient.layer({ dataDir: undefined, loadDataDir, ...naming })
    })
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
