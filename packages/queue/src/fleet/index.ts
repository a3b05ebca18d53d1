export * as MemoryFleet from "./memory.js"
export * as RedisFleet from "./redis.js"
