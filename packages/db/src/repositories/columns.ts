/**
 * Schemas of column values as both drivers return them (node-postgres and the PGlite client parse
 * alike): `timestamptz` as a `Date`, `bigint` as a decimal string, `jsonb` as a parsed value. Rows
 * are decoded with these at the repository boundary, and values encoded with them on the way in.
 */
import { Transcript } from "@verbatim/domain"
import { DateTime, Effect, ParseResult, Schema, String as Str } from "effect"

/** A `timestamptz` column: a `Date` from the driver, a `DateTime.Utc` in the program. */
export const Timestamp = Schema.DateTimeUtcFromDate

/** A `bigint` column holding a safe integer (the drivers return int8 as text). */
export const Int8 = Schema.NumberFromString.pipe(
  Schema.filter((n) => Number.isSafeInteger(n), { message: () => "expected a safe integer" })
)

/** An `integer` or `bigint` column decoded to a value of `schema`. */
export const Int8As = <A extends number, R>(schema: Schema.Schema<A, number, R>) =>
  Schema.compose(Int8, schema)

/**
 * Columns of `table` (a table or a CTE), each selected under its field's name (`snakeToCamel`, the
 * client's naming: `page.video_id AS "videoId"`), for rows read without the client's renaming of
 * every key of every row (the direct lane's rows, and `withoutTransform`).
 */
export const asFields = (table: string, columns: string): string =>
  columns
    .split(",")
    .map((column) => column.trim())
    .map((column) => {
      const field = Str.snakeToCamel(column)
      return field === column ? `${table}.${column}` : `${table}.${column} AS "${field}"`
    })
    .join(", ")

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

const SegmentList = Schema.Array(Transcript.Segment)
const encodeSegmentList = ParseResult.encodeUnknown(SegmentList)

/**
 * Segments from the JSON text this service wrote of them (`segments_json`), read as `StoredSegments`
 * reads the `jsonb` column. The text is ours: text that does not parse is a defect.
 */
export const parseStoredSegments = (json: Transcript.SegmentsJson): ReadonlyArray<Transcript.Segment> =>
  Transcript.decodeSegmentsJson(json)

/**
 * A `jsonb` column of segments as this service writes them (every write encodes them with
 * `Schema.Array(Segment)`): read back as `Segment`s without checking every field again. Validating
 * the 80-odd segments of a transcript field by field cost more than a third of a millisecond per
 * read of an owned transcript, the hot path of POST /transcribe. Anything but an array
 * is still refused.
 */
export const StoredSegments: Schema.Schema<
  ReadonlyArray<Transcript.Segment>,
  unknown
> = Schema.transformOrFail(
  Schema.Unknown,
  Schema.declare(
    (value): value is ReadonlyArray<Transcript.Segment> =>
      Array.isArray(value) && value.every((segment) => segment instanceof Transcript.Segment),
    { identifier: "Segments" }
  ),
  {
    strict: true,
    decode: (value, _, ast) =>
      Array.isArray(value)
        ? ParseResult.succeed(Transcript.segmentsOfEncoded(value))
        : ParseResult.fail(new ParseResult.Type(ast, value, "expected the stored array of segments")),
    encode: (segments) => encodeSegmentList(segments)
  }
)
