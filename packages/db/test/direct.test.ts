/**
 * The hot statements' direct lane (`direct.ts`): on PostgreSQL straight on the pool, elsewhere and
 * inside a transaction through the `SqlClient`; the same rows and the same failures either way.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it as plainIt } from "@effect/vitest"
import { Effect, Exit, Option, Redacted } from "effect"
import type Pg from "pg"
import { camelCaseNaming, postgresTestLayer } from "../src/client.js"
import { makeDirectQuery, PgPool } from "../src/direct.js"
import { makePreparedQuery, statementNamePrefix } from "../src/prepared.js"
import { describeEachDatabase } from "./harness.js"

/** The pool in context with its `query` calls counted (PostgreSQL), or none (PGlite). */
const countingPool = Effect.map(Effect.serviceOption(PgPool), (pool) =>
  Option.map(pool, (inner) => {
    const counted = { calls: 0, pool: inner }
    const query = inner.query.bind(inner)
    const spy = Object.create(inner) as Pg.Pool
    spy.query = ((...args: Parameters<Pg.Pool["query"]>) => {
      counted.calls++
      return query(...args)
    }) as Pg.Pool["query"]
    return { counted, spy }
  })
)

describeEachDatabase("The direct lane", (it, database) => {
  it.effect("answers the rows the client answers, untransformed, on the pool outside transactions", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE direct_rows (row_id int PRIMARY KEY, some_text text)`
      yield* sql`INSERT INTO direct_rows VALUES (1, 'one'), (2, 'two')`
      const text = "SELECT row_id, some_text FROM direct_rows WHERE row_id >= $1 ORDER BY row_id"
      const pool = yield* countingPool
      expect(Option.isSome(pool)).toBe(database.name === "postgres")
      const direct = yield* Option.match(pool, {
        onNone: () => makeDirectQuery,
        onSome: ({ spy }) => Effect.provideService(makeDirectQuery, PgPool, spy)
      })
      const rows = yield* direct(text, [1])
      expect(rows).toEqual([
        { row_id: 1, some_text: "one" },
        { row_id: 2, some_text: "two" }
      ])
      expect(rows).toEqual(yield* sql.unsafe(text, [1]).withoutTransform)
      if (Option.isSome(pool)) expect(pool.value.counted.calls).toBe(1)

      // Inside a transaction, on its connection: it sees the transaction's own writes.
      const seenInside = yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO direct_rows VALUES (4, 'four')`
          return yield* direct(text, [4])
        })
      )
      expect(seenInside).toEqual([{ row_id: 4, some_text: "four" }])
      // Only the statement outside the transactions went to the pool.
      if (Option.isSome(pool)) expect(pool.value.counted.calls).toBe(1)
    })
  )

  it.effect("fails with the client's SqlError, the driver's error as its cause", () =>
    Effect.gen(function* () {
      const direct = yield* makeDirectQuery
      const exit = yield* Effect.exit(direct("SELECT * FROM no_such_table WHERE x = $1", [1]))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
        expect(exit.cause.error).toBeInstanceOf(SqlError)
        expect(String((exit.cause.error.cause as { code?: string }).code)).toBe("42P01")
      } else {
        expect.fail("expected a failure")
      }
    })
  )
})

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

describe.runIf(databaseUrl !== "")("The prepared lane on PostgreSQL", () => {
  // One pooled connection, so the statements below share it and its prepared statements.
  plainIt.effect(
    "prepares a statement of the prepared lane once per connection, none of the direct lane",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const prepared = yield* makePreparedQuery
        const direct = yield* makeDirectQuery
        const statement = (n: number) => sql`SELECT ${n}::int + 1 AS next`
        for (let i = 0; i < 3; i++) expect(yield* prepared(statement(i))).toEqual([{ next: i + 1 }])
        yield* direct("SELECT 1 AS unmarked", [])
        // Inside a transaction, on its connection (the only one): the same name, not prepared again.
        yield* sql.withTransaction(
          Effect.flatMap(prepared(statement(7)), (rows) =>
            Effect.sync(() => expect(rows).toEqual([{ next: 8 }]))
          )
        )
        const listed = yield* direct("SELECT name, statement FROM pg_prepared_statements", [])
        expect(listed).toEqual([
          {
            name: expect.stringMatching(new RegExp(`^${statementNamePrefix}`)),
            statement: statement(0).compile()[0]
          }
        ])
      }).pipe(
        Effect.provide(postgresTestLayer(Redacted.make(databaseUrl), camelCaseNaming, { maxConnections: 1 }))
      )
  )
})
