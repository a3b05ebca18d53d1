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
 * | (the rest) | | see `packages/runtime/src/settings.ts` and the README |
 */
import {
  InfrastructureConfig,
  type InfrastructureSettings,
  LogConfig,
  type LogSettings,
  ServerAddressConfig
} from "@verbatim/runtime"
import { Config } from "effect"
import { TracingConfig, type TracingSettings } from "./tracing.js"

export interface ServerSettings extends InfrastructureSettings {
  readonly port: number
  readonly host: string
  readonly seed: boolean
  /** VERBATIM_LOG_LEVEL and VERBATIM_LOG_FORMAT. */
  readonly log: LogSettings
  /** OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) and OTEL_SERVICE_NAME. */
  readonly tracing: TracingSettings
}

export const ServerConfig: Config.Config<ServerSettings> = Config.all({
  address: ServerAddressConfig,
  infrastructure: InfrastructureConfig,
  seed: Config.boolean("VERBATIM_SEED").pipe(Config.withDefault(true)),
  log: LogConfig,
  tracing: TracingConfig
}).pipe(
  Config.map(({ address, infrastructure, ...settings }) => ({ ...infrastructure, ...address, ...settings }))
)

export { describeConfigError } from "@verbatim/runtime"
