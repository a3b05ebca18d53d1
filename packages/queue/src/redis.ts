/**
 * `@verbatim/queue/redis`: the Redis work queue and rate limiter and their connection (BullMQ and
 * ioredis), the entry that the runtime loads with `import()` only when `REDIS_URL` is set.
 */

export * as RedisFleet from "./fleet/redis.js"
export * as RedisRateLimiter from "./rate-limiter/redis.js"
export * from "./redis/connection.js"
export * as RedisWorkQueue from "./work-queue/redis.js"
