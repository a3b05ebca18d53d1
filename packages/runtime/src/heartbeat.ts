/**
 * The worker's health for a container orchestrator: a worker has no HTTP port, so, when
 * `VERBATIM_WORKER_HEARTBEAT_FILE` is set, it writes the time to that file every
 * `VERBATIM_WORKER_HEARTBEAT_MS` (default 10000) after checking that it can reach what its work
 * needs: the database (a read of the accounts table) and the queue (the speech lane's depth), each
 * within the interval. A worker that cannot (its database cut, its Redis gone, its event loop
 * stuck) stops touching the file, and a health check that reads the file's age (deploy/compose.yaml:
 * older than three intervals is unhealthy) says so.
 */

import { FileSystem } from "@effect/platform"
import { Accounts, WorkQueue } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { Config, Duration, Effect, Option, Schedule } from "effect"

export interface HeartbeatSettings {
  readonly file: Option.Option<string>
  readonly intervalMs: number
}

export const HeartbeatConfig: Config.Config<HeartbeatSettings> = Config.all({
  file: Config.option(Config.nonEmptyString("VERBATIM_WORKER_HEARTBEAT_FILE")),
  intervalMs: Config.integer("VERBATIM_WORKER_HEARTBEAT_MS").pipe(
    Config.validate({
      message: "VERBATIM_WORKER_HEARTBEAT_MS must be a whole number of at least 100",
      validation: (n) => n >= 100
    }),
    Config.withDefault(10_000)
  )
})

/** An account id no account has: reading it is a round trip to the database and nothing more. */
const probeAccount = Ids.AccountId.make("00000000-0000-0000-0000-000000000000")

/**
 * Beats for as long as it runs (fork it in the worker's scope): checks, then writes the file; a
 * failed check is logged once per failure and writes nothing.
 */
export const heartbeat = (settings: HeartbeatSettings) =>
  Option.match(settings.file, {
    onNone: () => Effect.void,
    onSome: (file) =>
      Effect.gen(function* () {
        const accounts = yield* Accounts
        const queue = yield* WorkQueue
        const fs = yield* FileSystem.FileSystem
        const interval = Duration.millis(settings.intervalMs)
        const beat = Effect.all([accounts.get(probeAccount), queue.depth("asr")], { concurrency: 2 }).pipe(
          Effect.timeoutFail({ duration: interval, onTimeout: () => "no answer within the interval" }),
          Effect.zipRight(
            fs
              .writeFileString(`${file}.tmp`, `${new Date().toISOString()}\n`)
              .pipe(Effect.zipRight(fs.rename(`${file}.tmp`, file)))
          ),
          Effect.catchAll((error) =>
            Effect.logWarning(
              `worker heartbeat skipped: ${typeof error === "string" ? error : error.message}`
            ).pipe(Effect.annotateLogs({ file }))
          )
        )
        // Fields as annotations: in JSON each is its own field, not JSON inside `msg`.
        yield* Effect.logInfo(`worker heartbeat to ${file} every ${settings.intervalMs} ms`).pipe(
          Effect.annotateLogs({ file, interval_ms: settings.intervalMs })
        )
        return yield* Effect.repeat(beat, Schedule.spaced(interval))
      })
  })
