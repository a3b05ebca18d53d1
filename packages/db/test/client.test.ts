/**
 * Choosing the database from configuration, and the isolated databases tests run on.
 */

import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { ConfigError, ConfigProvider, Effect, Layer, Redacted } from "effect"
import {
  DatabaseLive,
  postgresLayer,
  postgresTestLayer,
  TestDatabaseLive,
  withSearchPath
} from "../src/client.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "verbatim-db-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const withConfig = (entries: Record<string, string>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))

const applicationName = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ readonly name: string }>`SELECT current_setting('application_name') AS name`,
    (rows) => rows[0]?.name
  )
)

describe("withSearchPath", () => {
  it("adds the schema to the startup options and keeps the url's own options", () => {
    const plain = Redacted.value(withSearchPath(Redacted.make("postgres://u:p@h:5432/db"), "s1"))
    expect(new URL(plain).searchParams.get("options")).toBe("-c search_path=s1")
    const withOptions = Redacted.value(
      withSearchPath(
        Redacted.make("postgres://h/db?sslmode=disable&options=-c%20statement_timeout%3D5s"),
        "s2"
      )
    )
    const parsed = new URL(withOptions)
    expect(parsed.searchParams.get("options")).toBe("-c statement_timeout=5s -c search_path=s2")
    expect(parsed.searchParams.get("sslmode")).toBe("disable")
  })
})

// Live clock: real database clients (PGlite, PostgreSQL) connect and close in real time.
describe("DatabaseLive", () => {
  it.live(
    "uses PGlite persisted in VERBATIM_DATA_DIR/pg when DATABASE_URL is unset or empty",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir
        for (const entries of [
          { VERBATIM_DATA_DIR: dataDir },
          { VERBATIM_DATA_DIR: dataDir, DATABASE_URL: " " }
        ]) {
          const name = yield* applicationName.pipe(
            Effect.provide(DatabaseLive.pipe(Layer.provide(withConfig(entries))))
          )
          expect(name).toBe("")
        }
        expect(existsSync(join(dataDir, "pg", "PG_VERSION"))).toBe(true)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("fails with a ConfigError when DATABASE_POOL_MAX is not a positive integer", () =>
    Effect.gen(function* () {
      const error = yield* Layer.build(DatabaseLive).pipe(
        Effect.provide(withConfig({ DATABASE_URL: "postgres://nowhere/db", DATABASE_POOL_MAX: "0" })),
        Effect.scoped,
        Effect.flip
      )
      expect(ConfigError.isConfigError(error)).toBe(true)
      expect(String(error)).toContain("DATABASE_POOL_MAX must be at least 1")
    })
  )

  it.live.runIf(databaseUrl !== "")("uses PostgreSQL when DATABASE_URL is set", () =>
    Effect.gen(function* () {
      const name = yield* applicationName.pipe(
        Effect.provide(DatabaseLive.pipe(Layer.provide(withConfig({ DATABASE_URL: databaseUrl }))))
      )
      expect(name).toBe("verbatim")
    })
  )
})

// Live clock: real database clients (PGlite, PostgreSQL) connect and close in real time.
describe("test databases", () => {
  it.live.runIf(databaseUrl !== "")(
    "gives each PostgreSQL test database its own schema, and drops it afterwards",
    () =>
      Effect.gen(function* () {
        const url = Redacted.make(databaseUrl)
        const schema = yield* Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(postgresTestLayer(url))
            const sql = yield* Effect.provide(SqlClient.SqlClient, context)
            yield* sql`CREATE TABLE placed (id int)`
            const rows = yield* sql<{
              readonly schema: string
              readonly table: string
            }>`SELECT current_schema() AS schema, to_regclass('placed')::text AS table`
            const [row] = rows
            expect(row?.schema).toMatch(/^verbatim_test_[0-9a-f]{12}$/)
            expect(row?.table).toBe("placed")
            return row?.schema ?? ""
          })
        )
        const remaining = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`SELECT nspname FROM pg_namespace WHERE nspname = ${schema}`
        ).pipe(Effect.provide(postgresLayer(url)))
        expect(remaining).toEqual([])
      }),
    60_000
  )

  it.live(
    "TestDatabaseLive follows DATABASE_URL like DatabaseLive, in memory without it",
    () =>
      Effect.gen(function* () {
        const entries: Record<string, string> = databaseUrl === "" ? {} : { DATABASE_URL: databaseUrl }
        const name = yield* applicationName.pipe(
          Effect.provide(TestDatabaseLive.pipe(Layer.provide(withConfig(entries))))
        )
        expect(name).toBe(databaseUrl === "" ? "" : "verbatim")
      }),
    60_000
  )
})
