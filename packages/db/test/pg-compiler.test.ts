/**
 * The PGlite client's statement compiler (`src/pg-compiler.ts`, which spares a process on PGlite
 * from loading node-postgres) compiles every statement form exactly as `@effect/sql-pg`'s does:
 * the same text and the same parameters, with and without the name transforms, for identifiers,
 * values, `in` lists, inserts (one row or many, with `RETURNING`), record updates (single and from
 * a `values` list), `and`/`or` clauses and JSON parameters.
 */
import * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, String as Str } from "effect"
import { makePgCompiler, PgJson } from "../src/pg-compiler.js"

/** Statements are only compiled here, never run. */
const makeSql = () =>
  Statement.make(Effect.dieMessage("compiled, never run"), makePgCompiler(), [], undefined)
type Sql = ReturnType<typeof makeSql>
/** A statement made anew for each compile: a statement keeps its first compiled form. */
type Build = (sql: Sql) => Statement.Fragment

const names = fc.constantFrom("accountId", "created_at", "videoID", 'odd"name', "x")
const plain = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true })
)
const value = fc.oneof(
  plain.map((v) => () => v),
  fc.jsonValue({ maxDepth: 2 }).map((v) => () => PgJson(v))
)

/** Rows that share their columns, as an insert of many rows needs. */
const rows = fc
  .uniqueArray(names, { minLength: 1, maxLength: 4 })
  .chain((columns) =>
    fc
      .array(fc.tuple(...columns.map(() => value)), { minLength: 1, maxLength: 3 })
      .map(
        (tuples) => () =>
          tuples.map((tuple) => Object.fromEntries(columns.map((column, i) => [column, tuple[i]?.()])))
      )
  )

const condition = fc.oneof(
  fc.tuple(names, value).map(
    ([name, v]): Build =>
      (sql) =>
        sql`${sql(name)} = ${v()}`
  ),
  fc.tuple(names, fc.array(plain, { minLength: 1, maxLength: 4 })).map(
    ([name, vs]): Build =>
      (sql) =>
        sql.in(name, vs)
  ),
  fc.tuple(names, fc.array(plain, { minLength: 1, maxLength: 4 })).map(
    ([name, vs]): Build =>
      (sql) =>
        sql`${sql(name)} IN ${sql.in(vs)}`
  )
)
const where = fc.oneof(
  condition,
  fc.array(condition, { minLength: 1, maxLength: 3 }).map(
    (cs): Build =>
      (sql) =>
        sql.and(cs.map((c) => c(sql)))
  ),
  fc.array(condition, { minLength: 1, maxLength: 3 }).map(
    (cs): Build =>
      (sql) =>
        sql.or(cs.map((c) => c(sql)))
  )
)
const returning = fc.option(fc.constantFrom("*", "id"), { nil: undefined })

const statement = fc.oneof(
  fc.tuple(names, where).map(
    ([table, w]): Build =>
      (sql) =>
        sql`SELECT ${sql(table)} FROM t WHERE ${w(sql)}`
  ),
  fc.tuple(rows, returning).map(
    ([rs, r]): Build =>
      (sql) => {
        const made = rs()
        const insert = made.length === 1 && made[0] !== undefined ? sql.insert(made[0]) : sql.insert(made)
        return sql`INSERT INTO t ${r === undefined ? insert : insert.returning(r)}`
      }
  ),
  fc.tuple(rows, where, returning).map(
    ([rs, w, r]): Build =>
      (sql) => {
        const update = sql.update(rs()[0] ?? {})
        return sql`UPDATE t SET ${r === undefined ? update : update.returning(r)} WHERE ${w(sql)}`
      }
  ),
  fc.tuple(rows, returning).map(
    ([rs, r]): Build =>
      (sql) => {
        const update = sql.updateValues(rs(), "v")
        return sql`UPDATE t SET x = v.x FROM ${r === undefined ? update : update.returning(r)} WHERE t.id = v.id`
      }
  )
)

const settings = fc.record({
  transform: fc.constantFrom(undefined, Str.camelToSnake),
  transformJson: fc.boolean(),
  withoutTransform: fc.boolean()
})

/**
 * What compiling gives, or the error it throws: renaming the keys inside JSON values
 * (`transformJson`, which Verbatim leaves off) throws on a `null` in an array in `@effect/sql`'s
 * own transform, and must throw the same way here.
 */
const outcome = (compile: () => unknown) => {
  try {
    return { compiled: compile() }
  } catch (error) {
    return { threw: String(error) }
  }
}

describe("the PGlite client's statement compiler", () => {
  it("compiles every statement as @effect/sql-pg's compiler does: the same text, the same parameters", () => {
    fc.assert(
      fc.property(statement, settings, (build, { transform, transformJson, withoutTransform }) => {
        const ours = outcome(() =>
          makePgCompiler(transform, transformJson).compile(build(makeSql()), withoutTransform)
        )
        const theirs = outcome(() =>
          PgClient.makeCompiler(transform, transformJson).compile(build(makeSql()), withoutTransform)
        )
        expect(ours).toEqual(theirs)
      }),
      { numRuns: 300 }
    )
  })
})
