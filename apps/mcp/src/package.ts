/**
 * `npx -y verbatim-mcp`: the published stdio server (the `verbatim-mcp` package, built by
 * `scripts/bundle-mcp-package.mjs` into one JavaScript file with every dependency inside). Its
 * tools call the REST API of a running Verbatim server; the in-process mode (the use cases on
 * PostgreSQL) needs the server's runtime and stays the repository's `pnpm mcp`.
 *
 * | variable | meaning |
 * |---|---|
 * | VERBATIM_API_KEY | required: the API key of the account the assistant acts for |
 * | VERBATIM_BASE_URL | the server's origin; default `http://127.0.0.1:3000` (`pnpm start`'s) |
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Option } from "effect"
import { McpConfig, requiredKey, restAt, serveStdio, stderrLogs } from "./stdio.js"

/** Where the tools call when VERBATIM_BASE_URL is not set: a server started with `pnpm start`. */
export const defaultBaseUrl = "http://127.0.0.1:3000"

const program = Effect.gen(function* () {
  const settings = yield* McpConfig
  const apiKey = yield* requiredKey(settings.apiKey)
  const origin = Option.match(settings.baseUrl, { onNone: () => defaultBaseUrl, onSome: (url) => url.origin })
  yield* serveStdio.pipe(Effect.scoped, Effect.provide(restAt(apiKey, origin, "")))
}).pipe(
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Console.error(
          `Verbatim MCP cannot run: ${Option.match(Cause.failureOption(cause), {
            onNone: () => Cause.pretty(cause),
            onSome: (failure) => (typeof failure === "string" ? failure : String(failure))
          })}`
        )
  ),
  stderrLogs
)

NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
