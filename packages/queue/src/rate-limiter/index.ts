/** Rate limiter implementations of core's `RateLimiter` port. */
export * as MemoryRateLimiter from "./memory.js"
