/** Work queue implementations of core's `WorkQueue` port. */
export * as Fairness from "./fairness.js"
export * as MemoryWorkQueue from "./memory.js"
export * as RedisWorkQueue from "./redis.js"
