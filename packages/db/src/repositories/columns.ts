/**
 * Schemas of column values as both drivers return them (node-postgres and the PGlite client parse
 * alike): `timestamptz` as a `Date`, `bigint` as a decimal string, `jsonb` as a parsed value. Rows
 * are decoded with these at the repository boundary, and values encoded with them on the way in.
 */
import { DateTime, Effect, type ParseResult, Schema } from "effect"

/** A `timestamptz` column: a `Date` from the driver, a `DateTime.Utc` in the program. */
export const Timestamp = Schema.DateTimeUtcFromDate

/** A `bigint` column holding a safe integer (the drivers return int8 as text). */
export const Int8 = Schema.NumberFromString.pipe(
  Schema.filter((n) => Number.isSafeInteger(n), { message: () => "expected a safe integer" })
)

/** An `integer` or `bigint` column decoded to a value of `schema`. */
export const Int8As = <A extends number, R>(schema: Schema.Schema<A, number, R>) =>
  Schema.compose(Int8, schema)

/** A `timestamptz` parameter. */
export const toDate = (at: DateTime.Utc): Date => DateTime.toDateUtc(at)

/** A `timestamptz` parameter that may be null. */
export const toNullableDate = (at: DateTime.Utc | null): Date | null => (at === null ? null : toDate(at))

/**
 * The JSON text of a value encoded with `schema`, for a `jsonb` parameter (node-postgres would send a
 * JavaScript array as a PostgreSQL array, so every JSON value goes as text).
 */
export const jsonText = <A, I>(
  schema: Schema.Schema<A, I>,
  value: A
): Effect.Effect<string, ParseResult.ParseError> =>
  Effect.map(Schema.encode(schema)(value), (encoded) => JSON.stringify(encoded))

/** Like `jsonText`, keeping null as SQL NULL. */
export const nullableJsonText = <A, I>(
  schema: Schema.Schema<A, I>,
  value: A | null
): Effect.Effect<string | null, ParseResult.ParseError> =>
  value === null ? Effect.succeed(null) : jsonText(schema, value)
