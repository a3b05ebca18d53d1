/**
 * The Redis `WorkQueue` on BullMQ, for many servers and worker processes sharing the work.
 *
 * - Lanes: one BullMQ queue per lane, its keys under `<prefix>q:<lane>:`. `consume` runs one BullMQ
 *   `Worker` with the given concurrency; its handlers run on the caller's runtime; closing the
 *   scope closes the worker gracefully (it takes no new job and waits for the handlers in hand).
 * - Deduplication: the BullMQ job id is the item's key, and finished jobs (completed or failed) are
 *   removed at once, so a key is refused exactly while its job is waiting, delayed or active.
 * - At least once: an active job holds a lock that its worker renews; when the process dies the
 *   lock expires (`lockDurationMs`) and a stalled check (every `stalledIntervalMs`, run by every
 *   worker of the lane) puts the job back, with no limit on how often (`maxStalledCount` is huge:
 *   PostgreSQL's lease decides how often a row may be tried, not the queue).
 * - Fairness: the rank of `./fairness.ts`, computed by a small Lua script over two helper fields
 *   per lane (`<prefix>fair:<lane>`: the virtual time and each account's latest rank), is the
 *   job's BullMQ priority. A second script, run as a job starts, moves the virtual time forward
 *   and forgets it when the lane has nothing waiting or delayed.
 * - Redis flushed or restarted: BullMQ's workers reconnect and block on the lane's marker again;
 *   keys that vanished are simply recreated by the next offer (the fairness fields start from
 *   zero). Items lost in a flush are offered again by the reconciler, from PostgreSQL. Offers and
 *   depth reads give up with `QueueError` after `operationTimeout` instead of hanging.
 */
import {
  type ConsumeOptions,
  type LaneDepth,
  QueueError,
  type WorkItem,
  type WorkOffer,
  WorkQueue
} from "@verbatim/core"
import { type Job, Queue, WaitingError, Worker } from "bullmq"
import {
  Cause,
  type ConfigError,
  Duration,
  Effect,
  Exit,
  Layer,
  Runtime,
  Schedule,
  Schema,
  type Scope
} from "effect"
import type { Redis } from "ioredis"
import { RedisConnection } from "../redis/connection.js"
import { evalScript, luaScript } from "../redis/script.js"
import { RedisConfig } from "../redis/settings.js"
import { checkConcurrency, checkLane, delayOf, delivered, maxRank } from "./fairness.js"

export interface RedisWorkQueueOptions {
  /** Put in front of every key (`<prefix>q:<lane>:…` for BullMQ, `<prefix>fair:<lane>`). */
  readonly prefix: string
  /** How long an active job's lock lasts without renewal: the stall timeout (default 30 s). */
  readonly lockDurationMs?: number | undefined
  /** How often workers look for stalled jobs (default 15 s). */
  readonly stalledIntervalMs?: number | undefined
  /** How long an idle worker blocks before polling again, in seconds (default 5). */
  readonly drainDelaySeconds?: number | undefined
  /** Offers and depth reads fail with `QueueError` after this long (default 5 seconds). */
  readonly operationTimeout?: Duration.DurationInput | undefined
  /**
   * Once the handlers in hand have finished, how long closing a consumer waits for BullMQ to close
   * its worker before dropping the worker's connections (default 5 seconds; see `closeWorker`).
   */
  readonly closeGraceMs?: number | undefined
  /**
   * A consumer that took nothing while items were ready for this long has its BullMQ worker
   * replaced (default 5 seconds; see the watchdog in `consume`).
   */
  readonly stuckAfterMs?: number | undefined
}

/** The data of a BullMQ job: the item and its fairness rank. */
const JobData = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  key: Schema.String,
  rank: Schema.Int
})
type JobData = typeof JobData.Type
const decodeJobData = Schema.decodeUnknownEither(JobData)

/** BullMQ refuses job ids that are integers or contain `:`; this keeps keys apart, one to one. */
export const jobIdOf = (key: string): string => `k${key.replaceAll("%", "%25").replaceAll(":", "%3A")}`

/**
 * The rank of a new item (see `./fairness.ts`), or 0 when its job exists (waiting, delayed or
 * active: BullMQ would refuse it anyway; skipping it keeps the account's rank untouched).
 *
 * A job's hash that no state holds (not prioritized, delayed, active, waiting or paused) is an
 * orphan: Redis lost some of the lane's keys and not others (an eviction, a flush that ran while
 * offers came in). BullMQ would refuse its key forever, and the item would never run again, so the
 * orphan (and its lock) is deleted here and the item added afresh.
 * KEYS[1] the lane's fairness hash, KEYS[2] the job's hash, KEYS[3] prioritized zset, KEYS[4]
 * delayed zset, KEYS[5] active list, KEYS[6] wait list, KEYS[7] paused list; ARGV[1] account id,
 * ARGV[2] max rank, ARGV[3] the job's id.
 */
