/**
 * The server's settings, all from environment variables: the infrastructure every Verbatim process
 * shares (`@verbatim/runtime`: database, platform, Redis, worker, webhooks) and the server's own.
 * A bad value stops the start with a message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | PORT, HOST | 3000, 127.0.0.1 | where to listen (`@verbatim/runtime`'s `ServerAddressConfig`) |
 * | VERBATIM_LOG_LEVEL, VERBATIM_LOG_FORMAT | info; json off a terminal | see `packages/runtime/src/settings.ts` |
 * | OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME | unset; verbatim-server | tracing over OTLP/HTTP when set (`tracing.ts`) |
 * | VERBATIM_SEED | true | seed a development account into an empty database (PGlite or PostgreSQL) and print its key once |
 * | VERBATIM_KEEP_ALIVE_TIMEOUT_MS | 75000 | how long an idle client connection is kept open; longer than any proxy's upstream keep-alive (see `KeepAliveConfig`) |
 * | VERBATIM_MAX_CONNECTIONS | 4096 | client connections open at once; past it a new one closes the longest-idle one (`connections.ts`) |
 * | VERBATIM_MAX_CONNECTIONS_PER_ADDRESS | 512 | client connections from one peer address (0: no cap); behind a proxy, at least its upstream pool |
 * | VERBATIM_MCP_ALLOWED_ORIGINS | none | comma-separated origins (`https://app.example`) whose pages may call /api/v2/gpt/mcp from a browser, besides the service's own; see `McpOriginsConfig` |
 * | VERBATIM_WEB | true | serve the web library (`@verbatim/web`) at `/`; `false`: the API alone |
 * | (the rest) | | see `packages/runtime/src/settings.ts` and the README |
 */

import { parseOrigin } from "@verbatim/api"
import {
  InfrastructureConfig,
  type InfrastructureSettings,
  LogConfig,
  type LogSettings,
  ServerAddressConfig
} from "@verbatim/runtime"
import { Config, ConfigError, Either, Option } from "effect"
import { type ConnectionCaps, defaultMaxConnections, defaultMaxConnectionsPerAddress } from "./connections.js"
import { defaultKeepAliveMs } from "./keep-alive.js"
import { TracingConfig, type TracingSettings } from "./tracing.js"

export interface ServerSettings extends InfrastructureSettings {
  readonly port: number
  readonly host: string
  readonly seed: boolean
  /** VERBATIM_LOG_LEVEL and VERBATIM_LOG_FORMAT. */
  readonly log: LogSettings
  /** OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) and OTEL_SERVICE_NAME. */
  readonly tracing: TracingSettings
  /** VERBATIM_MCP_ALLOWED_ORIGINS: serialized origins. */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
  /** VERBATIM_KEEP_ALIVE_TIMEOUT_MS: how long an idle client connection stays open. */
  readonly keepAliveTimeoutMs: number
  /** VERBATIM_WEB: whether the web library is served at `/`. */
  readonly web: boolean
  /** VERBATIM_MAX_CONNECTIONS and VERBATIM_MAX_CONNECTIONS_PER_ADDRESS. */
  readonly connectionCaps: ConnectionCaps
}

/**
 * VERBATIM_MAX_CONNECTIONS (at least 1) and VERBATIM_MAX_CONNECTIONS_PER_ADDRESS (0 for none): the
 * connection budget (`connections.ts`). Keep the total below the process's file descriptor limit.
 */
export const ConnectionCapsConfig: Config.Config<ConnectionCaps> = Config.all({
  total: Config.integer("VERBATIM_MAX_CONNECTIONS").pipe(
    Config.validate({
      message: "VERBATIM_MAX_CONNECTIONS must be a whole number of connections, at least 1",
      validation: (n) => n >= 1
    }),
    Config.withDefault(defaultMaxConnections)
  ),
  perAddress: Config.integer("VERBATIM_MAX_CONNECTIONS_PER_ADDRESS").pipe(
    Config.validate({
      message: "VERBATIM_MAX_CONNECTIONS_PER_ADDRESS must be a whole number of connections (0: no cap)",
      validation: (n) => n >= 0
    }),
    Config.withDefault(defaultMaxConnectionsPerAddress)
  )
})

/**
 * VERBATIM_KEEP_ALIVE_TIMEOUT_MS: how long the server keeps an idle client connection open. A proxy
 * in front reuses its idle upstream connections; if the server closed one first, a request sent on
 * it at that moment is lost (a 502 or a reset), so the server's timeout must outlast the proxy's
 * (deploy/Caddyfile keeps upstream connections 60 s; node's own default is 5 s). Behind a balancer
 * that keeps connections longer (Google's: 600 s), set it above that.
 */
export const KeepAliveConfig: Config.Config<number> = Config.integer("VERBATIM_KEEP_ALIVE_TIMEOUT_MS").pipe(
  Config.validate({
    message: "VERBATIM_KEEP_ALIVE_TIMEOUT_MS must be a whole number of milliseconds, at least 1000",
    validation: (ms) => ms >= 1000
  }),
  Config.withDefault(defaultKeepAliveMs)
)

// --- MCP endpoint: browser origins ---
/**
 * VERBATIM_MCP_ALLOWED_ORIGINS: the origins, besides the service's own (VERBATIM_PUBLIC_URL or the
 * server's address), whose pages may call the MCP endpoint from a browser (`@verbatim/mcp-tools`'
 * `origin.ts`); requests without `Origin` (assistants that are programs) always pass. Each entry is
 * exactly an origin, `scheme://host[:port]` over http or https; anything else stops the start.
 */
export const McpOriginsConfig: Config.Config<ReadonlyArray<string>> = Config.string(
  "VERBATIM_MCP_ALLOWED_ORIGINS"
).pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const entries = text
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "")
    const origins: Array<string> = []
    for (const entry of entries) {
      const parsed = parseOrigin(entry)
      if (Option.isNone(parsed)) {
        return Either.left(
          ConfigError.InvalidData(
            ["VERBATIM_MCP_ALLOWED_ORIGINS"],
            `${entry} is not an origin: write scheme://host[:port] over http or https, e.g. https://app.example, comma-separated`
          )
        )
      }
      origins.push(parsed.value)
    }
    return Either.right(origins)
  })
)
// --- end MCP endpoint ---

export const ServerConfig: Config.Config<ServerSettings> = Config.all({
  address: ServerAddressConfig,
  infrastructure: InfrastructureConfig,
  seed: Config.boolean("VERBATIM_SEED").pipe(Config.withDefault(true)),
  log: LogConfig,
  tracing: TracingConfig,
  mcpAllowedOrigins: McpOriginsConfig,
  keepAliveTimeoutMs: KeepAliveConfig,
  web: Config.boolean("VERBATIM_WEB").pipe(Config.withDefault(true)),
  connectionCaps: ConnectionCapsConfig
}).pipe(
  Config.map(({ address, infrastructure, ...settings }) => ({ ...infrastructure, ...address, ...settings }))
)

export { describeConfigError } from "@verbatim/runtime"
