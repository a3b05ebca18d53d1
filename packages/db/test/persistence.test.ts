/**
 * `PersistenceLive`: the configured database, migrated before the repositories are used, and again
 * without changes when the process starts over on the same data.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Accounts, Ledger } from "@verbatim/core"
import { ConfigProvider, Effect, Layer } from "effect"
import { migrations } from "../src/migrations/index.js"
import { PersistenceLive } from "../src/persistence.js"
import { accountId, at } from "./repositories/fixtures.js"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "verbatim-persistence-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

// Live clock: a real database (PGlite on disk) is opened, migrated and opened again.
describe("PersistenceLive", () => {
  it.live(
    "migrates the embedded database once and serves the repositories across restarts",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir
        const persistence = PersistenceLive.pipe(
          Layer.provide(
            Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["VERBATIM_DATA_DIR", dataDir]])))
          )
        )
        const id = accountId()
        yield* Effect.gen(function* () {
          const accounts = yield* Accounts
          const ledger = yield* Ledger
          yield* accounts.create({
            id,
            name: "Ada",
            plan: "basic",
            defaultMode: "auto",
            createdAt: at("2026-10-02T00:00:00Z")
          })
          yield* ledger.grant(
            { accountId: id, key: "welcome", reason: "welcome", at: at("2026-10-02T00:00:00Z") },
            25
          )
        }).pipe(Effect.provide(persistence))
        const after = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const applied = yield* sql<{
            readonly n: number
          }>`SELECT count(*)::int AS n FROM verbatim_migrations`
          return { balance: yield* (yield* Ledger).balance(id), migrations: applied[0]?.n }
        }).pipe(Effect.provide(persistence))
        expect(after).toEqual({ balance: 25, migrations: Object.keys(migrations).length })
      }).pipe(Effect.scoped),
    60_000
  )
})