const offerScript = luaScript(`
if redis.call("EXISTS", KEYS[2]) == 1 then
  local id = ARGV[3]
  if redis.call("ZSCORE", KEYS[3], id) or redis.call("ZSCORE", KEYS[4], id)
    or redis.call("LPOS", KEYS[5], id) or redis.call("LPOS", KEYS[6], id)
    or redis.call("LPOS", KEYS[7], id) then
    return 0
  end
  redis.call("DEL", KEYS[2], KEYS[2] .. ":lock")
end
local field = "a:" .. ARGV[1]
local v = tonumber(redis.call("HGET", KEYS[1], "v") or "0")
local last = tonumber(redis.call("HGET", KEYS[1], field) or "0")
local rank = math.min(math.max(v, last) + 1, tonumber(ARGV[2]))
redis.call("HSET", KEYS[1], field, rank)
return rank
`)

/**
 * A job of rank ARGV[1] starts: the virtual time moves up to it; when nothing is waiting or
 * delayed any more, the lane's fairness state is forgotten.
 * KEYS[1] fairness hash, KEYS[2] wait list, KEYS[3] prioritized zset, KEYS[4] delayed zset,
 * KEYS[5] paused list.
 */
const startedScript = luaScript(`
local rank = tonumber(ARGV[1])
local v = tonumber(redis.call("HGET", KEYS[1], "v") or "0")
if rank > v then redis.call("HSET", KEYS[1], "v", rank) end
local pending = redis.call("LLEN", KEYS[2]) + redis.call("ZCARD", KEYS[3]) + redis.call("ZCARD", KEYS[4])
  + redis.call("LLEN", KEYS[5])
if pending == 0 then redis.call("DEL", KEYS[1]) end
return pending
`)

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Logs through the runtime, at most once per `everyMs` (BullMQ repeats errors while Redis is down). */
const throttledLogger = (runtime: Runtime.Runtime<never>, message: string, everyMs = 5_000) => {
  let lastAt = Number.NEGATIVE_INFINITY
  return (error: unknown): void => {
    const now = Date.now()
    if (now - lastAt < everyMs) return
    lastAt = now
    Runtime.runFork(runtime)(Effect.logWarning(message, messageOf(error)))
  }
}

