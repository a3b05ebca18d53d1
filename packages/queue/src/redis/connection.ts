/**
 * The Redis connection shared by the Redis work queue and rate limiter: one ioredis client as a
 * scoped service (connected when the layer is built, `QUIT` when it is released), and the settings
 * apps read from the environment.
 *
 * The client has `maxRetriesPerRequest: null`, as BullMQ requires for workers: a command waits
 * through a reconnect instead of failing after a few retries. Users that must not wait (the rate
 * limiter, offers) bound their calls themselves.
 */
import {
  Config,
  type ConfigError,
  Context,
  Duration,
  Effect,
  Layer,
  Redacted,
  Runtime,
  Schema,
  type Scope
} from "effect"
import { Redis, type RedisOptions } from "ioredis"

/** Redis could not be reached when connecting. */
export class RedisConnectionError extends Schema.TaggedError<RedisConnectionError>()("RedisConnectionError", {
  message: Schema.String,
  cause: Schema.Defect
}) {}

export interface RedisConnectionOptions {
  readonly url: Redacted.Redacted<string>
  /** Shown by `CLIENT LIST`; duplicates made from the client keep it. */
  readonly connectionName?: string | undefined
  /** How long the first connection may take before the layer fails (default 10 seconds). */
  readonly connectTimeout?: Duration.DurationInput | undefined
  /** Extra ioredis options (those above win). */
  readonly redisOptions?: RedisOptions | undefined
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Ends a client: `QUIT` when it answers in time, else drops the socket. */
export const closeClient = (client: Redis): Effect.Effect<void> =>
  Effect.tryPromise(() => client.quit()).pipe(
    Effect.timeout(Duration.seconds(2)),
    Effect.catchAll(() => Effect.sync(() => client.disconnect())),
    Effect.asVoid
  )

/**
 * Connects a client (waits until it is ready); closes it when the scope closes. Errors emitted by
 * the client after that (a dropped connection) are logged; ioredis reconnects by itself.
 */
export const connect = (
  options: RedisConnectionOptions
): Effect.Effect<Redis, RedisConnectionError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(Effect.runtime<never>(), (runtime) => {
      const client = new Redis(Redacted.value(options.url), {
        ...options.redisOptions,
        lazyConnect: true,
        maxRetriesPerRequest: null,
        ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName })
      })
      let lastLoggedAt = Number.NEGATIVE_INFINITY
      client.on("error", (error: unknown) => {
        // ioredis emits an error per failed reconnect attempt: log at most one every 10 s.
        const now = Date.now()
        if (now - lastLoggedAt < 10_000) return
        lastLoggedAt = now
        Runtime.runFork(runtime)(Effect.logWarning("Redis connection error", messageOf(error)))
      })
      return Effect.tryPromise({
        try: () => client.connect(),
        catch: (cause) =>
          new RedisConnectionError({ message: `cannot connect to Redis: ${messageOf(cause)}`, cause })
      }).pipe(
        Effect.timeoutFail({
          duration: options.connectTimeout ?? Duration.seconds(10),
          onTimeout: () =>
            new RedisConnectionError({ message: "cannot connect to Redis: timed out", cause: null })
        }),
        Effect.tapError(() => Effect.sync(() => client.disconnect())),
        Effect.as(client)
      )
    }),
    closeClient
  )

/** The shared ioredis client. */
export class RedisConnection extends Context.Tag("@verbatim/queue/RedisConnection")<
  RedisConnection,
  Redis
>() {
  static readonly layer = (
    options: RedisConnectionOptions
  ): Layer.Layer<RedisConnection, RedisConnectionError> => Layer.scoped(RedisConnection, connect(options))

  /** From `REDIS_URL` (required here: use `RedisConfig` to choose between memory and Redis). */
  static readonly layerConfig: Layer.Layer<RedisConnection, RedisConnectionError | ConfigError.ConfigError> =
    Layer.unwrapEffect(
      Effect.map(Config.redacted("REDIS_URL"), (url) =>
        RedisConnection.layer({ url, connectionName: "verbatim" })
      )
    )
}
