/**
 * What the PostgreSQL client is made with, apart from the driver: naming rules, pool settings and
 * their defaults, and the helpers for test schemas. Kept out of `postgres-client.ts` so that a
 * process on PGlite reads its settings without loading node-postgres.
 */

import { randomBytes } from "node:crypto"
import { Effect, Redacted, String as Str } from "effect"

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

export const defaultPool: PoolOptions = { maxConnections: 10 }

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
