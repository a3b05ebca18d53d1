/**
 * Rules both work queues share: lane names, the effective key of an item, and the fairness rank.
 *
 * Fairness is start-time fair queueing. Each lane keeps a virtual time `V` (the highest rank
 * delivered so far) and, per account, the rank of its latest offer. A new item gets
 *
 *     rank = max(V, last rank of its account) + 1
 *
 * and the lane delivers the lowest rank first, the earliest offer first among equal ranks. So an
 * account's items keep their offer order (each rank is above the account's previous one), and an
 * account that offers one item while another has hundreds waiting gets a rank just above `V`: it
 * is delivered after at most one item of every other account (round robin). When nothing is
 * waiting or delayed as an item is delivered, the lane forgets `V` and the accounts' ranks, so
 * ranks stay small. Ranks are capped at `maxRank` (BullMQ's highest priority whose score is still
 * an exact double): a lane that never empties for millions of deliveries degrades to plain
 * first-in-first-out at the cap, never to loss or reordering within an account.
 *
 * The Redis queue applies the same rule in Lua and hands the rank to BullMQ as the job priority
 * (lower first, first-in-first-out among equal priorities).
 */
import { QueueError, type WorkItem } from "@verbatim/core"
import { Effect } from "effect"

export const maxRank = 2_097_151

/** The rank of a new item of an account (see above). */
export const rankOf = (virtualTime: number, accountLast: number | undefined): number =>
  Math.min(maxRank, Math.max(virtualTime, accountLast ?? 0) + 1)

/** Lane names become parts of Redis keys (and BullMQ queue names, which refuse `:`). */
const laneName = /^[A-Za-z0-9_.-]{1,100}$/

export const checkLane = (operation: string, lane: string): Effect.Effect<void, QueueError> =>
  laneName.test(lane)
    ? Effect.void
    : Effect.fail(
        new QueueError({
          operation,
          cause: new Error(`invalid lane name ${JSON.stringify(lane)}: use 1-100 of A-Z a-z 0-9 _ . -`)
        })
      )

export const checkConcurrency = (concurrency: number): Effect.Effect<void, QueueError> =>
  Number.isSafeInteger(concurrency) && concurrency >= 1
    ? Effect.void
    : Effect.fail(
        new QueueError({
          operation: "consume",
          cause: new Error(`concurrency must be a positive integer, got ${concurrency}`)
        })
      )

/** The item as delivered: its deduplication key made explicit. */
export const delivered = (item: WorkItem): WorkItem & { readonly key: string } => ({
  lane: item.lane,
  id: item.id,
  accountId: item.accountId,
  key: item.key ?? item.id
})

/** A delay as whole milliseconds (absent, negative or not a number: none). */
export const delayOf = (delayMs: number | undefined): number =>
  delayMs === undefined || !Number.isFinite(delayMs) || delayMs <= 0 ? 0 : Math.ceil(delayMs)
