/**
 * Field schemas that many API resources share: free-form JSON objects, http(s) URLs, the video
 * reference a caller sends, durations, relevance scores, and the query-string forms of integers
 * and booleans (query values arrive as strings).
 */
import { DateTime, Schema } from "effect"

/** Request options that make a decode report every issue, not only the first. */
export const allErrors = { parseOptions: { errors: "all" } } as const

/**
 * Class annotations of a request body: its description, its name and description on the encoded
 * side too (so the JSON Schema and OpenAPI documents name it even where decoding applies defaults),
 * and a decode that reports every issue.
 */
export const requestAnnotations = (identifier: string, description: string) =>
  [{ description }, { identifier, description, ...allErrors }] as const

const isJsonObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A free-form JSON object (`summary`, `mind_map`, `metadata`, error `details`, ...), kept as it is.
 *
 * Not a `Schema.Record`: decoding a record copies it key by key with assignment, and a key named
 * `__proto__` (which `JSON.parse` creates as an own property) then sets the copy's prototype
 * instead of a property, so the key vanished and the object no longer round-tripped. The object is
 * checked, never copied, so every own key survives exactly as the caller sent it.
 */
export const FreeFormObject = Schema.declare(isJsonObject, {
  identifier: "FreeFormObject",
  description: "A free-form JSON object",
  jsonSchema: { type: "object", additionalProperties: true },
  arbitrary: () => (fc) => fc.dictionary(fc.string(), fc.jsonValue()),
  pretty: () => (value) => JSON.stringify(value),
  equivalence: () => (a, b) => JSON.stringify(a) === JSON.stringify(b)
})
export type FreeFormObject = typeof FreeFormObject.Type

export const maxUrlLength = 2048

/** An absolute http or https URL (`webhook_url`, `signed_url`, `poll_url`, video and thumbnail URLs). */
export const HttpUrl = Schema.String.pipe(
  Schema.maxLength(maxUrlLength),
  Schema.pattern(/^https?:\/\/[^\s/?#]+\S*$/i)
).annotations({
  identifier: "HttpUrl",
  description: "An absolute http or https URL",
  jsonSchema: { format: "uri" },
  arbitrary: () => (fc) =>
    fc.webUrl({ withQueryParameters: true, withFragments: true }).filter((url) => url.length <= maxUrlLength)
})
export type HttpUrl = typeof HttpUrl.Type

/**
 * What a caller sends to name a video, playlist or channel: a URL or an id, parsed later by the
 * reference rules. Only its size is checked here.
 */
export const ReferenceInput = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(maxUrlLength)
).annotations({
  identifier: "ReferenceInput",
  description: "A URL or an id"
})

/** A duration or a count of minutes or seconds: a finite, non-negative number. */
export const NonNegativeNumber = Schema.Finite.pipe(Schema.nonNegative()).annotations({
  identifier: "NonNegativeNumber",
  description: "A finite, non-negative number (minutes or seconds)"
})

/** A relevance, share, rank or confidence from 0 to 1. */
export const UnitInterval = Schema.Number.pipe(Schema.between(0, 1)).annotations({
  identifier: "UnitInterval",
  description: "A number from 0 to 1"
})

/** A non-negative integer count. */
export const Count = Schema.NonNegativeInt.annotations({
  identifier: "Count",
  description: "A non-negative integer"
})

/** The earliest instant a date input may name: 0001-01-01T00:00:00Z. */
export const minDateInputMillis = -62_135_596_800_000
/** The latest instant a date input may name: 9999-12-31T23:59:59.999Z. */
export const maxDateInputMillis = 253_402_300_799_999

/**
 * A date-time a caller sends (`date_from`, `date_to`): ISO 8601, in the years 1 to 9999. JavaScript
 * reads dates out to the year 275760 either way, which the database cannot hold (PostgreSQL's
 * timestamps end at 4713 BC and 294276 AD): outside the four-digit years it is a 400, never a 500.
 */
export const DateTimeInput = Schema.DateTimeUtc.pipe(
  Schema.filter((date) => {
    const millis = DateTime.toEpochMillis(date)
    return (
      (millis >= minDateInputMillis && millis <= maxDateInputMillis) ||
      "must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"
    )
  })
).annotations({
  identifier: "DateTimeInput",
  description: "An ISO 8601 date-time (or a date, meaning its midnight in UTC), in the years 1 to 9999",
  arbitrary: () => (fc) =>
    fc
      .date({ min: new Date(minDateInputMillis), max: new Date(maxDateInputMillis), noInvalidDate: true })
      .map((date) => DateTime.unsafeFromDate(date))
})

/** A query-string integer: the decimal text of an integer that `schema` accepts. */
export const intFromString = <A extends number, I extends number>(schema: Schema.Schema<A, I>) =>
  Schema.compose(Schema.NumberFromString, Schema.typeSchema(schema))

/** A query-string integer with its default, applied when the parameter is omitted. */
export const intQuery = <A extends number, I extends number>(schema: Schema.Schema<A, I>, value: A) =>
  Schema.optionalWith(intFromString(schema), { default: () => value })

/** A query-string boolean (`true` or `false`) with its default. */
export const booleanQuery = (value: boolean) =>
  Schema.optionalWith(Schema.BooleanFromString, { default: () => value })

/**
 * An optional request field: may be left out or sent as `null`, and `null` means "not sent".
 * Encodes by leaving the field out.
 */
export const optionalField = <S extends Schema.Schema.All>(schema: S) =>
  Schema.optionalWith(schema, { exact: true, nullable: true })

/** An optional response field: absent where it does not apply. */
export const absentUnless = <S extends Schema.Schema.All>(schema: S) =>
  Schema.optionalWith(schema, { exact: true })

/** An optional query parameter. */
export const optionalQuery = <S extends Schema.Schema.All>(schema: S) =>
  Schema.optionalWith(schema, { exact: true })

/**
 * The `{video_id}` of the stored-transcript paths: a video id or, for uploads, an upload id —
 * letters, digits, `-` and `_`, 1 to 64 characters. Anything else can name no stored transcript.
 */
export const VideoKey = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/)).annotations({
  identifier: "VideoKey",
  description: "A video id, or an upload id for uploads",
  message: () => "a video id or upload id: 1 to 64 letters, digits, - and _"
})
