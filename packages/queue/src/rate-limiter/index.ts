/** Rate limiter implementations of core's `RateLimiter` port. */
export * as MemoryRateLimiter from "./memory.js"
export * as RedisRateLimiter from "./redis.js"
