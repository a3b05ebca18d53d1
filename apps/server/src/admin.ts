/**
 * `pnpm admin ...`: the admin command on the server's own database settings (the embedded data
 * folder, or PostgreSQL with DATABASE_URL). On the embedded database the server must be stopped:
 * the folder admits one process at a time.
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { DatabaseConfig } from "@verbatim/db"
import { adminOn, checkedSettings, describeCause, persistenceFor, withSecretFiles } from "@verbatim/runtime"
import { Cause, Console, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { runAdmin } from "./admin/commands.js"
import { DoctorFailed } from "./admin/doctor-spawn.js"
import { holdDataFolder } from "./data-lock.js"

const AdminLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const database = yield* DatabaseConfig
    if (Option.isNone(database.url)) yield* holdDataFolder(database.dataDir)
    return adminOn(persistenceFor(database))
  })
)

/** The OAuth store for `oauth list|revoke`, on the same database (opened only by those commands). */
const OAuthStoreLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const database = yield* DatabaseConfig
    if (Option.isNone(database.url)) yield* holdDataFolder(database.dataDir)
    return persistenceFor(database)
  })
)

// The database's settings and every VERBATIM_* name checked first, each problem on its own line
// (`doctor` reports them itself, with the rest).
const checked =
  process.argv[2] === "doctor"
    ? Effect.void
    : Effect.flatMap(checkedSettings(DatabaseConfig), ({ warnings }) =>
        Effect.forEach(warnings, (warning) => Console.error(`verbatim-admin: ${warning}`), { discard: true })
      )
const program = checked.pipe(
  Effect.zipRight(runAdmin(AdminLive, OAuthStoreLive)(process.argv)),
  withSecretFiles,
  Effect.tapErrorCause((cause) =>
    // The CLI has already explained a command line it rejected; doctor its report.
    Option.exists(
      Cause.failureOption(cause),
      (error) => ValidationError.isValidationError(error) || error instanceof DoctorFailed
    )
      ? Effect.void
      : Option.match(describeCause(cause), {
          onNone: () => Effect.void,
          onSome: (text) => Console.error(`verbatim-admin: ${text}`)
        })
  ),
  // Only warnings and errors are logged (to stdout, as Effect's default logger does): the commands'
  // own output (and `--json`) is not mixed with the migrations' info lines.
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, { disableErrorReporting: true })
