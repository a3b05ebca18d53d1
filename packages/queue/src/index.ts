/**
 * @verbatim/queue: the work queue, the rate limiter, the egress budget and the shared cache, in memory (the embedded default) and on
 * Redis (many servers and workers), each pair behind one port of `@verbatim/core` and one test suite.
 */
export * from "./fleet/index.js"
export * from "./rate-limiter/index.js"
export * from "./redis/connection.js"
export * from "./redis/settings.js"
export * from "./work-queue/index.js"
