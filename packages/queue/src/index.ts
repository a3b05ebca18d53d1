/**
 * @verbatim/queue: the work queue and the rate limiter, in memory (the embedded default) and on
 * Redis (many servers and workers), each pair behind one port of `@verbatim/core` and one test suite.
 */
export * from "./rate-limiter/index.js"
export * from "./redis/connection.js"
export * from "./redis/settings.js"
export * from "./work-queue/index.js"
