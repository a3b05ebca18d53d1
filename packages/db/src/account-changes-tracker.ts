/**
 * What both listeners of `account-changes.ts` share: the version a process keeps of the accounts'
 * changes, the service over it, and the PostgreSQL listener's timing and name (kept apart from the
 * listener itself, which loads node-postgres).
 */
import { AccountChanges } from "@verbatim/core"
import { Duration, Effect, Option } from "effect"

/** How often the listening connection proves it is alive, and how long it may take to answer. */
export const heartbeatEvery = Duration.seconds(5)
/** How long after losing it the listening connection is opened again. */
export const retryEvery = Duration.seconds(1)

/** The listening connection's `application_name`, followed by `:<schema>` once connected. */
export const applicationName = "verbatim-account-changes"

/** The version of the account changes heard, and whether listening is live (else no version). */
export interface Tracker {
  version: number
  live: boolean
}

export const serviceOf = (tracker: Tracker) =>
  AccountChanges.of({
    version: Effect.sync(() => (tracker.live ? Option.some(tracker.version) : Option.none())),
    changed: Effect.sync(() => {
      tracker.version += 1
    })
  })
