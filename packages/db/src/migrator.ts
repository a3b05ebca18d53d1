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

/** The highest migration of a set, as `NNNN_name` (`none` for an empty set). */
const newestOf = (entries: ReadonlyArray<readonly [number, string]>): string => {
  const newest = entries.reduce<readonly [number, string] | undefined>(
    (best, entry) => (best === undefined || entry[0] > best[0] ? entry : best),
    undefined
  )
  return newest === undefined ? "none" : `${String(newest[0]).padStart(4, "0")}_${newest[1]}`
}

/**
 * Why a database whose schema has migrations this build does not know (a newer build migrated it)
 * cannot be used by this build: it would read and write tables it does not understand.
 */
export const schemaTooNewMessage = (database: string, build: string): string =>
  `the database's schema is at migration ${database}, newer than this build knows (${build}): run the build that migrated it (or a newer one), or restore a backup taken before that upgrade`

/**
 * Applies the migrations not applied yet, in one transaction holding an exclusive lock on the
 * migrations table (concurrent runs wait, then find nothing to do), logging each one it applies and
 * the schema it leaves. Returns what it applied. A failing migration rolls everything back and fails
 * with a `MigrationError` (reason `failed`); a database with a migration newer than any of
 * `migrations` fails with one of reason `bad-state` naming both versions, before anything is applied.
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
    const sql = yield* SqlClient.SqlClient
    const known = Object.keys(migrations).flatMap((key) => {
      const match = keyPattern.exec(key)
      return match === null ? [] : [[Number(match[1]), match[2] ?? ""] as const]
    })
    const newestKnown = Math.max(0, ...known.map(([id]) => id))
    const present = (yield* sql<{
      readonly id: number
      readonly name: string
    }>`SELECT migration_id AS id, name FROM ${sql(migrationsTable)}`).map(
      (row) => [Number(row.id), row.name] as const
    )
    const unknown = present.filter(([id]) => id > newestKnown)
    if (unknown.length > 0) {
      return yield* new Migrator.MigrationError({
        reason: "bad-state",
        message: schemaTooNewMessage(newestOf(present), newestOf(known))
      })
    }
    // The Migrator turns a failing migration into a defect; bring it back as a typed failure.
    const applied = yield* run({
      loader: Migrator.fromRecord(Record.map(migrations, Effect.asVoid)),
      table: migrationsTable
    }).pipe(
      Effect.catchSomeDefect((defect) =>
        defect instanceof Migrator.MigrationError ? Option.some(Effect.fail(defect)) : Option.none()
      )
    )
    for (const [id, name] of applied) {
      yield* Effect.logInfo(`migration ${String(id).padStart(4, "0")}_${name} applied`).pipe(
        Effect.annotateLogs({ "migration.id": id, "migration.name": name })
      )
    }
    yield* Effect.logInfo(
      applied.length === 0
        ? `database schema at ${newestOf(present)}: up to date`
        : `database schema at ${newestOf([...present, ...applied])}: ${applied.length} migration${applied.length === 1 ? "" : "s"} applied`
    ).pipe(Effect.annotateLogs({ "migration.applied": applied.length }))
    return applied
  }).pipe(Effect.withSpan("verbatim.db.runMigrations"))

/** Runs the migrations when the layer is built. */
export const layer = (
  migrations: Migrations
): Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =>
  Layer.effectDiscard(runMigrations(migrations))
