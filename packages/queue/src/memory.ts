/**
 * `@verbatim/queue/memory`: the in-memory work queue and rate limiter (the embedded default) and the
 * Redis settings that choose between them and `@verbatim/queue/redis`, without the Redis
 * implementations, so a server without `REDIS_URL` never loads BullMQ or ioredis.
 */
export * as MemoryFleet from "./fleet/memory.js"
export * as MemoryRateLimiter from "./rate-limiter/memory.js"
export * from "./redis/settings.js"
export * as MemoryWorkQueue from "./work-queue/memory.js"
