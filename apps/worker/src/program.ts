/**
 * The worker process's program, over the worker it runs: `main.ts` runs the release's (`workerOn`),
 * the fault tests' worker (`test/test-worker.ts`) the same with the test wiring's lane beside it.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import {
  checkedSettings,
  HeartbeatConfig,
  heartbeat,
  InfrastructureConfig,
  infrastructureFor,
  LogConfig,
  loggerFor,
  reportStartFailure,
  runWorker,
  servicesOn,
  type WorkSettings,
  withSecretFiles,
  type workerOn
} from "@verbatim/runtime"
import { Config, Effect, Option } from "effect"

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

/** The worker process: settings read, the worker built by `worker` run until interrupted. */
export const workerProgram = (worker: (work: WorkSettings) => ReturnType<typeof workerOn>) =>
  Effect.gen(function* () {
    // VERBATIM_LOG_LEVEL (default info) and VERBATIM_LOG_FORMAT (json off a terminal, else pretty);
    // every VERBATIM_* name known, every value accepted: else one line per problem, and no start.
    const {
      settings: { settings, log, beat },
      warnings
    } = yield* checkedSettings(
      Config.all({ settings: InfrastructureConfig, log: LogConfig, beat: HeartbeatConfig })
    )
    const refused = refusal(settings)
    if (Option.isSome(refused)) return yield* Effect.fail(refused.value)
    yield* Effect.gen(function* () {
      yield* Effect.forEach(warnings, (warning) => Effect.logWarning(warning), { discard: true })
      yield* runWorker
      yield* Effect.forkScoped(heartbeat(beat))
      yield* Effect.logInfo("worker started: taking jobs and webhook deliveries")
      return yield* Effect.never
    }).pipe(
      Effect.scoped,
      Effect.provide(worker(settings.work)),
      Effect.provide(servicesOn(infrastructureFor(settings))),
      Effect.provide(loggerFor(log))
    )
  }).pipe(
    withSecretFiles,
    Effect.tapErrorCause(reportStartFailure("Verbatim worker")),
    Effect.provide(NodeContext.layer)
  )
