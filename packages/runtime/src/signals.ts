/**
 * A stop signal must let a process finish shutting down: the server closes the database and removes
 * its pid file, a worker waits for its jobs in hand and hands the rest back. Effect's `runMain`
 * handles the first SIGTERM or SIGINT and then stops listening, so a second one ends the process at
 * once, before its finalizers ran. A second one is ordinary: `kill -TERM -<pgid>` or Ctrl-C reach
 * every process of the group (pnpm's too, which passes its own on). So a repeat within `graceMs` of
 * the first is ignored; a later one still ends the process at once, for an operator who wants it
 * gone. `pnpm start` and `pnpm worker` call it before `runMain`.
 */
import { constants } from "node:os"

export const repeatGraceMs = 2_000

/** Keeps a repeated SIGTERM or SIGINT from cutting the shutdown the first one started. */
export const absorbRepeatedSignals = (graceMs = repeatGraceMs): void => {
  let first: number | undefined
  const onSignal = (signal: "SIGTERM" | "SIGINT") => {
    const now = Date.now()
    if (first === undefined) first = now
    else if (now - first > graceMs) process.exit(128 + constants.signals[signal])
  }
  process.on("SIGTERM", onSignal)
  process.on("SIGINT", onSignal)
}
