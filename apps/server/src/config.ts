/**
 * The server's settings, all from environment variables: the infrastructure every Verbatim process
 * shares (`@verbatim/runtime`: database, platform, Redis, worker, webhooks) and the server's own.
 * A bad value stops the start with a message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | PORT | 3000 | TCP port to listen on |
 * | HOST | 127.0.0.1 | address to listen on; 0.0.0.0 accepts other machines (containers) |
 * | VERBATIM_SEED | true without DATABASE_URL, else false | seed a development account into an empty database |
 * | (the rest) | | see `packages/runtime/src/settings.ts` and the README |
 */
import { InfrastructureConfig, type InfrastructureSettings } from "@verbatim/runtime"
import { Config, Option } from "effect"

export interface ServerSettings extends InfrastructureSettings {
  readonly port: number
  readonly host: string
  readonly seed: boolean
}

export const ServerConfig: Config.Config<ServerSettings> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(
    Config.validate({ message: "HOST must not be blank", validation: (host) => host.trim() !== "" }),
    Config.withDefault("127.0.0.1")
  ),
  infrastructure: InfrastructureConfig,
  seedSetting: Config.option(Config.boolean("VERBATIM_SEED"))
}).pipe(
  Config.map(({ seedSetting, infrastructure, ...settings }) => ({
    ...infrastructure,
    ...settings,
    seed: Option.getOrElse(seedSetting, () => Option.isNone(infrastructure.database.url))
  }))
)

export { describeConfigError } from "@verbatim/runtime"
