/**
 * Field schemas that many API resources share: free-form JSON objects, http(s) URLs, the video
 * reference a caller sends, durations, relevance scores, and the query-string forms of integers
 * and booleans (query values arrive as strings).
 */
import { Schema } from "effect"

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

/** Text a database can store: no NUL character (PostgreSQL text refuses it). */
export const withoutNul = <S extends Schema.Schema<string, string>>(schema: S) =>
  schema.pipe(Schema.filter((s) => !s.includes("\u0000") || "must not contain the NUL character"))