const logHandlerFailure = (item: WorkItem, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  (Cause.isInterruptedOnly(cause)
    ? Effect.logDebug("work item handler was interrupted", cause)
    : Effect.logError("work item handler died", cause)
  ).pipe(Effect.annotateLogs({ lane: item.lane, itemId: item.id, accountId: item.accountId }))

const sleep = (ms: number): Promise<"timeout"> =>
  new Promise((resolve) => setTimeout(() => resolve("timeout"), ms).unref())

/**
 * Closes a consumer's worker: BullMQ's graceful close (no new job; wait for the jobs in hand), but
 * never stuck on it. BullMQ's close waits for its blocking connection to end, which never happens
 * while that connection is reconnecting (Redis down or just restarted: taskforcesh/bullmq#4656).
 * So the handlers in hand are awaited here, whatever Redis does; then the close gets `graceMs`,
 * after which the worker's connections (never the shared one) are dropped (the jobs whose handlers finished but whose
 * completion Redis never heard of are delivered again after the stall timeout: at least once).
 */
const closeWorker = async (
  worker: Worker,
  handlers: Set<Promise<void>>,
  graceMs: number
): Promise<boolean> => {
  const closing = worker.close().then(
    () => "closed" as const,
    () => "closed" as const
  )
  while (handlers.size > 0) await Promise.allSettled(Array.from(handlers))
  if ((await Promise.race([closing, sleep(graceMs)])) === "closed") return true
  await Promise.race([worker.disconnect().catch(() => undefined), sleep(1_000)])
  return false
}

export const make = (
  options: RedisWorkQueueOptions
): Effect.Effect<WorkQueue["Type"], never, RedisConnection | Scope.Scope> =>
  Effect.gen(function* () {
    const client: Redis = yield* RedisConnection
    const bullPrefix = `${options.prefix}q`
    const fairKey = (lane: string): string => `${options.prefix}fair:${lane}`
    const lockDuration = options.lockDurationMs ?? 30_000
    const stalledInterval = options.stalledIntervalMs ?? 15_000
    const drainDelay = options.drainDelaySeconds ?? 5
    const operationTimeout = options.operationTimeout ?? Duration.seconds(5)
    const closeGraceMs = options.closeGraceMs ?? 5_000
    const stuckAfterMs = options.stuckAfterMs ?? 5_000
    const stuckCheckMs = Math.max(100, Math.floor(stuckAfterMs / 2))
    const runtime = yield* Effect.runtime<never>()
    const queues = new Map<string, Queue>()

    // Every BullMQ queue made here is closed with the layer (the shared client stays open).
    yield* Effect.addFinalizer(() =>
      Effect.promise(() =>
        Promise.race([
          Promise.allSettled(Array.from(queues.values(), (queue) => queue.close())),
          sleep(closeGraceMs)
        ])
      )
    )

    const queueOf = (lane: string): Queue => {
      const existing = queues.get(lane)
      if (existing !== undefined) return existing
      const queue = new Queue(lane, {
        connection: client,
        prefix: bullPrefix,
        streams: { events: { maxLen: 1_000 } },
        defaultJobOptions: { removeOnComplete: true, removeOnFail: true }
      })
      queue.on("error", throttledLogger(runtime, `work queue ${lane}: Redis error`))
      queues.set(lane, queue)
      return queue
    }

    const attempt = <A>(operation: string, run: () => Promise<A>): Effect.Effect<A, QueueError> =>
      Effect.tryPromise({ try: run, catch: (cause) => new QueueError({ operation, cause }) }).pipe(
        Effect.timeoutFail({
          duration: operationTimeout,
          onTimeout: () => new QueueError({ operation, cause: new Error("Redis did not answer in time") })
        })
      )

    const offerLane = async (lane: string, offers: ReadonlyArray<WorkOffer>): Promise<void> => {
      const queue = queueOf(lane)
      const stateKeys = [
        queue.keys.prioritized,
        queue.keys.delayed,
        queue.keys.active,
        queue.keys.wait,
        queue.keys.paused
      ].map((key) => key ?? "")
      const ranks = await Promise.all(
        offers.map((offer) => {
          const item = delivered(offer)
          const jobId = jobIdOf(item.key)
          return evalScript(
            client,
            offerScript,
            [fairKey(lane), queue.toKey(jobId), ...stateKeys],
            [item.accountId, maxRank, jobId]
          )
        })
      )
      const jobs = offers.flatMap((offer, index) => {
        const rank = Number(ranks[index])
        if (!(rank > 0)) return []
        const item = delivered(offer)
        const data: JobData = { id: item.id, accountId: item.accountId, key: item.key, rank }
        const delay = delayOf(offer.delayMs)
        return [
          {
            name: lane,
            data,
            opts: {
              jobId: jobIdOf(item.key),
              priority: rank,
              removeOnComplete: true,
              removeOnFail: true,
              ...(delay > 0 ? { delay } : {})
            }
          }
        ]
      })
      if (jobs.length > 0) await queue.addBulk(jobs)
    }

    const offer = (items: ReadonlyArray<WorkOffer>): Effect.Effect<void, QueueError> =>
      Effect.gen(function* () {
        const byLane = new Map<string, Array<WorkOffer>>()
        for (const item of items) {
          yield* checkLane("offer", item.lane)
          const list = byLane.get(item.lane)
          if (list === undefined) byLane.set(item.lane, [item])
          else list.push(item)
        }
        if (byLane.size === 0) return
        yield* attempt("offer", () =>
          Promise.all(Array.from(byLane, ([lane, offers]) => offerLane(lane, offers)))
        )
      })

    const consume = (
      lane: string,
      consumeOptions: ConsumeOptions,
      handle: (item: WorkItem) => Effect.Effect<void>
    ): Effect.Effect<void, QueueError, Scope.Scope> =>
      Effect.gen(function* () {
        yield* checkLane("consume", lane)
        yield* checkConcurrency(consumeOptions.concurrency)
        const callerRuntime = yield* Effect.runtime<never>()
        const queue = queueOf(lane)
        const startedKeys = [
          fairKey(lane),
          queue.keys.wait,
          queue.keys.prioritized,
          queue.keys.delayed,
          queue.keys.paused
        ].map((key) => key ?? "")
        const logStartFailure = throttledLogger(callerRuntime, `work queue ${lane}: fairness update failed`)

        // The handlers in hand, so that closing can wait for them whatever BullMQ does.
        const handlers = new Set<Promise<void>>()
        let closing = false
        /** When this consumer last took an item (for the watchdog below). */
        let lastTaken = Date.now()

        const work = async (job: Job): Promise<void> => {
          lastTaken = Date.now()
          const decoded = decodeJobData(job.data)
          if (decoded._tag === "Left") {
            Runtime.runFork(callerRuntime)(
              Effect.logWarning("work queue: dropping a job that is not a work item", job.id ?? "")
            )
            return
          }
          const data = decoded.right
          const item: WorkItem = { lane, id: data.id, accountId: data.accountId, key: data.key }
          // Sent before the handler starts, not waited for: Redis runs a connection's commands in
          // the order sent, so every offer the handler makes (on the same client) still ranks after
          // the virtual time moved, and the item does not wait a round trip to start.
          const started = evalScript(client, startedScript, startedKeys, [data.rank]).catch(logStartFailure)
          const exit = await Runtime.runPromiseExit(callerRuntime)(
            handle(item).pipe(Effect.catchAllCause((cause) => logHandlerFailure(item, cause)))
          )
          if (Exit.isFailure(exit))
            await Runtime.runPromise(callerRuntime)(logHandlerFailure(item, exit.cause))
          await started
        }

        const processor = async (job: Job, token?: string): Promise<void> => {
          if (closing) {
            // Fetched as the consumer closes: back to waiting, for a consumer that is still open. If
            // Redis cannot take it back, its lock lapses and the stall check puts it back instead.
            if (token !== undefined) await job.moveToWait(token).catch(() => undefined)
            throw new WaitingError()
          }
          const handled = work(job)
          handlers.add(handled)
          return handled.finally(() => handlers.delete(handled))
        }

        const logWorkerError = throttledLogger(callerRuntime, `work queue ${lane}: worker error`)
        /**
         * A BullMQ worker on its own connection (BullMQ's `disconnect`, the last resort of
         * `closeWorker`, ends the client it was given, which must not be the shared one).
         */
        const startWorker = () => {
          const own = client.duplicate()
          own.on("error", () => {})
          const worker = new Worker(lane, processor, {
            connection: own,
            prefix: bullPrefix,
            concurrency: consumeOptions.concurrency,
            lockDuration,
            stalledInterval,
            maxStalledCount: 1_000_000,
            drainDelay,
            autorun: true
          })
          worker.on("error", logWorkerError)
          return { worker, own }
        }
        let current = yield* Effect.try({
          try: startWorker,
          catch: (cause) => new QueueError({ operation: "consume", cause })
        })
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => {
            closing = true
            return closeWorker(current.worker, handlers, closeGraceMs)
          }).pipe(
            Effect.flatMap((closed) =>
              closed
                ? Effect.void
                : Effect.logWarning(
                    `work queue ${lane}: Redis did not let the worker close; dropped its connections`
                  )
            ),
            Effect.ensuring(Effect.sync(() => current.own.disconnect()))
          )
        )

        // A BullMQ worker may never take a job again after Redis went away and came back
        // (taskforcesh/bullmq#2964, #2466): when items have been ready for `stuckAfterMs` and this
        // consumer, idle, took none of them, its worker is replaced by a new one.
        let readySince: number | null = null
        const watch = Effect.promise(async () => {
          if (closing) return
          if (handlers.size > 0 || Date.now() - lastTaken < stuckAfterMs) {
            readySince = null
            return
          }
          const counts = await queue.getJobCounts("wait", "prioritized").catch(() => null)
          const ready = counts === null ? 0 : (counts.wait ?? 0) + (counts.prioritized ?? 0)
          if (ready === 0) {
            readySince = null
            return
          }
          if (readySince === null || readySince < lastTaken) {
            readySince = Date.now()
            return
          }
          if (Date.now() - readySince < stuckAfterMs || closing) return
          readySince = null
          const stuck = current
          current = startWorker()
          Runtime.runFork(callerRuntime)(
            Effect.logWarning(
              `work queue ${lane}: the worker took nothing while items were ready; replaced it`
            )
          )
          await closeWorker(stuck.worker, new Set(), 1_000).catch(() => false)
          stuck.own.disconnect()
        })
        yield* Effect.forkScoped(watch.pipe(Effect.repeat(Schedule.spaced(Duration.millis(stuckCheckMs)))))
      })

    const depth = (lane: string): Effect.Effect<LaneDepth, QueueError> =>
      Effect.gen(function* () {
        yield* checkLane("depth", lane)
        const queue = queueOf(lane)
        const counts = yield* attempt("depth", () =>
          queue.getJobCounts("wait", "prioritized", "delayed", "active")
        )
        const count = (name: string): number => counts[name] ?? 0
        return {
          waiting: count("wait") + count("prioritized"),
          delayed: count("delayed"),
          active: count("active")
        }
      })

    return WorkQueue.of({ offer, consume, depth })
  })

export const layer = (options: RedisWorkQueueOptions): Layer.Layer<WorkQueue, never, RedisConnection> =>
  Layer.scoped(WorkQueue, make(options))

/** The prefix from `VERBATIM_REDIS_PREFIX`; stall timeouts at their defaults. */
export const layerConfig: Layer.Layer<WorkQueue, ConfigError.ConfigError, RedisConnection> =
  Layer.unwrapEffect(Effect.map(RedisConfig, (settings) => layer({ prefix: settings.prefix })))
