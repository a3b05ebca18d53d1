/**
 * Touches applied to the generated OpenAPI document:
 * - paths are written relative to `{base_url}` (`/ping`, not `/api/v2/ping`), as the spec writes
 *   them, with `servers: [{ url: "/api/v2" }]`;
 * - the platform's built-in `HttpApiDecodeError` is removed (and a 400 response that could only
 *   carry it): the server answers every rejected request with the API's own 400 body
 *   (`invalid_request`), described by the error schema left in its place;
 * - the rate limit headers are documented on the responses of authenticated operations, and
 *   `Retry-After` on their 429.
 */
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
      ? {}
      : status === "429"
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

/** Drops the built-in schemas nothing refers to any more (repeated: they refer to each other). */
const dropUnusedBuiltIns = (document: Json, schemas: Json): Json => {
  const { components: _, ...rest } = document
  const candidates = builtInSchemas.filter((name) => name in schemas)
  const referenced = (name: string) =>
    JSON.stringify([rest, Object.entries(schemas).filter(([key]) => key !== name)]).includes(
      `"${refTo(name)}"`
    )
  const unused = candidates.find((name) => !referenced(name))
  if (unused === undefined) return schemas
  const { [unused]: _dropped, ...kept } = schemas
  return dropUnusedBuiltIns(document, kept)
}

export const transformDocument = (document: Json): Json => {
  const components = isObject(document.components) ? document.components : {}
  const schemas = isObject(components.schemas) ? components.schemas : {}
  const paths = isObject(document.paths) ? document.paths : {}
  const relocated: Json = {
    ...document,
    servers: [{ url: basePath, description: "This server" }],
    paths: Object.fromEntries(
      Object.entries(paths).map(([path, item]) => [
        relativePath(path),
        mapObject(item, cleanOperation(schemas))
      ])
    )
  }
  return { ...relocated, components: { ...components, schemas: dropUnusedBuiltIns(relocated, schemas) } }
}
