/**
 * `pnpm start`: reads the settings, holds the embedded data folder, migrates the database, listens,
 * seeds the development account on an empty database (PGlite or PostgreSQL; or says what to run),
 * starts the worker's fibers when embedded, and serves the API until interrupted. HOST and PORT are
 * tried first (`probeListen`), before the database starts, and listening comes before the seed, so a
 * HOST or PORT that cannot be used fails the start at once and before any key is printed.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import {
  absorbRepeatedSignals,
  checkedSettings,
  infrastructureFor,
  localServerUrl,
  loggerFor,
  notice,
  probeListen,
  reportStartFailure,
  runWorker,
  servicesOn,
  withSecretFiles,
  workerOn
} from "@verbatim/runtime"
import { Effect, Layer, Option } from "effect"
import { runDoctor } from "./admin/doctor.js"
import { ServerConfig, type ServerSettings } from "./config.js"
import { holdDataFolder } from "./data-lock.js"
import { httpFor } from "./layers.js"
import { ServerMetricsLive } from "./metrics.js"
import { seedAndReport } from "./seed.js"
import { tracingFor } from "./tracing.js"

/** The URL a person on this machine would use. */
export const baseUrlOf = (settings: Pick<ServerSettings, "host" | "port">): string => localServerUrl(settings)

const serve = (settings: ServerSettings) => {
  const baseUrl = baseUrlOf(settings)
  return Effect.gen(function* () {
    yield* Layer.build(httpFor(settings))
    yield* Layer.build(ServerMetricsLive)
    const library = settings.web ? ` · library: ${baseUrl}/` : ""
    const banner = `API: ${baseUrl}/api/v2 · reference: ${baseUrl}/docs · OpenAPI: ${baseUrl}/api/v2/openapi.json${library}`
    yield* notice(settings.log, banner, banner, {
      ...(settings.web ? { library: `${baseUrl}/` } : {}),
      api: `${baseUrl}/api/v2`,
      reference: `${baseUrl}/docs`,
      openapi: `${baseUrl}/api/v2/openapi.json`
    })
    yield* seedAndReport(baseUrl, settings.seed, settings.log)
    // Embedded (the default without Redis): the worker's fibers run in this process. Its layer is
    // built in the server's scope: provided to `runWorker` alone, it would be released as soon as
    // `runWorker` returned (its claim batchers and heartbeat gone), leaving every job unclaimed.
    if (settings.work.embedded) {
      const worker = yield* Layer.build(workerOn(settings.work))
      yield* runWorker.pipe(Effect.provide(worker))
    }
    return yield* Effect.never
  }).pipe(Effect.provide(servicesOn(infrastructureFor(settings, baseUrl))))
}

const program = Effect.gen(function* () {
  // Every VERBATIM_* name known, every value accepted: else one line per problem, and no start.
  const { settings, warnings } = yield* checkedSettings(ServerConfig)
  return yield* Effect.gen(function* () {
    yield* Effect.forEach(warnings, (warning) => Effect.logWarning(warning), { discard: true })
    // HOST and PORT first: a busy port is reported at once, not after the database has started.
    yield* probeListen(settings)
    if (Option.isNone(settings.database.url)) yield* holdDataFolder(settings.database.dataDir)
    return yield* serve(settings)
  }).pipe(Effect.provide(Layer.merge(loggerFor(settings.log), tracingFor(settings.tracing))))
}).pipe(
  Effect.scoped,
  // Every secret setting may come from a file (`DATABASE_URL_FILE`...).
  withSecretFiles,
  Effect.tapErrorCause(reportStartFailure("Verbatim")),
  Effect.provide(NodeContext.layer)
)

if (process.argv[2] === "doctor") {
  // `pnpm admin doctor` (admin/doctor-spawn.ts): the report, then the exit code.
  NodeRuntime.runMain(
    runDoctor(process.argv.includes("--json")).pipe(
      withSecretFiles,
      Effect.catchTag("DoctorFailed", () => Effect.sync(() => process.exit(1))),
      Effect.tapErrorCause(reportStartFailure("verbatim doctor")),
      Effect.provide(NodeContext.layer)
    ),
    { disableErrorReporting: true, disablePrettyLogger: true }
  )
} else {
  absorbRepeatedSignals()
  NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
}
