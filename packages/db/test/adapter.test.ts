/**
 * The contract every database client must keep, run on PGlite and (when configured) PostgreSQL:
 * parameters and types, helpers, transactions, savepoints, concurrency, errors, full-text search.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { expect } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Option, Stream } from "effect"
import {
  isUniqueViolation,
  PostgresErrorCode,
  postgresConstraint,
  postgresErrorCode
} from "../src/postgres-error.js"
import { describeEachDatabase } from "./harness.js"

describeEachDatabase("sql adapter", (it) => {
  it.effect("binds parameters and parses values alike (bigint and numeric as strings)", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const at = new Date("2024-05-06T07:08:09.123Z")
      const rows = yield* sql`SELECT
        ${"héllo ' \" $1"}::text AS text,
        ${42}::int AS int,
        ${"9007199254740993"}::bigint AS big,
        ${7}::bigint AS small_big,
        ${true}::boolean AS flag,
        ${false}::boolean AS other_flag,
        ${at}::timestamptz AS at,
        ${["a", "b,c", 'd"e', "{x}"]}::text[] AS tags,
        ${[1, 2, 3]}::int[] AS numbers,
        ARRAY[1, 2]::bigint[] AS big_numbers,
        ${null}::text AS nothing,
        1.50::numeric AS amount,
        2.5::float8 AS ratio`
      expect(rows).toEqual([
        {
          text: "héllo ' \" $1",
          int: 42,
          big: "9007199254740993",
          smallBig: "7",
          flag: true,
          otherFlag: false,
          at,
          tags: ["a", "b,c", 'd"e', "{x}"],
          numbers: [1, 2, 3],
          bigNumbers: ["1", "2"],
          nothing: null,
          amount: "1.50",
          ratio: 2.5
        }
      ])
    })
  )

  it.effect("maps camelCase fields to snake_case columns, and keeps JSON keys as they are", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE json_docs (doc_id int PRIMARY KEY, created_at timestamptz NOT NULL, body jsonb NOT NULL)`
      const body = { video_id: "abc", startMs: 1, nested: [{ end_ms: 2, text: "x" }], empty: null }
      const createdAt = new Date("2020-01-01T00:00:00.000Z")
      yield* sql`INSERT INTO json_docs ${sql.insert({ docId: 1, createdAt, body: JSON.stringify(body) })}`
      // A plain object parameter is sent as JSON by both drivers.
      yield* sql`INSERT INTO json_docs ${sql.insert({ docId: 2, createdAt, body: { a: [1, "two"] } })}`
      // An array must be stringified: node-postgres would send a JS array as a PostgreSQL array.
      yield* sql`INSERT INTO json_docs ${sql.insert({ docId: 3, createdAt, body: JSON.stringify([1, { b_c: 2 }]) })}`
      const rows = yield* sql`SELECT doc_id, created_at, body FROM json_docs ORDER BY doc_id`
      expect(rows).toEqual([
        { docId: 1, createdAt, body },
        { docId: 2, createdAt, body: { a: [1, "two"] } },
        { docId: 3, createdAt, body: [1, { b_c: 2 }] }
      ])
      const raw = yield* sql.withoutTransforms()`SELECT doc_id FROM json_docs WHERE doc_id = ${1}`
      expect(raw).toEqual([{ doc_id: 1 }])
      const fromJson = yield* sql`SELECT body->>'video_id' AS video_id, body->'nested'->0->>'end_ms' AS end_ms
        FROM json_docs WHERE doc_id = ${1}`
      expect(fromJson).toEqual([{ videoId: "abc", endMs: "2" }])
    })
  )

  it.effect("inserts many rows, and compiles in, ANY, update and returning", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE items (item_id int PRIMARY KEY, item_label text NOT NULL, tags text[] NOT NULL)`
      const items = Array.from({ length: 500 }, (_, i) => ({
        itemId: i + 1,
        itemLabel: `item ${i + 1}`,
        tags: i % 2 === 0 ? ["even"] : ["odd", "x"]
      }))
      yield* sql`INSERT INTO items ${sql.insert(items)}`
      const [count] = yield* sql<{ readonly n: string }>`SELECT count(*) AS n FROM items`
      expect(count?.n).toBe("500")

      const inList =
        yield* sql`SELECT item_id FROM items WHERE ${sql.in("item_id", [3, 1, 2])} ORDER BY item_id`
      expect(inList).toEqual([{ itemId: 1 }, { itemId: 2 }, { itemId: 3 }])
      const inHelper = yield* sql`SELECT item_id FROM items WHERE item_id IN ${sql.in([4, 5])} ORDER BY 1`
      expect(inHelper).toEqual([{ itemId: 4 }, { itemId: 5 }])
      const any = yield* sql`SELECT item_id FROM items WHERE item_id = ANY(${[6, 7]}::int[]) ORDER BY 1`
      expect(any).toEqual([{ itemId: 6 }, { itemId: 7 }])
      const tagged = yield* sql`SELECT count(*)::int AS n FROM items WHERE ${"odd"} = ANY(tags)`
      expect(tagged).toEqual([{ n: 250 }])

      const updated = yield* sql`UPDATE items SET ${sql.update({ itemLabel: "renamed" })}
        WHERE item_id = ${10} RETURNING item_id, item_label`
      expect(updated).toEqual([{ itemId: 10, itemLabel: "renamed" }])
      const inserted = yield* sql`INSERT INTO items ${sql
        .insert({ itemId: 1000, itemLabel: "new", tags: [] })
        .returning("item_id")}`
      expect(inserted).toEqual([{ itemId: 1000 }])
      const identifier = yield* sql`SELECT ${sql("itemLabel")} FROM ${sql("items")} WHERE item_id = ${1000}`
      expect(identifier).toEqual([{ itemLabel: "new" }])
    })
  )

  it.effect("offers values, raw results with row counts, streams, unsafe and multi-statement texts", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE raw_a (id int); CREATE TABLE raw_b (id int)`
      yield* sql`INSERT INTO raw_a SELECT generate_series(1, 5)`
      const values = yield* sql`SELECT 1 AS a, 'x' AS b`.values
      expect(values).toEqual([[1, "x"]])
      const raw = yield* sql`UPDATE raw_a SET id = id WHERE id <= ${3}`.raw
      expect(raw).toMatchObject({ rowCount: 3, command: "UPDATE" })
      const rawNoParams = yield* sql`DELETE FROM raw_a WHERE id > 4`.raw
      expect(rawNoParams).toMatchObject({ rowCount: 1, command: "DELETE" })
      const streamed = yield* sql<{
        readonly someNumber: number
      }>`SELECT generate_series(1, 1000) AS some_number`.stream.pipe(Stream.runCollect)
      expect(streamed.length).toBe(1000)
      expect(Array.from(streamed).slice(0, 2)).toEqual([{ someNumber: 1 }, { someNumber: 2 }])
      const unsafe = yield* sql.unsafe("SELECT $1::int AS some_value", [5])
      expect(unsafe).toEqual([{ someValue: 5 }])
      const literal = yield* sql`SELECT ${sql.literal("'lit'")}::text AS lit`
      expect(literal).toEqual([{ lit: "lit" }])
    })
  )

  it.effect("commits a transaction, and rolls it back when it fails or dies", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE tx_rows (id int PRIMARY KEY)`
      const returned = yield* sql.withTransaction(Effect.as(sql`INSERT INTO tx_rows VALUES (1)`, "done"))
      expect(returned).toBe("done")
      const failed = yield* sql
        .withTransaction(Effect.zipRight(sql`INSERT INTO tx_rows VALUES (2)`, Effect.fail("boom" as const)))
        .pipe(Effect.either)
      expect(failed).toEqual(Either.left("boom"))
      const died = yield* sql
        .withTransaction(Effect.zipRight(sql`INSERT INTO tx_rows VALUES (3)`, Effect.die("bug")))
        .pipe(Effect.exit)
      expect(died._tag).toBe("Failure")
      const rows = yield* sql`SELECT id FROM tx_rows ORDER BY id`
      expect(rows).toEqual([{ id: 1 }])
    })
  )

  it.effect("rolls a nested transaction back to its savepoint and keeps the outer work", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE nested_rows (id int PRIMARY KEY)`
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO nested_rows VALUES (1)`
          const inner = yield* sql
            .withTransaction(Effect.zipRight(sql`INSERT INTO nested_rows VALUES (2)`, Effect.fail("inner")))
            .pipe(Effect.either)
          expect(inner).toEqual(Either.left("inner"))
          yield* sql.withTransaction(sql`INSERT INTO nested_rows VALUES (3)`)
          // A failed statement inside a savepoint does not abort the outer transaction.
          const duplicate = yield* sql
            .withTransaction(sql`INSERT INTO nested_rows VALUES (1)`)
            .pipe(Effect.flip)
          expect(isUniqueViolation(duplicate)).toBe(true)
          yield* sql`INSERT INTO nested_rows VALUES (4)`
        })
      )
      const rows = yield* sql`SELECT id FROM nested_rows ORDER BY id`
      expect(rows).toEqual([{ id: 1 }, { id: 3 }, { id: 4 }])
    })
  )

  it.effect("serialises concurrent read-modify-write transactions on a locked row", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)`
      yield* sql`INSERT INTO counters VALUES (1, 0)`
      const increment = sql.withTransaction(
        Effect.gen(function* () {
          const [row] = yield* sql<{ readonly n: number }>`SELECT n FROM counters WHERE id = 1 FOR UPDATE`
          yield* Effect.yieldNow()
          yield* sql`UPDATE counters SET n = ${(row?.n ?? 0) + 1} WHERE id = 1`
        })
      )
      yield* Effect.all(
        Array.from({ length: 20 }, () => increment),
        { concurrency: "unbounded" }
      )
      const rows = yield* sql`SELECT n FROM counters WHERE id = 1`
      expect(rows).toEqual([{ n: 20 }])
    })
  )

  it.effect("keeps statements of other fibers out of a running transaction", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE isolation_rows (id int PRIMARY KEY)`
      const started = yield* Deferred.make<void>()
      const transaction = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO isolation_rows VALUES (1)`
            yield* Deferred.succeed(started, undefined)
            yield* Effect.sleep("50 millis")
            return yield* Effect.fail("rolled back")
          })
        )
        .pipe(Effect.either, Effect.fork)
      yield* Deferred.await(started)
      yield* sql`INSERT INTO isolation_rows VALUES (2)`
      expect(yield* Fiber.join(transaction)).toEqual(Either.left("rolled back"))
      const rows = yield* sql`SELECT id FROM isolation_rows ORDER BY id`
      expect(rows).toEqual([{ id: 2 }])
    })
  )

  it.effect(
    "rolls back and frees the session when a fiber is interrupted inside or before a transaction",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE interrupted_rows (id int PRIMARY KEY)`
        const inside = yield* Deferred.make<void>()
        const holder = yield* sql
          .withTransaction(
            Effect.zipRight(
              sql`INSERT INTO interrupted_rows VALUES (1)`,
              Effect.zipRight(Deferred.succeed(inside, undefined), Effect.never)
            )
          )
          .pipe(Effect.fork)
        yield* Deferred.await(inside)
        // On PGlite this one waits for the session; interrupting it must not leak the permit.
        const waiter = yield* sql
          .withTransaction(sql`INSERT INTO interrupted_rows VALUES (2)`)
          .pipe(Effect.fork)
        yield* Effect.sleep("20 millis")
        yield* Fiber.interrupt(holder)
        yield* Fiber.interrupt(waiter)
        yield* sql.withTransaction(sql`INSERT INTO interrupted_rows VALUES (3)`)
        const rows = yield* sql<{ readonly id: number }>`SELECT id FROM interrupted_rows ORDER BY id`
        // The waiter may have run before its interruption (PostgreSQL) or not at all (PGlite).
        expect(rows.map((row) => row.id).filter((id) => id !== 2)).toEqual([3])
      })
  )

  it.effect("surfaces a unique violation as a SqlError whose cause keeps code 23505", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE people (id int PRIMARY KEY, email text NOT NULL CONSTRAINT people_email_key UNIQUE)`
      yield* sql`INSERT INTO people ${sql.insert({ id: 1, email: "a@example.com" })}`
      const error = yield* sql`INSERT INTO people ${sql.insert({ id: 2, email: "a@example.com" })}`.pipe(
        Effect.flip
      )
      expect(error).toBeInstanceOf(SqlError)
      expect(error._tag).toBe("SqlError")
      expect(error.cause).toMatchObject({ code: "23505", constraint: "people_email_key" })
      expect(postgresErrorCode(error)).toEqual(Option.some(PostgresErrorCode.UniqueViolation))
      expect(postgresConstraint(error)).toEqual(Option.some("people_email_key"))
      expect(isUniqueViolation(error, "people_email_key")).toBe(true)
      expect(isUniqueViolation(error, "other_key")).toBe(false)
      const notNull = yield* sql`INSERT INTO people (id) VALUES (${3})`.pipe(Effect.flip)
      expect(postgresErrorCode(notNull)).toEqual(Option.some(PostgresErrorCode.NotNullViolation))
      expect(isUniqueViolation(notNull)).toBe(false)
      // The failed statements left the connection usable.
      const rows = yield* sql`SELECT count(*)::int AS n FROM people`
      expect(rows).toEqual([{ n: 1 }])
    })
  )

  it.effect("searches text with websearch_to_tsquery over a GIN-indexed generated tsvector", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE fts_docs (
        id int PRIMARY KEY,
        body text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED
      )`
      yield* sql`CREATE INDEX fts_docs_tsv ON fts_docs USING GIN (tsv)`
      yield* sql`ALTER TABLE fts_docs ALTER COLUMN tsv SET STATISTICS 0`
      yield* sql`INSERT INTO fts_docs ${sql.insert([
        { id: 1, body: "The runners were running through the park" },
        { id: 2, body: "Cats and dogs sleep all day" },
        { id: 3, body: "A quick brown fox jumps over the lazy dog" },
        { id: 4, body: "Running cats, running dogs, running everywhere" }
      ])}`
      const search = (query: string) =>
        Effect.map(
          sql<{ readonly id: number }>`SELECT id FROM fts_docs
            WHERE tsv @@ websearch_to_tsquery('english', ${query})
            ORDER BY ts_rank(tsv, websearch_to_tsquery('english', ${query})) DESC, id`,
          (rows) => rows.map((row) => row.id)
        )
      expect(yield* search("run")).toEqual([4, 1])
      expect(yield* search("run -cats")).toEqual([1])
      expect(yield* search('"brown fox"')).toEqual([3])
      expect([...(yield* search("dog or park"))].sort((a, b) => a - b)).toEqual([1, 2, 3, 4])
      expect(yield* search("zebra")).toEqual([])
      const plan = yield* sql.withTransaction(
        Effect.zipRight(
          sql`SET LOCAL enable_seqscan = off`,
          sql`EXPLAIN SELECT id FROM fts_docs WHERE tsv @@ websearch_to_tsquery('english', ${"fox"})`.values
        )
      )
      expect(plan.flat().join("\n")).toContain("Bitmap Index Scan on fts_docs_tsv")
    })
  )
})
