/**
 * The Redis settings apps read from the environment, apart from the client (no ioredis here), so a
 * server without `REDIS_URL` reads them without loading the Redis implementations.
 */
import { Config, Option, Redacted } from "effect"

/** Settings read from the environment: `REDIS_URL` (optional) and `VERBATIM_REDIS_PREFIX`. */
export interface RedisSettings {
  /** Where Redis is; none means the embedded (in-memory) implementations. */
  readonly url: Option.Option<Redacted.Redacted<string>>
  /** Put in front of every key Verbatim writes, so several deployments can share one Redis. */
  readonly prefix: string
}

export const defaultPrefix = "verbatim:"

export const RedisConfig: Config.Config<RedisSettings> = Config.all({
  url: Config.option(Config.redacted("REDIS_URL")).pipe(
    Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))
  ),
  prefix: Config.string("VERBATIM_REDIS_PREFIX").pipe(Config.withDefault(defaultPrefix))
})
