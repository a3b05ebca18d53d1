/**
 * JSON Schemas of the tools, derived from Effect Schemas with `JSONSchema.make` and made
 * self-contained for MCP clients: every `$ref` into `$defs` is replaced by the definition it names
 * (clients and models read one object, and some clients resolve no references), an `allOf` of one
 * schema (how Effect wraps a field with a default) becomes that schema, `$schema` and the `title`s
 * Effect derives from filters (`maxLength(2048)`, `int`) are dropped, and the top level is an
 * object, as MCP requires of `inputSchema` and `outputSchema`.
 */
import { JSONSchema, type Schema } from "effect"

/** A JSON Schema as MCP carries it: an object at the top level. */
export interface ObjectJsonSchema {
  readonly type: "object"
  readonly [keyword: string]: unknown
}

type Json = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const defName = (ref: unknown): string | undefined =>
  typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined

/** A schema with every reference into `defs` replaced by its definition. */
const inline = (schema: unknown, defs: Json, seen: ReadonlyArray<string>): unknown => {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, defs, seen))
  if (!isObject(schema)) return schema
  const name = defName(schema.$ref)
  if (name !== undefined) {
    // A recursive definition (none of the tools has one) stays open rather than unbounded.
    if (seen.includes(name)) return {}
    const { $ref: _ref, ...rest } = schema
    return inline({ ...(defs[name] as Json | undefined), ...rest }, defs, [...seen, name])
  }
  // `allOf` of one schema (Effect's wrapper of a field with a default): that schema itself.
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && isObject(schema.allOf[0])) {
    const { allOf: _allOf, ...rest } = schema
    return inline({ ...schema.allOf[0], ...rest }, defs, seen)
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema" || key === "$defs" || key === "$id" || key === "title") continue
    out[key] =
      key === "properties" && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, field]) => [name, inline(field, defs, seen)]))
        : inline(value, defs, seen)
  }
  return out
}

/** The self-contained JSON Schema of a schema's encoded form, an object at the top level. */
export const objectJsonSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): ObjectJsonSchema => {
  const document = JSONSchema.make(schema) as unknown as Json
  const defs = isObject(document.$defs) ? document.$defs : {}
  const inlined = inline(document, defs, []) as Json
  // The struct without fields is Effect's `{}` type, `anyOf: [object, array]`. Model vendors refuse
  // a combinator at the top of a tool's schema (Anthropic, Bedrock, Gemini) and want its
  // `properties`, so it is the object without properties that it means as a tool's arguments.
  if (isEmptyStruct(inlined)) return { type: "object", properties: {}, additionalProperties: false }
  return { ...inlined, type: "object" }
}

/** Effect's JSON Schema of `Schema.Struct({})`: any object or array, no properties. */
const isEmptyStruct = (schema: Json): boolean =>
  Array.isArray(schema.anyOf) &&
  schema.properties === undefined &&
  schema.anyOf.every(
    (branch) => isObject(branch) && Object.keys(branch).length === 1 && branch.properties === undefined
  )
