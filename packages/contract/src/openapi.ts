/**
 * Touches applied to the generated OpenAPI document:
 * - paths are written relative to `{base_url}` (`/ping`, not `/api/v2/ping`), as the spec writes
 *   them, with one templated server, `{origin}/api/v2` (tools such as Prism ignore a relative URL);
 * - objects are open: no `additionalProperties: false`. The server ignores unknown request fields,
 *   and a response may gain fields (additive changes), so a validating client must not refuse them;
 * - the platform's built-in `HttpApiDecodeError` is removed (and a 400 response that could only
 *   carry it): the server answers every rejected request with the API's own 400 body
 *   (`invalid_request`), described by the error schema left in its place;
 * - the rate limit headers are documented on the responses of authenticated operations, and
 *   `Retry-After` on their 429 and 503;
 * - the bearer key is the document's default `security` (the unauthenticated operations say `[]`);
 * - every operation with a body documents the 413 of the body limit;
 * - the schema generator's internal wording is replaced by what a reader of the API needs: query
 *   integers and booleans (sent as text, typed as what they mean: `page` and `limit` are integers
 *   with their ranges and defaults), `date-time` on every date, and no filter names as titles or
 *   descriptions that only repeat a constraint (`maxLength(2048)`, "an integer").
 */
import { Plan } from "@verbatim/domain"
import { basePath } from "./base.js"

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const builtInSchemas: ReadonlyArray<string> = ["HttpApiDecodeError", "Issue", "PropertyKey"]
const refTo = (name: string) => `#/components/schemas/${name}`
const builtInRefs = new Set(builtInSchemas.map(refTo))

const isBuiltInRef = (schema: unknown): boolean =>
  isObject(schema) && typeof schema.$ref === "string" && builtInRefs.has(schema.$ref)

const mentionsBuiltIn = (media: unknown): boolean =>
  isObject(media) &&
  (isBuiltInRef(media.schema) ||
    (isObject(media.schema) && Array.isArray(media.schema.anyOf) && media.schema.anyOf.some(isBuiltInRef)))

/** A response schema without the built-in decode error: `anyOf` members dropped, a lone one unwrapped. */
const withoutBuiltIn = (schema: unknown): unknown => {
  if (!isObject(schema) || !Array.isArray(schema.anyOf)) return schema
  const members = schema.anyOf.filter((member) => !isBuiltInRef(member))
  if (members.length === 1 && Object.keys(schema).length === 1) return members[0]
  return { ...schema, anyOf: members }
}

const mapObject = (value: unknown, f: (entry: unknown, key: string) => unknown): unknown =>
  isObject(value)
    ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, f(entry, key)]))
    : value

/** The description of the component a schema refers to, if it is a plain reference. */
const componentDescription = (schemas: Json, schema: unknown): string | undefined => {
  if (!isObject(schema) || typeof schema.$ref !== "string") return undefined
  const component = schemas[schema.$ref.replace("#/components/schemas/", "")]
  return isObject(component) && typeof component.description === "string" ? component.description : undefined
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } })

const rateLimitHeaders = {
  "RateLimit-Limit": integerHeader(
    "Requests the account's bucket holds (one second of its plan's rate, at least 2)"
  ),
  "RateLimit-Remaining": integerHeader("Requests left in the bucket after this one"),
  "RateLimit-Reset": integerHeader("Seconds until the bucket is full again")
}

const retryAfter = { "Retry-After": integerHeader("Seconds to wait before sending again") }

const cleanResponse = (schemas: Json, secured: boolean) => (response: unknown, status: string) => {
  if (!isObject(response)) return response
  const content = response.content
  const hadBuiltIn = isObject(content) && Object.values(content).some(mentionsBuiltIn)
  const cleaned = isObject(content)
    ? mapObject(content, (media) =>
        isObject(media) ? { ...media, schema: withoutBuiltIn(media.schema) } : media
      )
    : content
  const first = isObject(cleaned) ? Object.values(cleaned)[0] : undefined
  const description = hadBuiltIn && isObject(first) ? componentDescription(schemas, first.schema) : undefined
  const headers =
    !secured || status === "401"
      ? status === "503"
        ? retryAfter
        : {}
      : status === "429" || status === "503"
        ? { ...rateLimitHeaders, ...retryAfter }
        : rateLimitHeaders
  return {
    ...response,
    ...(description === undefined ? {} : { description }),
    ...(cleaned === undefined ? {} : { content: cleaned }),
    ...(Object.keys(headers).length === 0
      ? {}
      : { headers: { ...headers, ...(isObject(response.headers) ? response.headers : {}) } })
  }
}

