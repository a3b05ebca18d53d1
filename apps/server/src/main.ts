/**
 * `pnpm start`: reads the settings, holds the embedded data folder, migrates the database, seeds
 * the development account on an empty embedded database, starts the worker's fibers when embedded,
 * and serves the API until interrupted.
 */
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { describeCause, infrastructureFor, runWorker, servicesOn, workerOn } from "@verbatim/runtime"
import { Console, Effect, Layer, Option } from "effect"
import { ServerConfig, type ServerSettings } from "./config.js"
import { holdDataFolder } from "./data-lock.js"
import { httpFor } from "./layers.js"
import { seedAndReport } from "./seed.js"

/** The URL a person on this machine would use. */
export const baseUrlOf = (settings: Pick<ServerSettings, "host" | "port">): string => {
  const host =
    settings.host === "0.0.0.0" || settings.host === "::"
      ? "localhost"
      : settings.host.includes(":")
        ? `[${settings.host}]`
        : settings.host
  return `http://${host}:${settings.port}`
}

const serve = (settings: ServerSettings) => {
  const baseUrl = baseUrlOf(settings)
  const http = httpFor(settings).pipe(
    Layer.tap(() =>
      Console.log(
        `API: ${baseUrl}/api/v2 · reference: ${baseUrl}/docs · OpenAPI: ${baseUrl}/api/v2/openapi.json`
      )
    )
  )
  return Effect.gen(function* () {
    if (settings.seed) yield* seedAndReport(baseUrl)
    // Embedded (the default without Redis): the worker's fibers run in this process.
    if (settings.work.embedded) yield* runWorker.pipe(Effect.provide(workerOn(settings.work)))
    return yield* Layer.launch(http)
  }).pipe(Effect.provide(servicesOn(infrastructureFor(settings))))
}

const program = Effect.gen(function* () {
  const settings = yield* ServerConfig
  if (Option.isNone(settings.database.url)) yield* holdDataFolder(settings.database.dataDir)
  return yield* serve(settings)
}).pipe(
  Effect.scoped,
  Effect.tapErrorCause((cause) =>
    Option.match(describeCause(cause), {
      onNone: () => Effect.void,
      onSome: (text) => Console.error(`Verbatim cannot run: ${text}`)
    })
  ),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, { disableErrorReporting: true })
