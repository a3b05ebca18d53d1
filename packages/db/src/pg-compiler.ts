/**
 * PostgreSQL's statement compiler for the PGlite client, without node-postgres: `@effect/sql-pg`
 * has its compiler in the module that loads node-postgres, and a process on PGlite should load no
 * driver it does not use. This is the same dialect, described to `@effect/sql`'s
 * `Statement.makeCompiler`: `$n` placeholders, identifiers quoted with `"`, record updates from a
 * `(values ...)` list, and JSON parameters (`PgJson`) passed as one value. A property test holds it
 * to `PgClient.makeCompiler`'s output for every statement form (`test/pg-compiler.test.ts`).
 */
import * as Statement from "@effect/sql/Statement"

/** A JSON parameter: one placeholder, its value passed whole (its keys renamed only when asked). */
export interface PgJson extends Statement.Custom<"PgJson", unknown> {}
export const PgJson = Statement.custom<PgJson>("PgJson")

const quote = Statement.defaultEscape('"')

/**
 * The compiler, with the query names' transform (`transformQueryNames`) and whether it also renames
 * the keys of JSON parameters (`transformJson`, default true).
 */
export const makePgCompiler = (
  transform?: ((name: string) => string) | undefined,
  transformJson = true
): Statement.Compiler => {
  const renameKeys =
    transform !== undefined && transformJson ? Statement.defaultTransforms(transform).value : undefined
  return Statement.makeCompiler<PgJson>({
    dialect: "pg",
    placeholder: (index) => `$${index}`,
    onIdentifier: (name, withoutTransform) =>
      quote(transform === undefined || withoutTransform ? name : transform(name)),
    onRecordUpdate: (placeholders, alias, columns, values, returning) => [
      `(values ${placeholders}) AS ${alias}${columns}${returning === undefined ? "" : ` RETURNING ${returning[0]}`}`,
      returning === undefined ? values.flat() : [...values.flat(), ...returning[1]]
    ],
    onCustom: (json, placeholder, withoutTransform) => [
      placeholder(undefined),
      [withoutTransform || renameKeys === undefined ? json.i0 : renameKeys(json.i0)]
    ]
  })
}
