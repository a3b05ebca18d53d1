/**
 * How a failed start (server, worker or admin command) is told to the operator: one readable
 * message that names the setting to fix and what it expects, never a stack or a schema tree.
 */

import { CatalogueInvalid } from "@verbatim/demo-platform"
import { Cause, ConfigError, Console, Effect, Option } from "effect"
import { configErrorLines, SettingsRefused } from "./settings-check.js"

/**
 * A configuration failure for the operator: each refused variable on its own line, named, with
 * what it expects and the value it got (`PORT: expected a port number from 1 to 65535, got "abc"`).
 */
export const describeConfigError = (error: ConfigError.ConfigError): string =>
  new SettingsRefused({ lines: configErrorLines(error) }).message

const messageOf = (value: unknown): string | undefined =>
  typeof value === "object" && value !== null && "message" in value && typeof value.message === "string"
    ? value.message
    : undefined

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null && name in value
    ? (value as Record<string, unknown>)[name]
    : undefined

const tagOf = (value: unknown): unknown => field(value, "_tag")

/** A node error's code and details, looking through one `AggregateError` (every address tried). */
const nodeErrorOf = (value: unknown): unknown => {
  const errors = field(value, "errors")
  return Array.isArray(errors) && errors.length > 0 && field(value, "code") === undefined ? errors[0] : value
}

const hostHint =
  "HOST expects an address of this machine such as 127.0.0.1, or 0.0.0.0 to listen on every interface"

/** The HTTP server could not listen: which of HOST and PORT to fix. */
const describeListenFailure = (cause: unknown): string | undefined => {
  const error = nodeErrorOf(cause)
  const code = field(error, "code")
  const host = field(error, "hostname") ?? field(error, "address")
  const port = field(error, "port")
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `HOST: ${JSON.stringify(host)} does not resolve to an address (${code}); ${hostHint}`
    case "EADDRNOTAVAIL":
      return `HOST: ${String(host)} is not an address of this machine (EADDRNOTAVAIL); ${hostHint}`
    case "EADDRINUSE":
      return `PORT: ${String(port)} is already in use by another process (EADDRINUSE); stop it, or set PORT to a free port`
    case "EACCES":
      return `PORT: ${String(port)} needs privileges this process does not have (EACCES); set PORT to 1024 or more`
    default:
      return undefined
  }
}

const postgresUrlHint = "DATABASE_URL expects postgres://user:password@host:5432/database"

/** PostgreSQL could not be reached at start: what to check about `DATABASE_URL`. */
const describeDatabaseFailure = (message: string, cause: unknown): string => {
  const error = nodeErrorOf(cause)
  const code = field(error, "code")
  const detail = messageOf(error) ?? String(cause)
  const hint =
    code === "3D000"
      ? "create the database (e.g. createdb <name>) or name an existing one"
      : code === "28P01" || code === "28000"
        ? "the server refused the user or password"
        : code === "ECONNREFUSED"
          ? "nothing listens there: is PostgreSQL running, and are the host and port right?"
          : code === "ENOTFOUND" || code === "EAI_AGAIN"
            ? "the host name does not resolve"
            : "is PostgreSQL running there, and are the host, port, user and database right?"
  return `DATABASE_URL: ${message}${detail === "" || message.includes(detail) ? "" : `: ${detail}`} (${hint}; ${postgresUrlHint})`
}

/** One failure as a sentence: what went wrong and, where known, which setting to fix. */
export const describeFailure = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return describeConfigError(error)
  if (error instanceof SettingsRefused) return error.message
  if (error instanceof CatalogueInvalid) return `VERBATIM_DEMO_CATALOG: ${error.message}`
  const cause = field(error, "cause")
  if (tagOf(error) === "ServeError") {
    const listen = describeListenFailure(cause)
    if (listen !== undefined) return listen
  }
  // The blob store's errors carry their sentence in `reason` (their message is their fields as JSON).
  const reason = tagOf(error) === "BlobStoreError" ? field(error, "reason") : undefined
  const message = typeof reason === "string" ? reason : (messageOf(error) ?? String(error))
  if (tagOf(error) === "SqlError" && message.startsWith("cannot connect to PostgreSQL")) {
    return describeDatabaseFailure(message, cause)
  }
  if (tagOf(error) === "RedisConnectionError" && !message.includes("REDIS_URL")) {
    const inner = messageOf(cause)
    return `REDIS_URL: ${message}${inner === undefined || message.includes(inner) ? "" : `: ${inner}`} (REDIS_URL expects redis://host:6379/0)`
  }
  const inner = messageOf(cause)
  const text = inner === undefined || message.includes(inner) ? message : `${message}: ${inner}`
  return text.startsWith(": ") ? text.slice(2) : text
}

/** A failed run's cause as text, or `None` when it was only interrupted (Ctrl-C). */
export const describeCause = (cause: Cause.Cause<unknown>): Option.Option<string> => {
  if (Cause.isInterruptedOnly(cause)) return Option.none()
  return Option.some(
    Option.match(Cause.failureOption(cause), {
      onSome: describeFailure,
      onNone: () => Cause.pretty(cause)
    })
  )
}

/**
 * Whether a failed start is told as JSON lines: the format the logger would have used
 * (`VERBATIM_LOG_FORMAT`, read leniently here since it may itself be the setting refused).
 */
const failsAsJson = (env: Readonly<Record<string, string | undefined>>): boolean => {
  const format = env.VERBATIM_LOG_FORMAT?.trim().toLowerCase()
  return format === "json" || (format !== "pretty" && process.stdout.isTTY !== true)
}

/**
 * Tells the operator why a process cannot run: on a terminal (`pretty`), `<who> cannot run: <why>`
 * on stderr as before; in JSON mode (`VERBATIM_LOG_FORMAT=json`, or stdout not a terminal) one JSON
 * object per line of the reason on stdout, at level `fatal`, like every other line of the process,
 * so a log collector reading the container's output parses them too. Nothing for an interruption.
 */
export const reportStartFailure =
  (who: string, env: Readonly<Record<string, string | undefined>> = process.env) =>
  (cause: Cause.Cause<unknown>): Effect.Effect<void> =>
    Option.match(describeCause(cause), {
      onNone: () => Effect.void,
      onSome: (text) => {
        if (!failsAsJson(env)) return Console.error(`${who} cannot run: ${text}`)
        // "invalid settings:" and one indented line per setting: a JSON line per setting.
        const [first = "", ...rest] = text.split("\n")
        const lines = first.endsWith(":") && rest.length > 0 ? rest.map((line) => line.trim()) : [text]
        const time = new Date().toISOString()
        return Effect.sync(() => {
          process.stdout.write(
            lines
              .map(
                (line) => `${JSON.stringify({ time, level: "fatal", msg: `${who} cannot run: ${line}` })}\n`
              )
              .join("")
          )
        })
      }
    })
