/**
 * The tool-schema rules the model vendors publish, written as data: a tool's input schema must be
 * accepted by every one of them, so the strictest rule of each wins.
 *
 * OpenAI's strict mode ("Structured Outputs" for function calling: every property in `required`,
 * optional ones typed with null, `additionalProperties: false` on every object) is NOT applied: it
 * is an opt-in (`strict: true`) of the caller, MCP clients do not set it for a server's tools, and
 * our optional arguments with defaults (page, limit, max_chars) would all become required-nullable,
 * which changes what a model must send. The non-strict OpenAI rules (below) apply.
 */

type Json = { readonly [key: string]: unknown }

export interface VendorRules {
  readonly vendor: string
  /** Where the rule is published. */
  readonly source: string
  /** The top level must be `type: "object"`. */
  readonly topLevelObject: boolean
  /** Keywords refused at the top level. */
  readonly topLevelForbidden: ReadonlyArray<string>
  /** Keywords a schema node may carry (any other is refused); undefined: any JSON Schema keyword. */
  readonly keywords?: ReadonlyArray<string>
  /** Keywords refused anywhere. */
  readonly forbidden: ReadonlyArray<string>
  /** Formats accepted, by type; undefined: any format. */
  readonly formats?: { readonly [type: string]: ReadonlyArray<string> }
  /** Types accepted. */
  readonly types?: ReadonlyArray<string>
  /** Every `type: "object"` node names its `properties`. */
  readonly objectsNameProperties: boolean
}

export const vendorRules: ReadonlyArray<VendorRules> = [
  {
    vendor: "MCP tools/list (inputSchema is a JSON Schema)",
    // modelcontextprotocol.io, specification 2025-06-18, "Tools" › Tool: `inputSchema` is "a JSON
    // Schema object defining the expected parameters"; OpenAPI 3.0's `nullable` is not a JSON
    // Schema keyword (JSON Schema says null with `type: "null"` or a union).
    source: "https://modelcontextprotocol.io/specification/2025-06-18/server/tools",
    topLevelObject: true,
    topLevelForbidden: [],
    forbidden: ["nullable"],
    objectsNameProperties: false
  },
  {
    vendor: "Anthropic",
    // docs.anthropic.com, "Tool use" › input_schema: a JSON Schema object; "input_schema does not
    // support oneOf, allOf, or anyOf at the top level".
    source: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
    topLevelObject: true,
    topLevelForbidden: ["oneOf", "allOf", "anyOf", "not", "$ref"],
    forbidden: ["$defs", "definitions"],
    objectsNameProperties: false
  },
  {
    vendor: "Amazon Bedrock (Converse toolSpec.inputSchema.json)",
    // docs.aws.amazon.com, Bedrock "ToolInputSchema": a JSON Schema; Claude on Bedrock takes the
    // same input_schema rules as Anthropic's API (no top-level combinators).
    source: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolInputSchema.html",
    topLevelObject: true,
    topLevelForbidden: ["oneOf", "allOf", "anyOf", "not", "$ref"],
    forbidden: ["$defs", "definitions"],
    objectsNameProperties: false
  },
  {
    vendor: "OpenAI function calling (non-strict)",
    // platform.openai.com, "Function calling": parameters is a JSON Schema object; the API refuses
    // "object schema missing properties" and a top-level combinator ("schema must be a JSON Schema
    // of 'type: "object"', got 'type: "None"'").
    source: "https://platform.openai.com/docs/guides/function-calling",
    topLevelObject: true,
    topLevelForbidden: ["oneOf", "allOf", "anyOf", "not", "enum"],
    forbidden: ["$defs", "definitions", "$ref"],
    objectsNameProperties: true
  },
  {
    vendor: "Gemini function declarations",
    // ai.google.dev, "Function calling" › FunctionDeclaration.parameters: "a select subset of an
    // OpenAPI 3.0 schema object"; the Schema reference lists the fields below (no $ref, no
    // examples, no exclusiveMinimum, no additionalProperties; types STRING, NUMBER, INTEGER,
    // BOOLEAN, ARRAY, OBJECT; "null" only as nullable); formats: "enum" and "date-time" for
    // strings, "int32"/"int64" for integers, "float"/"double" for numbers.
    source: "https://ai.google.dev/api/caching#Schema",
    topLevelObject: true,
    topLevelForbidden: ["oneOf", "allOf", "anyOf", "not"],
    keywords: [
      "type",
      "format",
      "title",
      "description",
      "nullable",
      "enum",
      "maxItems",
      "minItems",
      "properties",
      "required",
      "minProperties",
      "maxProperties",
      "minLength",
      "maxLength",
      "pattern",
      "anyOf",
      "default",
      "items",
      "minimum",
      "maximum"
    ],
    forbidden: ["$ref", "$defs", "examples", "exclusiveMinimum", "exclusiveMaximum", "additionalProperties"],
    formats: { string: ["enum", "date-time"], integer: ["int32", "int64"], number: ["float", "double"] },
    types: ["string", "number", "integer", "boolean", "array", "object"],
    objectsNameProperties: true
  }
]

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The breaches of one vendor's rules by a tool's input schema, each with its path. */
export const breaches = (rules: VendorRules, schema: Json): ReadonlyArray<string> => {
  const found: Array<string> = []
  if (rules.topLevelObject && schema.type !== "object") found.push("top-level type is not object")
  for (const keyword of rules.topLevelForbidden) {
    if (keyword in schema) found.push(`top-level ${keyword}`)
  }
  const walk = (node: unknown, path: string): void => {
    if (!isObject(node)) return
    const at = path || "(top)"
    for (const key of Object.keys(node)) {
      if (rules.forbidden.includes(key)) found.push(`${key} at ${at}`)
      else if (rules.keywords !== undefined && !rules.keywords.includes(key))
        found.push(`keyword ${key} at ${at}`)
    }
    if (rules.types !== undefined && node.type !== undefined && !rules.types.includes(String(node.type))) {
      found.push(`type ${JSON.stringify(node.type)} at ${at}`)
    }
    if (rules.formats !== undefined && node.format !== undefined) {
      const allowed = rules.formats[String(node.type)] ?? []
      if (!allowed.includes(String(node.format))) found.push(`format ${String(node.format)} at ${at}`)
    }
    if (rules.objectsNameProperties && node.type === "object" && !isObject(node.properties)) {
      found.push(`object without properties at ${at}`)
    }
    const properties = isObject(node.properties) ? node.properties : {}
    for (const name of Array.isArray(node.required) ? node.required : []) {
      if (!(String(name) in properties)) found.push(`required ${String(name)} is no property at ${at}`)
    }
    for (const [name, field] of Object.entries(properties)) walk(field, path ? `${path}.${name}` : name)
    if (node.items !== undefined) walk(node.items, `${path}[]`)
    for (const combinator of ["anyOf", "oneOf", "allOf"]) {
      const branches = node[combinator]
      if (!Array.isArray(branches)) continue
      for (const [index, branch] of branches.entries()) walk(branch, `${at}.${combinator}[${index}]`)
    }
  }
  walk(schema, "")
  return found
}
