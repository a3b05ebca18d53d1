/**
 * Migrations through `@effect/sql`'s Migrator, on every database: applied once and in order, safe to
 * re-run and to run concurrently, rolled back as a whole when one fails.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { Effect, Exit, HashMap, Logger } from "effect"
import { type Migrations, migrationsTable, runMigrations } from "../src/migrator.js"
import { describeEachDatabase } from "./harness.js"

const statement = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text))

const exists = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ readonly found: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS found`, (rows) =>
      rows.some((row) => row.found)
    )
  )

const recorded = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{ readonly migrationId: number; readonly name: string }>`SELECT migration_id, name FROM ${sql(
      migrationsTable
    )} ORDER BY migration_id`
)

const first: Migrations = {
  "0002_seed_alpha": statement("INSERT INTO alpha VALUES (1), (2)"),
  "0001_create_alpha": statement("CREATE TABLE alpha (id int PRIMARY KEY)")
}

/** Runs `effect` with its log lines captured as `[message, annotations]`. */
const withLines = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<readonly [string, Record<string, unknown>]> = []
    const capture = Logger.make(({ message, annotations }) => {
      lines.push([
        (Array.isArray(message) ? message : [message]).join(" "),
        Object.fromEntries(HashMap.toEntries(annotations))
      ])
    })
    const result = yield* effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
    return { result, lines }
  })

const deltas: Migrations = {
  "0901_create_delta": statement("CREATE TABLE delta (id int PRIMARY KEY)"),
  "0902_seed_delta": statement("INSERT INTO delta VALUES (1)")
}

describeEachDatabase("migrator", (it) => {
  it.effect("applies migrations once and in order; a re-run applies only new ones", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      expect(yield* runMigrations(first)).toEqual([
        [1, "create_alpha"],
        [2, "seed_alpha"]
      ])
      expect(yield* runMigrations(first)).toEqual([])
      const more = { ...first, "0003_alpha_label": statement("ALTER TABLE alpha ADD COLUMN label text") }
      expect(yield* runMigrations(more)).toEqual([[3, "alpha_label"]])
      expect(yield* runMigrations(more)).toEqual([])
      expect(yield* sql`SELECT id, label FROM alpha ORDER BY id`).toEqual([
        { id: 1, label: null },
        { id: 2, label: null }
      ])
      expect(yield* recorded).toEqual([
        { migrationId: 1, name: "create_alpha" },
        { migrationId: 2, name: "seed_alpha" },
        { migrationId: 3, name: "alpha_label" }
      ])
    })
  )

  it.effect("applies each migration once when several runs start together", () =>
    Effect.gen(function* () {
      const migrations: Migrations = {
        "0010_create_beta": statement("CREATE TABLE beta (id int PRIMARY KEY)"),
        "0011_seed_beta": statement("INSERT INTO beta VALUES (1)")
      }
      const runs = yield* Effect.all(
        Array.from({ length: 4 }, () => runMigrations(migrations)),
        { concurrency: "unbounded" }
      )
      expect(runs.flat()).toEqual([
        [10, "create_beta"],
        [11, "seed_beta"]
      ])
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`SELECT id FROM beta`).toEqual([{ id: 1 }])
    })
  )

  it.effect("rolls every pending migration back and fails with a MigrationError when one fails", () =>
    Effect.gen(function* () {
      const migrations: Migrations = {
        "0020_create_gamma": statement("CREATE TABLE gamma (id int PRIMARY KEY)"),
        "0021_broken": statement("INSERT INTO missing_table VALUES (1)")
      }
      const exit = yield* Effect.exit(runMigrations(migrations))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { _tag: "Fail" } })
      if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
        expect(exit.cause.error).toMatchObject({ _tag: "MigrationError", reason: "failed" })
      }
      expect(yield* exists("gamma")).toBe(false)
      expect((yield* recorded).map((row) => row.migrationId)).not.toContain(20)
    })
  )

  it.effect("refuses keys that do not read NNNN_name instead of skipping them", () =>
    Effect.gen(function* () {
      const error = yield* runMigrations({
        "0030_create_delta": statement("CREATE TABLE delta (id int)"),
        create_epsilon: statement("CREATE TABLE epsilon (id int)")
      }).pipe(Effect.flip)
      expect(error).toMatchObject({ _tag: "MigrationError", reason: "import-error" })
      expect(error.message).toContain("create_epsilon")
      expect(yield* exists("delta")).toBe(false)
    })
  )

  // Last: they leave migrations above every other test's in the suite's database.
  it.effect("logs each migration it applies and the schema it leaves", () =>
    Effect.gen(function* () {
      const applied = yield* withLines(runMigrations(deltas))
      expect(applied.lines.map(([message]) => message)).toEqual([
        "migration 0901_create_delta applied",
        "migration 0902_seed_delta applied",
        "database schema at 0902_seed_delta: 2 migrations applied"
      ])
      expect(applied.lines[0]?.[1]).toEqual({ "migration.id": 901, "migration.name": "create_delta" })
      const again = yield* withLines(runMigrations(deltas))
      expect(again.lines.map(([message]) => message)).toEqual([
        "database schema at 0902_seed_delta: up to date"
      ])
    })
  )

  it.effect(
    "refuses a database whose schema is newer than the build knows, naming both, applying nothing",
    () =>
      Effect.gen(function* () {
        const newer = {
          ...first,
          "0907_delta_label": statement("ALTER TABLE delta ADD COLUMN label text")
        }
        yield* runMigrations(newer)
        // An older build (it knows 0001 and 0002 only, plus one of its own that must not be applied).
        const older = { ...deltas, "0903_gamma": statement("CREATE TABLE gamma (id int)") }
        const refused = yield* Effect.exit(runMigrations(older))
        expect(refused).toEqual(
          Exit.fail(
            expect.objectContaining({
              reason: "bad-state",
              message: expect.stringContaining(
                "the database's schema is at migration 0907_delta_label, newer than this build knows (0903_gamma)"
              )
            })
          )
        )
        expect(yield* exists("gamma")).toBe(false)
      })
  )
})

describeEachDatabase(
  "test harness with migrations",
  (it) => {
    it.effect("hands the suite a database the migrations have already been applied to", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT id FROM alpha ORDER BY id`).toEqual([{ id: 1 }, { id: 2 }])
        expect(yield* runMigrations(first)).toEqual([])
      })
    )
  },
  { migrations: first }
)
