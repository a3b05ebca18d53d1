/** Webhooks: which addresses may be reached, the URL rule, and the retry schedule. */
export * from "./address.js"
export * from "./retry.js"
export * from "./url.js"
