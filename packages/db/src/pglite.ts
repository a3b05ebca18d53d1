/**
 * What the rest of the package knows of the PGlite client without loading PGlite: its tag, its
 * interface and its settings. `pglite-client.ts` builds it, and is imported only when a process
 * opens a PGlite database (`client.ts`), so a process on PostgreSQL never loads PGlite's
 * WebAssembly build.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Context, type Effect, type Scope, type Stream } from "effect"

/** Identifies a `PgliteClient` among `SqlClient`s. */
export const TypeId: unique symbol = Symbol.for("@verbatim/db/PgliteClient")
export type TypeId = typeof TypeId

export interface PgliteClientConfig {
  /** Folder holding the database files (created if missing); `undefined` keeps it in memory. */
  readonly dataDir?: string | undefined
  /** A data directory tarball (from `dumpDataDir`) to start from instead of running initdb. */
  readonly loadDataDir?: Blob | undefined
  readonly spanAttributes?: Record<string, unknown> | undefined
  /** Applied to identifiers in queries, e.g. `String.camelToSnake`. */
  readonly transformQueryNames?: ((name: string) => string) | undefined
  /** Applied to column names in results, e.g. `String.snakeToCamel`. */
  readonly transformResultNames?: ((name: string) => string) | undefined
  /** Whether the name transforms also reach inside JSON values (default true, as in `PgClient`). */
  readonly transformJson?: boolean | undefined
}

export interface PgliteClient extends SqlClient.SqlClient {
  readonly [TypeId]: TypeId
  readonly config: PgliteClientConfig
  /** A JSON parameter, compiled like `PgClient.json`. */
  readonly json: (value: unknown) => Statement.Fragment
  /** Payloads sent with NOTIFY (or `pg_notify`) on a channel, while the stream runs. */
  readonly listen: (channel: string) => Stream.Stream<string, SqlError>
  /**
   * Calls `f` with each payload sent on a channel while the scope lasts, as soon as it arrives
   * (before the statement that sent it returns, when it was sent from this process).
   */
  readonly onNotify: (
    channel: string,
    f: (payload: string) => void
  ) => Effect.Effect<void, SqlError, Scope.Scope>
  /** `SELECT pg_notify(channel, payload)`. */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}

export const PgliteClient = Context.GenericTag<PgliteClient>("@verbatim/db/PgliteClient")
