/**
 * `pnpm worker`: a worker process. It takes jobs and webhook deliveries from the Redis queue and
 * runs them against PostgreSQL, with the settings of `@verbatim/runtime` (README, "Settings").
 * Run any number of them beside any number of API servers. SIGTERM (or Ctrl-C) stops taking work,
 * waits `VERBATIM_SHUTDOWN_GRACE_MS` for the jobs in hand, and hands the rest back; a repeated
 * signal (to the process group, Ctrl-C) does not cut that short.
 *
 * The embedded default (no `DATABASE_URL`, no `REDIS_URL`) needs no worker process: `pnpm start`
 * runs the worker's fibers inside the server, and the data folder admits one process anyway.
 */
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import {
  absorbRepeatedSignals,
  describeCause,
  HeartbeatConfig,
  heartbeat,
  InfrastructureConfig,
  infrastructureFor,
  LogConfig,
  loggerFor,
  runWorker,
  servicesOn,
  withSecretFiles,
  workerOn
} from "@verbatim/runtime"
import { Console, Effect, Option } from "effect"

/** Why this configuration cannot run a worker process, if it cannot. */
export const refusal = (settings: {
  readonly database: { readonly url: Option.Option<unknown> }
  readonly redis: { readonly url: Option.Option<unknown> }
}): Option.Option<string> =>
  Option.isNone(settings.database.url) || Option.isNone(settings.redis.url)
    ? Option.some(
        "a worker process needs DATABASE_URL (PostgreSQL) and REDIS_URL (the queue) shared with the API servers; " +
          "without them, `pnpm start` runs the worker inside the server"
      )
    : Option.none()

const program = Effect.gen(function* () {
  const settings = yield* InfrastructureConfig
  // VERBATIM_LOG_LEVEL (default info) and VERBATIM_LOG_FORMAT (json off a terminal, else pretty).
  const log = yield* LogConfig
  const beat = yield* HeartbeatConfig
  const refused = refusal(settings)
  if (Option.isSome(refused)) return yield* Effect.fail(refused.value)
  yield* Effect.gen(function* () {
    yield* runWorker
    yield* Effect.forkScoped(heartbeat(beat))
    yield* Effect.logInfo("worker started: taking jobs and webhook deliveries")
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    Effect.provide(workerOn(settings.work)),
    Effect.provide(servicesOn(infrastructureFor(settings))),
    Effect.provide(loggerFor(log))
  )
}).pipe(
  withSecretFiles,
  Effect.tapErrorCause((cause) =>
    Option.match(describeCause(cause), {
      onNone: () => Effect.void,
      onSome: (text) => Console.error(`Verbatim worker cannot run: ${text}`)
    })
  ),
  Effect.provide(NodeContext.layer)
)

// A repeated SIGTERM or SIGINT (to the process group, Ctrl-C) must not cut the hand-back short.
absorbRepeatedSignals()
NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
