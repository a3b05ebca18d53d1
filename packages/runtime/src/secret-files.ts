/**
 * Secrets from files: every secret setting `NAME` may instead be given as `NAME_FILE`, the path of
 * a file whose content (surrounding whitespace trimmed) is the value, as Docker and Kubernetes
 * secrets are mounted (`/run/secrets/<name>`), so a secret need not sit in the environment where
 * `docker inspect` and child processes see it. Both set is a mistake that stops the start, naming
 * both; an unreadable or empty file too, naming the variable and the path (an empty file of an
 * optional key, `optionalSecretSettings`, leaves it unset).
 *
 * Done once, for every process (server, worker, admin command): `withSecretFiles` runs a program
 * under a config provider that is the environment with the files' values put in, so each setting
 * keeps reading its own name with `Config`.
 */
import { readFileSync } from "node:fs"
import { ConfigError, ConfigProvider, Effect, Either } from "effect"

/** The settings that hold secrets: each accepts `<NAME>_FILE`. */
export const secretSettings = [
  "DATABASE_URL",
  "REDIS_URL",
  "ASSEMBLYAI_API_KEY",
  "VERBATIM_AI_API_KEY",
  "VERBATIM_BLOB_SIGNING_KEY",
  "VERBATIM_S3_ACCESS_KEY_ID",
  "VERBATIM_S3_SECRET_ACCESS_KEY",
  "VERBATIM_YOUTUBE_PROXY",
  "VERBATIM_YOUTUBE_PROXIES"
] as const

/**
 * The secrets whose absence chooses another way (the local speech engine without AssemblyAI's key,
 * no key sent to the model): an empty file leaves them unset, so a deployment can mount the file
 * always and fill it only to use the service (deploy/compose.yaml's `assemblyai_api_key`).
 */
export const optionalSecretSettings: ReadonlyArray<(typeof secretSettings)[number]> = [
  "ASSEMBLYAI_API_KEY",
  "VERBATIM_AI_API_KEY"
]

type Env = Readonly<Record<string, string | undefined>>

/** The environment with each `<NAME>_FILE` of a secret read into `<NAME>`; or why it cannot be. */
export const resolveSecretFiles = (
  env: Env,
  read: (path: string) => string = (path) => readFileSync(path, "utf8")
): Either.Either<Record<string, string>, string> => {
  const resolved: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) resolved[name] = value
  for (const name of secretSettings) {
    const path = env[`${name}_FILE`]
    if (path === undefined || path === "") continue
    if (env[name] !== undefined && env[name] !== "") {
      return Either.left(`${name} and ${name}_FILE are both set: set one of them`)
    }
    let content: string
    try {
      content = read(path).trim()
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return Either.left(`${name}_FILE names a file that cannot be read (${path}): ${reason}`)
    }
    if (content === "") {
      if (optionalSecretSettings.includes(name)) continue
      return Either.left(`${name}_FILE names an empty file (${path})`)
    }
    resolved[name] = content
  }
  return Either.right(resolved)
}

/** The environment's config provider (same delimiters as `ConfigProvider.fromEnv`) with the files' values. */
export const secretFilesProvider = (
  env: Env = process.env
): Either.Either<ConfigProvider.ConfigProvider, ConfigError.ConfigError> =>
  Either.match(resolveSecretFiles(env), {
    onLeft: (message) => Either.left(ConfigError.InvalidData([], message)),
    onRight: (values) =>
      Either.right(ConfigProvider.fromMap(new Map(Object.entries(values)), { pathDelim: "_", seqDelim: "," }))
  })

/** Runs `self` reading its settings from the environment and the secrets' files. */
export const withSecretFiles = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E | ConfigError.ConfigError, R> =>
  Effect.flatMap(
    Effect.suspend(() => secretFilesProvider()),
    (provider) => Effect.withConfigProvider(self, provider)
  )
