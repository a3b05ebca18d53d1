/**
 * @verbatim/contract: the Transcript Service API v2 as an `@effect/platform` HttpApi
 * (`VerbatimApi`): every endpoint, its schemas, error bodies and OpenAPI annotations, and a typed
 * client (`makeClient`). It depends on `effect`, `@effect/platform` and `@verbatim/domain` only, so
 * a program that calls a Verbatim server (or the MCP package) needs no server code; the handlers
 * live in `@verbatim/api`.
 */
export * from "./api.js"
export * from "./base.js"
export * from "./client.js"
export * from "./errors.js"
export * from "./exports.js"
export * from "./groups/batch.js"
export * from "./groups/collections.js"
export * from "./groups/credits.js"
export * from "./groups/health.js"
export * from "./groups/jobs.js"
export * from "./groups/themes.js"
export * from "./groups/transcribe.js"
export * from "./groups/transcript-pages.js"
export * from "./groups/transcripts.js"
export * from "./groups/uploads.js"
export * from "./groups/videos.js"
export * from "./idempotency.js"
export * from "./openapi.js"
export * from "./plain-words.js"
export * from "./query.js"
export * from "./security.js"
