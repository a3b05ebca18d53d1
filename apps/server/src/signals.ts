/**
 * A stop signal must let the server finish shutting down (close the database, remove its pid file).
 * Effect's `runMain` handles the first SIGTERM or SIGINT and then stops listening, so a second one
 * ends the process at once, before its finalizers ran. A second one is ordinary: `kill -TERM -<pgid>`
 * or Ctrl-C reach every process of the group, and `tsx` (which `pnpm start` runs) passes its own on to
 * the server too. So a repeat within `graceMs` of the first is ignored; a later one still ends the
 * process at once, for an operator who wants it gone.
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