/** A response that can only carry the built-in error (an endpoint with nothing to decode). */
const onlyBuiltIn = (response: unknown): boolean =>
  isObject(response) &&
  isObject(response.content) &&
  Object.values(response.content).every((media) => isObject(media) && isBuiltInRef(media.schema))

const cleanOperation =
  (schemas: Json) =>
  (operation: unknown): unknown => {
    if (!isObject(operation) || !isObject(operation.responses)) return operation
    const secured = Array.isArray(operation.security) && operation.security.length > 0
    const responses = Object.entries(operation.responses)
      .filter(([, response]) => !onlyBuiltIn(response))
      .map(([status, response]) => [status, cleanResponse(schemas, secured)(response, status)] as const)
    return { ...operation, responses: Object.fromEntries(responses) }
  }

const relativePath = (path: string): string =>
  path === basePath ? "/" : path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : path

/**
 * Schemas that may be left with no reference once the document is cleaned: the built-in ones, and
 * `DateTimeInput`, which only query parameters use (written out inline by `cleanParameter`).
 */
const droppableSchemas: ReadonlyArray<string> = [...builtInSchemas, "DateTimeInput"]

/** Drops the droppable schemas nothing refers to any more (repeated: they refer to each other). */
const dropUnusedBuiltIns = (document: Json, schemas: Json): Json => {
  const { components: _, ...rest } = document
  const candidates = droppableSchemas.filter((name) => name in schemas)
  const referenced = (name: string) =>
    JSON.stringify([rest, Object.entries(schemas).filter(([key]) => key !== name)]).includes(
      `"${refTo(name)}"`
    )
  const unused = candidates.find((name) => !referenced(name))
  if (unused === undefined) return schemas
  const { [unused]: _dropped, ...kept } = schemas
  return dropUnusedBuiltIns(document, kept)
}

/** The schema of a query parameter, as what it means rather than the text it is sent as. */
const queryParameters: Record<string, Json> = {
  page: {
    type: "integer",
    minimum: Plan.page.min,
    maximum: Plan.page.max,
    default: Plan.page.default,
    description: `Page number, ${Plan.page.min} to ${Plan.page.max}`
  },
  limit: {
    type: "integer",
    minimum: Plan.pageLimit.min,
    maximum: Plan.pageLimit.max,
    default: Plan.pageLimit.default,
    description: `Items per page, ${Plan.pageLimit.min} to ${Plan.pageLimit.max}`
  }
}

const refName = (schema: unknown): string | undefined =>
  isObject(schema) && typeof schema.$ref === "string"
    ? schema.$ref.replace("#/components/schemas/", "")
    : undefined

const dateTime: Json = {
  type: "string",
  format: "date-time",
  description: "An ISO 8601 date-time in UTC, such as 2026-11-24T10:00:00.000Z"
}

/** Components whose generated form speaks of decoding: what they are on the wire instead. */
const plainComponents: Record<string, Json> = {
  DateTimeUtc: dateTime,
  BooleanFromString: { type: "boolean" },
  NumberFromString: { type: "number" }
}

const boundedQuery = (bounds: Plan.Bounds, description: string): Json => ({
  type: "integer",
  minimum: bounds.min,
  maximum: bounds.max,
  default: bounds.default,
  description: `${description}, ${bounds.min} to ${bounds.max}`
})

/** Query parameters that mean something else on one path than `queryParameters` says. */
const pathQueryParameters: Record<string, Record<string, Json>> = {
  "/playlists/history": { limit: boundedQuery(Plan.channelHistoryLimit, "How many playlist batches") },
  "/channels/history": { limit: boundedQuery(Plan.channelHistoryLimit, "How many channel batches") },
  "/recommendations/videos": {
    limit: boundedQuery(Plan.recommendationsLimit, "How many videos"),
    channels: boundedQuery(Plan.recommendationsChannels, "How many of the most transcribed channels")
  }
}

const cleanParameter =
  (path: string) =>
  (parameter: unknown): unknown => {
    if (!isObject(parameter) || parameter.in !== "query" || typeof parameter.name !== "string")
      return parameter
    const known = pathQueryParameters[path]?.[parameter.name] ?? queryParameters[parameter.name]
    const ref = refName(parameter.schema)
    if (known !== undefined && (ref === "NumberFromString" || ref === undefined)) {
      const { description, ...schema } = known
      return { ...parameter, description, schema }
    }
    if (ref === "BooleanFromString") return { ...parameter, schema: { type: "boolean" } }
    if (ref === "DateTimeUtc" || ref === "DateTimeInput") {
      return {
        ...parameter,
        description: "A date-time (or a date, meaning its midnight in UTC), ISO 8601, in the years 1 to 9999",
        schema: { type: "string", format: "date-time" }
      }
    }
    return parameter
  }

