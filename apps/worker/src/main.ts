/**
 * `pnpm worker`: a worker process. It takes jobs and webhook deliveries from the Redis queue and
 * runs them against PostgreSQL, with the settings of `@verbatim/runtime` (README, "Settings").
 * Run any number of them beside any number of API servers. SIGTERM (or Ctrl-C) stops taking work,
 * waits `VERBATIM_SHUTDOWN_GRACE_MS` for the jobs in hand, and hands the rest back; a repeated
 * signal (to the process group, Ctrl-C) does not cut that short.
 *
 * The embedded default (no `DATABASE_URL`, no `REDIS_URL`) needs no worker process: `pnpm start`
 * runs the worker's fibers inside the server, and the data folder admits one process anyway.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { absorbRepeatedSignals, workerOn } from "@verbatim/runtime"
import { workerProgram } from "./program.js"

// A repeated SIGTERM or SIGINT (to the process group, Ctrl-C) must not cut the hand-back short.
absorbRepeatedSignals()
NodeRuntime.runMain(workerProgram(workerOn), { disableErrorReporting: true, disablePrettyLogger: true })
