/**
 * @verbatim/queue: the work queue, rate limiter and counters. This issue brings the in-memory
 * rate limiter (`MemoryRateLimiter.layer`); the Redis ones share its port and its tests.
 */
export * from "./rate-limiter/index.js"
