/**
 * `pnpm --silent mcp`: the Verbatim MCP server on stdio (compiled by `scripts/bundle.mjs`, run with plain node), for assistants that start it as a command
 * (Claude Desktop, VS Code, Cursor). stdout carries the protocol only; logs go to stderr.
 *
 * | variable | meaning |
 * |---|---|
 * | VERBATIM_API_KEY | required: the API key of the account the assistant acts for |
 * | VERBATIM_BASE_URL | the running server's origin (`http://127.0.0.1:3000`): the tools call its REST API |
 * | DATABASE_URL and the other settings of the server | without VERBATIM_BASE_URL: the use cases run in this process on that PostgreSQL (and REDIS_URL's queue), as the server's do |
 * | PORT, HOST | on the embedded data folder, where the running server listens (the server's own settings) |
 *
 * The embedded data folder (no DATABASE_URL) admits one process, the server: without
 * VERBATIM_BASE_URL or DATABASE_URL the tools call the running server's REST API at the address
 * the server's PORT and HOST give (`http://127.0.0.1:3000` by default), never opening the folder.
 * In process, jobs this command starts (speech recognition, batches) are run by the fleet's workers
 * (the server's embedded worker, or `pnpm worker`), which take them from the shared queue or the
 * database.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { AccountOperations, inProcessByKey } from "@verbatim/mcp-tools"
import {
  describeCause,
  InfrastructureConfig,
  infrastructureFor,
  ServerAddressConfig,
  servicesOn
} from "@verbatim/runtime"
import { Console, Effect, Layer, Option, type Redacted } from "effect"
import { embeddedServerUrl } from "./embedded.js"
import { McpConfig, requiredKey, restAt, serveStdio, stderrLogs } from "./stdio.js"

export { McpConfig, missingKey } from "./stdio.js"

/**
 * The operations of the settings: the REST API of VERBATIM_BASE_URL; else, on the embedded data
 * folder, the REST API of the running server; else the use cases in process.
 */
const operationsFor = (apiKey: Redacted.Redacted, baseUrl: Option.Option<URL>) =>
  Option.match(baseUrl, {
    onSome: (url) => restAt(apiKey, url.origin, ""),
    onNone: () =>
      Layer.unwrapEffect(
        Effect.gen(function* () {
          const settings = yield* InfrastructureConfig
          const running = embeddedServerUrl(settings, yield* ServerAddressConfig)
          if (Option.isSome(running)) {
            return restAt(
              apiKey,
              running.value,
              ` (the embedded data folder ${settings.database.dataDir} admits one process, the running server; VERBATIM_BASE_URL chooses another server, DATABASE_URL runs the tools in this process)`
            )
          }
          return Layer.effect(AccountOperations, inProcessByKey(apiKey)).pipe(
            Layer.provide(servicesOn(infrastructureFor(settings))),
            Layer.tap(() => Effect.logInfo("Verbatim MCP on stdio: tools run the use cases in this process"))
          )
        })
      )
  })

const program = Effect.gen(function* () {
  const settings = yield* McpConfig
  const apiKey = yield* requiredKey(settings.apiKey)
  yield* serveStdio.pipe(Effect.scoped, Effect.provide(operationsFor(apiKey, settings.baseUrl)))
}).pipe(
  Effect.tapErrorCause((cause) =>
    Option.match(describeCause(cause), {
      onNone: () => Effect.void,
      onSome: (text) => Console.error(`Verbatim MCP cannot run: ${text}`)
    })
  ),
  Effect.provide(NodeContext.layer),
  stderrLogs
)

NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
