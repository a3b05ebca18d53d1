/**
 * @verbatim/api: the Transcript Service API v2 as an `@effect/platform` HttpApi (`VerbatimApi`),
 * its handlers and server layer (`HttpLive`), the authentication middleware, the error schemas,
 * the OpenAPI document touches and a typed client (`makeClient`).
 */
export * from "./api.js"
export * from "./base.js"
export * from "./body.js"
export * from "./client.js"
export * from "./errors.js"
export * from "./exports.js"
export * from "./failures.js"
export * from "./gpt.js"
export * from "./groups/index.js"
export { isSignedPut } from "./groups/uploads.js"
export * from "./http.js"
export * from "./idempotency.js"
export * from "./metrics.js"
export * from "./oauth.js"
export * from "./openapi.js"
export * from "./query.js"
export * from "./security.js"
export * from "./use-case.js"
