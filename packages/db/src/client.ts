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
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Config, ConfigError, Duration, Effect, Either, Layer, Option, Redacted, String as Str } from "effect"
import Pg from "pg"
import { PgPool } from "./direct.js"

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
  /**
   * How long opening a connection, or waiting for a free pooled one, may take (ms); past it the
   * operation fails as the database being unavailable. Default `defaultConnectTimeoutMs`.
   */
  readonly connectTimeoutMs?: number | undefined
  /**
   * The server's `statement_timeout` on every connection (ms; 0: none). A statement answers within
   * it plus `queryTimeoutGraceMs`, or fails client-side, even when the server hangs without answering.
   * Default `defaultStatementTimeoutMs`.
   */
  readonly statementTimeoutMs?: number | undefined
}

export const defaultConnectTimeoutMs = 5_000
export const defaultStatementTimeoutMs = 15_000

/**
 * The client gives up on a statement this long after the server should have cancelled it: the
 * server enforces `statement_timeout`, but a frozen or unreachable server enforces nothing.
 */
export const queryTimeoutGraceMs = 2_000

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

const defaultPool: PoolOptions = { maxConnections: 10 }

/** Where a connection string points, without its password: `host:port/database`. */
export const describeTarget = (url: Redacted.Redacted): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    const host = parsed.hostname === "" ? (parsed.searchParams.get("host") ?? "localhost") : parsed.hostname
    return `${host}:${parsed.port === "" ? "5432" : parsed.port}${parsed.pathname}`
  } catch {
    return "(an unreadable address)"
  }
}

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
export const postgresLayer = (
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
 * A module of PGlite's, imported when a process first opens a PGlite database: a process on
 * PostgreSQL never loads PGlite (about 9 MB resident).
 */
const loadPglite = <A>(load: () => Promise<A>): Effect.Effect<A, SqlError> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) => new SqlError({ cause, message: "could not load PGlite" })
  })

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
  naming: NamingOptions = camelCaseNaming,
  pool: PoolOptions = defaultPool,
  /** Where the server is reached, when not at `url` itself (a proxy in front of it, in fault tests). */
  reachAt: Redacted.Redacted = url
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
      return postgresLayer(withSearchPath(reachAt, schema), pool, naming)
    }).pipe(Effect.provide(Reactivity.layer))
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
