/**
 * Runs one test suite against every database implementation: always an in-memory PGlite, and
 * PostgreSQL (a fresh schema per suite, dropped afterwards) when `DATABASE_URL` is set.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { layer, type Vitest } from "@effect/vitest"
import { Layer, Redacted } from "effect"
import { pgliteTestLayer, postgresTestLayer } from "../src/client.js"
import * as Migrator from "../src/migrator.js"

export interface TestDatabase {
  readonly name: "pglite" | "postgres"
  /** Builds a fresh, empty database each time it is built. */
  readonly layer: Layer.Layer<SqlClient, SqlError>
}

const databaseUrl = process.env.DATABASE_URL?.trim()

/** The databases a suite runs against. */
export const databases: ReadonlyArray<TestDatabase> = [
  { name: "pglite", layer: pgliteTestLayer() },
  ...(databaseUrl
    ? [{ name: "postgres" as const, layer: postgresTestLayer(Redacted.make(databaseUrl)) }]
    : [])
]

export interface DescribeOptions {
  /** Migrations applied to the fresh database before the suite's tests. */
  readonly migrations?: Migrator.Migrations
}

/**
 * `describe`s the suite once per database (`"<name> [pglite]"`, `"<name> [postgres]"`), each with its
 * own fresh database shared by the suite's tests. Tests run on the live clock.
 */
export const describeEachDatabase = (
  name: string,
  suite: (it: Vitest.MethodsNonLive<SqlClient, true>, database: TestDatabase) => void,
  options: DescribeOptions = {}
): void => {
  for (const database of databases) {
    const built =
      options.migrations === undefined
        ? database.layer
        : Migrator.layer(options.migrations).pipe(Layer.provideMerge(database.layer))
    // Live clock: real databases; tests wait for other fibers to reach PostgreSQL or PGlite in real time.
    layer(built, { timeout: "60 seconds", excludeTestServices: true })(`${name} [${database.name}]`, (it) =>
      suite(it, database)
    )
  }
}
