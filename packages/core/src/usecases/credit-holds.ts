/**
 * Credit holds, the policy every entry point shares (HTTP, MCP and the worker's batch items run the
 * same use cases): paid work accepted now and run later reserves the most it can be charged, in
 * the transaction that accepts it, so parallel requests can never start more work than the
 * available balance (the ledger balance minus open holds) covers.
 *
 * - Speech recognition (a video's audio or an upload, alone or as a batch item) holds its quote
 *   under `hold:job:<job id>` with its job; a duration the platform does not tell is quoted (and
 *   held) at the 480-minute limit. The job's settlement charges the real price, never more than the
 *   hold, and closes it in the same statement; a failed job releases it (`Jobs.settleMany`).
 * - A translation holds its price under `hold:translate:<request id>` while the engine runs, then
 *   settles it with the charge, or releases it on any failure; it expires after `requestHoldTtl`.
 * - The reconciler releases the holds whose work is gone: a job finished without closing it or no
 *   longer there, a request hold expired (`releaseStaleHolds`).
 */
import type { Errors, Ids } from "@verbatim/domain"
import { DateTime, Duration, Effect } from "effect"
import type { PersistenceError } from "../errors.js"
import { Ledger } from "../ports/ledger.js"
import { insufficientCredits } from "./failures.js"

/** The key of a job's hold. */
export const jobHoldKey = (jobId: Ids.JobId): string => `hold:job:${jobId}`

/**
 * What a speech recognition job holds: the most it can be charged (its quote; the ceiling when the
 * duration is unknown), at least 1 credit.
 */
export const asrHoldAmount = (ceiling: number): number => Math.max(1, ceiling)

/** How long a hold of work that runs inside its request may stay open before the reconciler releases it. */
export const requestHoldTtl = Duration.minutes(15)

/** How many stale holds one reconcile round releases at most. */
export const staleHoldSweepLimit = 500

/**
 * Places the hold of a job (inside the transaction that creates it); a balance that cannot cover it
 * fails with the API's 402 (`payment_required`), naming what is available.
 */
export const holdForJob = (
  accountId: Ids.AccountId,
  jobId: Ids.JobId,
  amount: number,
  reason: string,
  at: DateTime.Utc
): Effect.Effect<void, Errors.ApiError | PersistenceError, Ledger> =>
  Effect.flatMap(Ledger, (ledger) =>
    ledger.hold({ accountId, key: jobHoldKey(jobId), jobId, reason, at }, amount).pipe(
      Effect.catchTag("InsufficientCredits", (error) =>
        Effect.fail(insufficientCredits(error.required, error.balance))
      ),
      Effect.asVoid
    )
  )

/** The reconciler's sweep of holds whose work is gone; how many it released. */
export const releaseStaleHolds: Effect.Effect<number, PersistenceError, Ledger> = Effect.gen(function* () {
  const ledger = yield* Ledger
  return yield* ledger.releaseStale(yield* DateTime.now, staleHoldSweepLimit)
})

/** When a request hold placed now expires. */
export const requestHoldExpiry = (at: DateTime.Utc): DateTime.Utc => DateTime.addDuration(at, requestHoldTtl)
