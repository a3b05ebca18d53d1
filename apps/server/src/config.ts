/**
 * The server's settings, all from environment variables. A bad value stops the start with a
 * message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | PORT | 3000 | TCP port to listen on |
 * | HOST | 127.0.0.1 | address to listen on; 0.0.0.0 accepts other machines (containers) |
 * | VERBATIM_DATA_DIR | ./.data | embedded data folder (PGlite in `pg/`) |
 * | DATABASE_URL | unset | PostgreSQL connection string; unset selects the embedded PGlite |
 * | DATABASE_POOL_MAX | 10 | PostgreSQL pool size |
 * | VERBATIM_PLATFORM | demo | the video platform; `youtube` is refused until its adapter ships |
 * | VERBATIM_DEMO_CATALOG | the shipped catalogue | catalogue file of the demo platform |
 * | VERBATIM_SEED | true without DATABASE_URL, else false | seed a development account into an empty database |
 */
import { DatabaseConfig, type DatabaseSettings } from "@verbatim/db"
import { demoCataloguePath } from "@verbatim/demo-platform"
import { Config, ConfigError, Either, Option } from "effect"

/** The video platforms a server can use in this release. */
export type PlatformName = "demo"

export interface ServerSettings {
  readonly port: number
  readonly host: string
  readonly platform: PlatformName
  readonly demoCatalogue: string
  readonly seed: boolean
  readonly database: DatabaseSettings
}

export const youtubeNotAvailable =
  "the YouTube adapter is not available in this release; set VERBATIM_PLATFORM=demo (the default)"

export const PlatformConfig: Config.Config<PlatformName> = Config.literal(
  "demo",
  "youtube"
)("VERBATIM_PLATFORM").pipe(
  Config.withDefault("demo" as const),
  Config.mapOrFail((name) =>
    name === "demo"
      ? Either.right(name)
      : Either.left(ConfigError.InvalidData(["VERBATIM_PLATFORM"], youtubeNotAvailable))
  )
)

export const ServerConfig: Config.Config<ServerSettings> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(
    Config.validate({ message: "HOST must not be blank", validation: (host) => host.trim() !== "" }),
    Config.withDefault("127.0.0.1")
  ),
  platform: PlatformConfig,
  demoCatalogue: demoCataloguePath,
  database: DatabaseConfig,
  seedSetting: Config.option(Config.boolean("VERBATIM_SEED"))
}).pipe(
  Config.map(({ seedSetting, ...settings }) => ({
    ...settings,
    seed: Option.getOrElse(seedSetting, () => Option.isNone(settings.database.url))
  }))
)

/** A configuration failure as one line for the operator. */
export const describeConfigError = (error: ConfigError.ConfigError): string =>
  `Invalid configuration: ${String(error)}`
