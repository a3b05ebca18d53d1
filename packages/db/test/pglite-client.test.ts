/**
 * What only the PGlite client does: persisting to a folder across close and reopen, closing with its
 * scope, LISTEN/NOTIFY, and sharing its one session with `sql.reserve`.
 */

import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Schedule, Stream } from "effect"
import * as PgliteClient from "../src/pglite-client.js"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "verbatim-pglite-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

// Live clock: a real PGlite database on disk, with LISTEN/NOTIFY.
describe("PgliteClient", () => {
  it.live(
    "keeps data in its folder (created if missing) across close and reopen",
    () =>
      Effect.gen(function* () {
        const dataDir = join(yield* tempDir, "nested", "pg")
        const open = Layer.build(PgliteClient.layer({ dataDir }))
        const client = yield* Effect.scoped(
          Effect.gen(function* () {
            const context = yield* open
            const sql = yield* Effect.provide(SqlClient.SqlClient, context)
            yield* sql`CREATE TABLE kept (id int PRIMARY KEY, label text NOT NULL)`
            yield* sql.withTransaction(sql`INSERT INTO kept VALUES (1, 'one'), (2, 'two')`)
            return yield* Effect.provide(PgliteClient.PgliteClient, context)
          })
        )
        // The scope closed the first instance.
        const closed = yield* Effect.exit(client`SELECT 1`)
        expect(closed._tag).toBe("Failure")
        expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true)
        const rows = yield* Effect.scoped(
          Effect.flatMap(open, (context) =>
            Effect.flatMap(
              Effect.provide(SqlClient.SqlClient, context),
              (sql) => sql`SELECT * FROM kept ORDER BY id`
            )
          )
        )
        expect(rows).toEqual([
          { id: 1, label: "one" },
          { id: 2, label: "two" }
        ])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "statements that follow each other give the event loop its turn: I/O and timers are not starved",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const context = yield* Layer.build(PgliteClient.layer({}))
          const sql = yield* Effect.provide(SqlClient.SqlClient, context)
          // PGlite answers through promises alone: without a turn, a setImmediate queued before a
          // run of statements (a socket's read, a timer) would wait for the whole run to end.
          let turned = false
          setImmediate(() => {
            turned = true
          })
          let statements = 0
          while (!turned && statements < 5_000) {
            yield* sql`SELECT ${statements}::int AS n`
            statements++
          }
          expect(turned).toBe(true)
          expect(statements).toBeLessThan(5_000)
          // A statement that fails after a turn is due fails through the turn, never unhandled.
          const unhandled: Array<unknown> = []
          const record = (reason: unknown) => unhandled.push(reason)
          process.on("unhandledRejection", record)
          for (let i = 0; i < 5; i++) {
            const busyUntil = performance.now() + 15
            while (performance.now() < busyUntil) {
              // Holds the loop past the turn's budget, so the failure takes the turn.
            }
            const failed = yield* Effect.either(sql`SELECT 1 / ${0}::int AS n`)
            expect(failed._tag).toBe("Left")
          }
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          process.off("unhandledRejection", record)
          expect(unhandled).toEqual([])
        })
      ),
    60_000
  )

  it.live(
    "delivers notifications to listeners, and lets a reserved connection hold the session",
    () =>
      Effect.gen(function* () {
        const client = yield* PgliteClient.PgliteClient
        const received = yield* client.listen("news").pipe(Stream.take(1), Stream.runHead, Effect.fork)
        const ticker = yield* client
          .notify("news", "hello")
          .pipe(Effect.repeat(Schedule.spaced("20 millis")), Effect.fork)
        expect(yield* Fiber.join(received)).toEqual(Option.some("hello"))
        yield* Fiber.interrupt(ticker)

        yield* client`CREATE TABLE reserved_rows (id int)`
        const outside = yield* Effect.scoped(
          Effect.gen(function* () {
            const connection = yield* client.reserve
            const waiting = yield* client`INSERT INTO reserved_rows VALUES (2)`.pipe(Effect.fork)
            yield* connection.execute("INSERT INTO reserved_rows VALUES (1)", [], undefined)
            const seen = yield* connection.execute("SELECT id FROM reserved_rows", [], undefined)
            expect(seen).toEqual([{ id: 1 }])
            return waiting
          })
        )
        yield* Fiber.join(outside)
        expect(yield* client`SELECT id FROM reserved_rows ORDER BY id`).toEqual([{ id: 1 }, { id: 2 }])
      }).pipe(Effect.provide(PgliteClient.layer())),
    60_000
  )
})
