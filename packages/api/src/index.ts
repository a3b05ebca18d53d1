/**
 * @verbatim/api: the server side of the Transcript Service API v2 whose contract is
 * `@verbatim/contract`: the handlers of its groups and the server layer (`HttpLive`), the
 * authentication middleware and request policy, the hot routes, the OAuth pages, metrics, the GPT
 * Actions document and the docs page.
 */
export * from "./body.js"
export * from "./errors.js"
export * from "./exports.js"
export * from "./failures.js"
export * from "./gpt.js"
export * from "./groups/index.js"
export { isSignedPut } from "./groups/uploads.js"
export * from "./http.js"
export * from "./mcp/http.js"
export * from "./mcp/origin.js"
export * from "./metrics.js"
export * from "./oauth.js"
export * from "./params.js"
export * from "./security.js"
export * from "./use-case.js"
export * from "./web-session.js"
