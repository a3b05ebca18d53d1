/**
 * `pnpm admin ...`: the admin command on the server's own database settings (the embedded data
 * folder, or PostgreSQL with DATABASE_URL). On the embedded database the server must be stopped:
 * the folder admits one process at a time.
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { DatabaseConfig } from "@verbatim/db"
import { adminOn, describeCause, persistenceFor, withSecretFiles } from "@verbatim/runtime"
import { Cause, Console, Effect, Layer, Option } from "effect"
import { runAdmin } from "./admin/commands.js"
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

const program = runAdmin(
  AdminLive,
  OAuthStoreLive
)(process.argv).pipe(
  withSecretFiles,
  Effect.tapErrorCause((cause) =>
    // The CLI has already explained a command line it rejected.
    Option.exists(Cause.failureOption(cause), ValidationError.isValidationError)
      ? Effect.void
      : Option.match(describeCause(cause), {
          onNone: () => Effect.void,
          onSome: (text) => Console.error(`verbatim-admin: ${text}`)
        })
  ),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, { disableErrorReporting: true })
