/**
 * JSON Schemas of the tools, derived from Effect Schemas with `JSONSchema.make` and made
 * self-contained for MCP clients: every `$ref` into `$defs` is replaced by the definition it names
 * (clients and models read one object, and some clients resolve no references), an `allOf` of one
 * schema (how Effect wraps a field with a default) becomes that schema, `$schema` and the `title`s
 * Effect derives from filters (`maxLength(2048)`, `int`) are dropped, and the top level is an
 * object, as MCP requires of `inputSchema` and `outputSchema`.
 *
 * An input schema is then made one that every model vendor's tool API accepts (`vendorSafe`, the rules
 * pinned by `test/vendor-rules.ts`): keywords outside the strictest vendor's subset (Gemini's
 * OpenAPI 3.0 `Schema`) are translated into the description, so no meaning a model needs is lost:
 * `examples` become "e.g. …", `format: uuid`/`uri` become words (the long UUID pattern goes with
 * them), `exclusiveMinimum: 0` on an integer becomes `minimum: 1`, a union with `null` becomes
 * its other branch described "or null" (OpenAPI's `nullable` is not JSON Schema, which MCP's
 * `inputSchema` is; such a field is optional, so a model leaves it out), a union of strings
 * (`"auto"` or a language code) becomes one string described both ways, and
 * `additionalProperties` is dropped (the tools ignore extra arguments anyway).
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

/**
 * A tool's input schema: self-contained, a JSON Schema, and acceptable to every model vendor
 * (`vendorSafe`). Looser than the tool's decoder (a null where allowed is said in words only).
 */
export const inputJsonSchema = <A, I, R>(schema: Schema.Schema<A, I, R>): ObjectJsonSchema =>
  vendorSafe(objectJsonSchema(schema))

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

/** Formats the vendors accept (Gemini: `enum` and `date-time` for strings), others said in words. */
const formatWords: { readonly [format: string]: string } = {
  uuid: "a UUID",
  uri: "a URL",
  "date-time": "an ISO 8601 date and time",
  email: "an email address"
}

const withWords = (description: unknown, words: string): string =>
  typeof description === "string" && description.length > 0
    ? description.toLowerCase().includes(words.toLowerCase())
      ? description
      : `${description} (${words})`
    : words

const isNullBranch = (branch: unknown): boolean => isObject(branch) && branch.type === "null"

/** One node made acceptable to every vendor (see the module comment); children first. */
const vendorNode = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(vendorNode)
  if (!isObject(node)) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, vendorNode(field)]))
    } else if (key === "items" || key === "anyOf") out[key] = vendorNode(value)
    else out[key] = value
  }
  if (Array.isArray(out.anyOf)) {
    const branches = out.anyOf.filter((branch) => !isNullBranch(branch)) as Array<Json>
    const nullable = branches.length < out.anyOf.length
    const { anyOf: _anyOf, ...rest } = out
    let merged: Record<string, unknown> | undefined
    if (branches.length === 1) merged = { ...branches[0], ...rest }
    else if (
      branches.length > 1 &&
      branches.every((branch) => branch.type === "string" && branches[0]?.type === "string")
    ) {
      // `"auto"` or a language code: one string, its description naming every form.
      const forms = branches.map((branch) =>
        Array.isArray(branch.enum)
          ? branch.enum.map((v) => JSON.stringify(v)).join(" or ")
          : branch.description
      )
      merged = {
        type: branches[0]?.type,
        ...rest,
        description: withWords(rest.description, forms.join(", or "))
      }
    }
    if (merged !== undefined) {
      for (const key of Object.keys(out)) delete out[key]
      Object.assign(out, merged)
      if (nullable) out.description = withWords(out.description, "or null")
    }
  }
  if (Array.isArray(out.examples)) {
    out.description = withWords(out.description, `e.g. ${out.examples.map((v) => String(v)).join(", ")}`)
    delete out.examples
  }
  if (typeof out.format === "string" && out.format !== "date-time" && out.format !== "enum") {
    const words = formatWords[out.format]
    if (words !== undefined) out.description = withWords(out.description, words)
    if (out.format === "uuid") delete out.pattern
    delete out.format
  }
  if (typeof out.exclusiveMinimum === "number") {
    if (out.type === "integer" && out.minimum === undefined)
      out.minimum = Math.floor(out.exclusiveMinimum) + 1
    else out.description = withWords(out.description, `more than ${out.exclusiveMinimum}`)
    delete out.exclusiveMinimum
  }
  delete out.additionalProperties
  return out
}

/** A tool schema every vendor's tool API accepts, with the same meaning for a model. */
export const vendorSafe = (schema: ObjectJsonSchema): ObjectJsonSchema => {
  const safe = vendorNode(schema) as Json
  return { ...safe, type: "object", properties: isObject(safe.properties) ? safe.properties : {} }
}

/**
 * A field's schema with the descriptions inside it dropped, its own replaced: for a sub-schema
 * that one tool describes in full (asr_options on transcribe_video) and others name.
 */
export const namedOnly = (schema: ObjectJsonSchema, field: string, description: string): ObjectJsonSchema => {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const target = properties[field]
  if (target === undefined) return schema
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip)
    if (!isObject(node)) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "description") continue
      out[key] =
        key === "properties" && isObject(value)
          ? Object.fromEntries(Object.entries(value).map(([name, f]) => [name, strip(f)]))
          : key === "items"
            ? strip(value)
            : value
    }
    return out
  }
  return {
    ...schema,
    properties: { ...properties, [field]: { ...(strip(target) as Json), description } }
  }
}
