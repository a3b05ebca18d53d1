/**
 * The Redis settings apps read from the environment, apart from the client (no ioredis here), so a
 * server without `REDIS_URL` reads them without loading the Redis implementations.
 */
import { Config, ConfigError, Either, Option, Redacted } from "effect"

/** Settings read from the environment: `REDIS_URL` (optional) and `VERBATIM_REDIS_PREFIX`. */
export interface RedisSettings {
  /** Where Redis is; none means the embedded (in-memory) implementations. */
  readonly url: Option.Option<Redacted.Redacted<string>>
  /** Put in front of every key Verbatim writes, so several deployments can share one Redis. */
  readonly prefix: string
}

export const defaultPrefix = "verbatim:"

/** Why a `REDIS_URL` cannot be a Redis address, if it cannot (the value itself is never shown). */
export const redisUrlProblem = (text: string): Option.Option<string> => {
  const example = "redis://host:6379/0 (or rediss:// for TLS)"
  let parsed: URL
  try {
    parsed = new URL(text.trim())
  } catch {
    return Option.some(`REDIS_URL must be a Redis URL such as ${example}`)
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    return Option.some(
      `REDIS_URL must start with redis:// or rediss:// (not ${parsed.protocol}//), such as ${example}`
    )
  }
  return parsed.hostname === "" ? Option.some(`REDIS_URL names no host: expected ${example}`) : Option.none()
}

/** `REDIS_URL` (optional, secret; empty counts as unset; must be a redis:// or rediss:// URL). */
export const RedisConfig: Config.Config<RedisSettings> = Config.all({
  url: Config.option(
    Config.redacted("REDIS_URL").pipe(
      Config.mapOrFail((url) => {
        const text = Redacted.value(url)
        return Option.match(text.trim() === "" ? Option.none() : redisUrlProblem(text), {
          onNone: () => Either.right(url),
          onSome: (problem) => Either.left(ConfigError.InvalidData(["REDIS_URL"], problem))
        })
      })
    )
  ).pipe(Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))),
  prefix: Config.string("VERBATIM_REDIS_PREFIX").pipe(Config.withDefault(defaultPrefix))
})