/** Effect's filter names (`int`, `maxLength(2048)`) are not titles a reader needs. */
const filterTitle = /^[a-z][A-Za-z]*(\(.*\))?$/

/** Descriptions the generator derives from a constraint the schema states anyway. */
const constraintDescription =
  /^(an integer|a number|a non-negative number|a number greater than or equal to -?\d+|an array of at most \d+ item\(s\)|an array of at least \d+ item\(s\)|a string at most \d+ character\(s\) long|a string at least \d+ character\(s\) long|a non empty string)$/

const cleanSchema = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(cleanSchema)
  if (!isObject(value)) return value
  const entries = Object.entries(value)
    .filter(
      ([key, entry]) =>
        !(key === "title" && typeof entry === "string" && filterTitle.test(entry)) &&
        !(key === "description" && typeof entry === "string" && constraintDescription.test(entry))
    )
    .map(([key, entry]) => [
      key,
      key === "description" && entry === "a Universally Unique Identifier" ? "A UUID" : cleanSchema(entry)
    ])
  return Object.fromEntries(entries)
}

const payloadTooLarge = "PayloadTooLargeError"

/**
 * The 413 every operation with a body can answer: after authentication (a request without a valid
 * key is 401 before its body is read), so with the rate limit headers on a secured operation.
 */
const withBodyLimit = (operation: unknown): unknown =>
  isObject(operation) && operation.requestBody !== undefined && isObject(operation.responses)
    ? {
        ...operation,
        responses: {
          ...operation.responses,
          "413": {
            description: "Status 413: error is request_too_large (the body is over 1 MiB)",
            ...(Array.isArray(operation.security) && operation.security.length > 0
              ? { headers: rateLimitHeaders }
              : {}),
            content: { "application/json": { schema: { $ref: refTo(payloadTooLarge) } } }
          }
        }
      }
    : operation

/** The 413 body's schema, shaped as every error body is (from the 400 one). */
const payloadTooLargeSchema = (schemas: Json): Json | undefined => {
  const template = schemas.BadRequestError
  if (!isObject(template) || !isObject(template.properties)) return undefined
  return {
    ...template,
    description: "Status 413: error is request_too_large",
    properties: { ...template.properties, error: { type: "string", enum: ["request_too_large"] } }
  }
}

const withParameters =
  (path: string) =>
  (operation: unknown): unknown =>
    isObject(operation) && Array.isArray(operation.parameters)
      ? { ...operation, parameters: operation.parameters.map(cleanParameter(path)) }
      : operation

/** The document's server: the API under the origin a tool is pointed at (`http://localhost:3000` by default). */
export const documentServers = [
  {
    url: `{origin}${basePath}`,
    description: "A Verbatim server",
    variables: {
      origin: { default: "http://localhost:3000", description: "The server's origin: scheme, host and port" }
    }
  }
]

/** Every object schema open to fields it does not name: `additionalProperties: false` dropped. */
const open = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(open)
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(key === "additionalProperties" && item === false))
      .map(([key, item]) => [key, open(item)])
  )
}

export const transformDocument = (document: Json): Json => open(relocate(document)) as Json

const relocate = (document: Json): Json => {
  const components = isObject(document.components) ? document.components : {}
  const schemas = isObject(components.schemas) ? components.schemas : {}
  const paths = isObject(document.paths) ? document.paths : {}
  const relocated: Json = {
    ...document,
    servers: documentServers,
    security: [{ bearer: [] }],
    paths: Object.fromEntries(
      Object.entries(paths).map(([path, item]) => [
        relativePath(path),
        mapObject(item, (operation) =>
          cleanSchema(withBodyLimit(withParameters(relativePath(path))(cleanOperation(schemas)(operation))))
        )
      ])
    )
  }
  const tooLarge = payloadTooLargeSchema(schemas)
  const kept = {
    ...dropUnusedBuiltIns(relocated, schemas),
    ...(tooLarge === undefined ? {} : { [payloadTooLarge]: tooLarge })
  }
  const plain = Object.fromEntries(
    Object.entries(kept).map(([name, schema]) => [name, plainComponents[name] ?? cleanSchema(schema)])
  )
  const referenced = JSON.stringify(relocated)
  const used = Object.fromEntries(
    Object.entries(plain).filter(
      ([name]) =>
        !(name in plainComponents) ||
        referenced.includes(`"${refTo(name)}"`) ||
        JSON.stringify(plain).includes(`"${refTo(name)}"`)
    )
  )
  return { ...relocated, components: { ...components, schemas: used } }
}
