/**
 * What both stdio commands share: the settings of the command itself, the operations over a
 * running server's REST API, and the loop that serves MCP on stdin/stdout until the client closes
 * stdin. `main.ts` (the repository's `pnpm mcp`, which can also run the use cases in process) and
 * `package.ts` (the published `verbatim-mcp`, REST only) are built on it.
 */
import { FetchHttpClient } from "@effect/platform"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { AccountOperations, makeServer, overHttp } from "@verbatim/mcp-tools"
import { Config, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"

/** The settings of the stdio command itself. */
export const McpConfig = Config.all({
  apiKey: Config.option(Config.redacted("VERBATIM_API_KEY")),
  baseUrl: Config.option(
    Config.url("VERBATIM_BASE_URL").pipe(
      Config.validate({
        message: "VERBATIM_BASE_URL must be an http or https URL, e.g. http://127.0.0.1:3000",
        validation: (url) => url.protocol === "http:" || url.protocol === "https:"
      })
    )
  )
})

/** The operations over the REST API of the server at `origin`. */
export const restAt = (apiKey: Redacted.Redacted, origin: string, why: string) =>
  Layer.effect(AccountOperations, overHttp({ baseUrl: origin, apiKey })).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.tap(() => Effect.logInfo(`Verbatim MCP on stdio: tools call the REST API at ${origin}${why}`))
  )

/** Serves MCP on stdin/stdout until the client closes stdin (or the process is stopped). */
export const serveStdio = Effect.gen(function* () {
  const server = yield* makeServer
  const transport = new StdioServerTransport()
  yield* Effect.acquireRelease(
    Effect.promise(() => server.connect(transport)),
    () => Effect.promise(() => server.close())
  )
  yield* Effect.async<void>((resume) => {
    const done = () => resume(Effect.void)
    server.onclose = done
    process.stdin.once("end", done)
    process.stdin.once("close", done)
    return Effect.sync(() => {
      process.stdin.off("end", done)
      process.stdin.off("close", done)
    })
  })
  yield* Effect.logInfo("the client closed the connection")
})

export const missingKey =
  "VERBATIM_API_KEY is not set: set it to the API key of the account the assistant acts for (`pnpm admin keys issue --account <id>`, or the key `pnpm start` printed)"

/** The API key of the settings, or the failure that says how to set it. */
export const requiredKey = (apiKey: Option.Option<Redacted.Redacted>) =>
  Option.match(
    Option.filter(apiKey, (key) => Redacted.value(key).trim() !== ""),
    { onNone: () => Effect.fail(missingKey), onSome: Effect.succeed }
  )

/** stdout is the protocol's: every log line goes to stderr, from Info up. */
export const stderrLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
    Logger.withMinimumLogLevel(LogLevel.Info)
  )
