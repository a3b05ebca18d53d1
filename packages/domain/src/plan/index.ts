/** Plans, their limits and the service-wide limits, with the pure helpers that enforce them. */
export * from "./batch-fetches.js"
export * from "./limits.js"
export * from "./pagination.js"
export * from "./plan.js"
export * from "./plan-limits.js"
export * from "./rate-bucket.js"
