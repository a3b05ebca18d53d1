/**
 * Schema migrations with `@effect/sql`'s generic `Migrator`, from a record of migration effects
 * imported by the caller (no filesystem loader: it works on both clients and from bundled code).
 * Keys are `NNNN_name`; applied migrations are recorded in `verbatim_migrations`.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Option, Record } from "effect"

/** The table recording applied migrations. */
export const migrationsTable = "verbatim_migrations"

/** One migration: an effect run once, inside the migration transaction. */
export type Migration = Effect.Effect<unknown, unknown, SqlClient.SqlClient>

/** Migrations by key `NNNN_name` (e.g. `0001_accounts`), applied in the order of their number. */
export type Migrations = Readonly<Record<string, Migration>>

export const MigrationError = Migrator.MigrationError
export type MigrationError = Migrator.MigrationError

const keyPattern = /^(\d+)_(.+)$/

/** Applied migrations, as `[id, name]`. */
export type AppliedMigrations = ReadonlyArray<readonly [id: number, name: string]>

/** Keys the `Migrator` would silently skip. */
const badKeys = (migrations: Migrations): ReadonlyArray<string> =>
  Object.keys(migrations).filter((key) => !keyPattern.test(key))

/**
 * Creates the migrations table unless it exists, under a transaction-scoped advisory lock, so that
 * several processes starting together do not race to create it.
 */
const ensureMigrationsTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.zipRight(
      sql`SELECT pg_advisory_xact_lock(hashtext(${migrationsTable}))`,
      sql`CREATE TABLE IF NOT EXISTS ${sql(migrationsTable)} (
  migration_id integer PRIMARY KEY,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  name text NOT NULL
)`
    )
  )
})

const run = Migrator.make({})

/**
 * Applies the migrations not applied yet, in one transaction holding an exclusive lock on the
 * migrations table (concurrent runs wait, then find nothing to do). Returns what it applied.
 * A failing migration rolls everything back and fails with a `MigrationError` (reason `failed`).
 */
export const runMigrations = (
  migrations: Migrations
): Effect.Effect<AppliedMigrations, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const invalid = badKeys(migrations)
    if (invalid.length > 0) {
      return yield* new Migrator.MigrationError({
        reason: "import-error",
        message: `Migration keys must read NNNN_name: ${invalid.join(", ")}`
      })
    }
    yield* ensureMigrationsTable
    // The Migrator turns a failing migration into a defect; bring it back as a typed failure.
    return yield* run({
      loader: Migrator.fromRecord(Record.map(migrations, Effect.asVoid)),
      table: migrationsTable
    }).pipe(
      Effect.catchSomeDefect((defect) =>
        defect instanceof Migrator.MigrationError ? Option.some(Effect.fail(defect)) : Option.none()
      )
    )
  }).pipe(Effect.withSpan("verbatim.db.runMigrations"))

/** Runs the migrations when the layer is built. */
export const layer = (
  migrations: Migrations
): Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =>
  Layer.effectDiscard(runMigrations(migrations))
