/**
 * The worker: what every process that runs asynchronous work does (the embedded server's worker
 * fibers and each `apps/worker` process alike).
 *
 * - Jobs: an item of a job lane names a job; the worker claims it with a lease (none: another worker
 *   has it, or it is finished: the item is done), keeps the lease alive while the kind's handler
 *   works, and settles the outcome through `JobLifecycle`. A handler that asks for a retry hands the
 *   job back with a time to run again. A worker that dies leaves its lease to expire; the job is
 *   then claimed again and runs to completion once (the charge is keyed on the job, and settling
 *   needs the lease).
 * - Batches: claims and settles made while the previous one runs go to the database together (one
 *   `claimMany`, one `settleMany`), so under load a round trip serves many jobs and an idle worker
 *   waits for nothing. One heartbeat extends every lease in hand with one statement, every third of
 *   the lease, and interrupts the handler of a job whose lease was lost. A job's queue item is done
 *   once its handler has finished: its settle runs in the background (the job stays in hand, its
 *   lease alive, until it is settled), and the worker's layer waits for those settles when it closes.
 * - Webhooks: an item of the webhook lane names a delivery; one attempt is made under a short lease,
 *   recorded in the delivery log, and the next attempt scheduled by the retry schedule.
 * - Reconciling: PostgreSQL is the record; every `reconcileEveryMs` the worker offers again every
 *   runnable job and due delivery (a queue that lost items, a lease that expired). The queue's
 *   deduplication keeps that from doubling work, and the claim keeps a duplicate from running.
 *   (The sweeps, of stale credit holds, uploads, idempotency keys and OAuth rows, are features of
 *   their own in the registry: `sweeps.ts`.)
 * - Shutdown: closing the scope stops taking items; a handler still running after the grace period
 *   is interrupted and its job handed back at once, so another worker takes it without waiting
 *   for the lease to expire.
 */
import { Webhook } from "@verbatim/domain"
import {
  Cause,
  Clock,
  Context,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  type Fiber,
  FiberId,
  Layer,
  LogLevel,
  Option,
  Random,
  type Scope
} from "effect"
import type { PersistenceError } from "../errors.js"
import { Accounts } from "../ports/accounts.js"
import { type ClaimedJob, type JobKind, type JobRecord, Jobs } from "../ports/jobs.js"
import { Secrets } from "../ports/secrets.js"
import { WebhookDeliveries } from "../ports/webhook-deliveries.js"
import { type WebhookOutcome, WebhookSender } from "../ports/webhooks.js"
import { type WorkItem, WorkQueue } from "../ports/work-queue.js"
import { JobLifecycle, type Outcome, type Settled, type Settling, webhookLane } from "./job-lifecycle.js"
import { type BackgroundFeature, heartbeat } from "./lanes.js"

/** A handler asks for the job to run again later (a transient failure). */
export interface Retry {
  readonly _tag: "Retry"
  readonly afterMs: number
  readonly error: string
}

export type WorkResult = Outcome | Retry

/** Why the work stopped before its handler finished. */
type Interrupted = { readonly _tag: "LeaseLost" } | { readonly _tag: "Stopping" }

/** What a kind of job does with a claimed job. It cannot fail: every failure is an outcome. */
export type JobHandler = (job: JobRecord) => Effect.Effect<WorkResult>

/** The handler of each kind of job this process runs. */
export class JobHandlers extends Context.Tag("@verbatim/core/JobHandlers")<
  JobHandlers,
  ReadonlyMap<JobKind, JobHandler>
>() {}

export interface LaneSettings {
  readonly lane: JobKind
  readonly concurrency: number
}

export interface WorkerSettingsShape {
  /** This process's name in leases (unique per process). */
  readonly owner: string
  readonly lanes: ReadonlyArray<LaneSettings>
  readonly webhookConcurrency: number
  /** How long a claimed job is held without a heartbeat. */
  readonly leaseMs: number
  readonly reconcileEveryMs: number
  /** How long shutdown waits for handlers in hand before handing their jobs back. */
  readonly shutdownGraceMs: number
  /** How many times a job is claimed before it fails for good. */
  readonly maxAttempts: number
  readonly webhook: {
    readonly timeoutMs: number
    readonly allowedHosts: ReadonlyArray<string>
    readonly schedule: Webhook.RetrySchedule
  }
}

export class WorkerSettings extends Context.Tag("@verbatim/core/WorkerSettings")<
  WorkerSettings,
  WorkerSettingsShape
>() {}

export class Worker extends Context.Tag("@verbatim/core/Worker")<
  Worker,
  {
    /**
     * Claims and runs one job, and settles it: in the background, with the jobs that finish beside
     * it, once this (the handler of a job lane's item) has returned.
     */
    readonly runJob: (id: string) => Effect.Effect<void>
    /** Makes one attempt of one delivery (the handler of a webhook lane's item). */
    readonly runDelivery: (id: string) => Effect.Effect<void>
    /** Offers every runnable job and due delivery again; how many were offered. */
    readonly reconcile: Effect.Effect<number>
    /**
     * The worker's part of the background work (`BackgroundWork`): the lane of every kind of job and
     * the webhook lane, `reconcile`, and the start of the shutdown grace when the scope closes.
     */
    readonly background: BackgroundFeature
  }
>() {}

const describeOutcome = (outcome: WebhookOutcome): { statusCode: number | null; error: string | null } => {
  switch (outcome._tag) {
    case "Answered":
      return {
        statusCode: outcome.status,
        error: outcome.status >= 300 ? `answered ${outcome.status}` : null
      }
    case "Unreachable":
      return { statusCode: null, error: outcome.reason }
    case "Refused":
      return { statusCode: null, error: outcome.reason }
  }
}

/** A batcher: runs the inputs given to it while its previous batch ran (see `batcher`). */
interface Batcher<I, O, E> {
  /** Runs `input` in the next batch; its result. */
  readonly request: (input: I) => Effect.Effect<O, E>
  /** Runs `input` in the next batch and `then` with its result, in the batcher's fiber. */
  readonly submit: (input: I, then: (result: Exit.Exit<O, E>) => Effect.Effect<void>) => Effect.Effect<void>
  /** Waits until nothing is waiting or running (a `then` may submit more). */
  readonly idle: Effect.Effect<void>
}

interface Pending<I, O, E> {
  readonly input: I
  /** Resumes a waiting `request`. */
  readonly resume?: ((result: Exit.Exit<O, E>) => void) | undefined
  /** The continuation of a `submit`. */
  readonly then?: ((result: Exit.Exit<O, E>) => Effect.Effect<void>) | undefined
  /** The `request` was interrupted while waiting: its result goes to `abandoned`. */
  abandoned: boolean
}

/**
 * Runs the inputs given while its batches run (or, when one of its `parallel` runners is idle, one
 * at once) as one batch: no waiting window, so a lone input costs no latency, and under load each
 * round trip serves many. `run` answers every input, in order. A request interrupted while waiting
 * leaves its result to `abandoned`. The runners are fibers of the scope; requests wait with
 * `Effect.async`, so an input costs no queue, deferred or fiber of its own.
 */
const batcher = <I, O, E>(
  options: { readonly maxBatch: number; readonly parallel: number },
  run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  abandoned: (output: O) => Effect.Effect<void>
): Effect.Effect<Batcher<I, O, E>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const pending: Array<Pending<I, O, E>> = []
    let running = 0
    /** Runners waiting for inputs. */
    const sleeping: Array<() => void> = []
    let idleWaiters: Array<() => void> = []

    const signal = () => sleeping.shift()?.()
    const nextBatch = Effect.async<ReadonlyArray<Pending<I, O, E>>>((resume) => {
      const take = (): void => {
        // Another runner took everything meanwhile: sleep on.
        if (pending.length === 0) return void sleeping.push(take)
        running += 1
        resume(Effect.succeed(pending.splice(0, options.maxBatch)))
      }
      if (pending.length > 0) return take()
      sleeping.push(take)
      return Effect.sync(() => {
        const at = sleeping.indexOf(take)
        if (at >= 0) sleeping.splice(at, 1)
      })
    })
    const whenIdle = () => {
      if (running > 0 || pending.length > 0) return
      const waiters = idleWaiters
      idleWaiters = []
      for (const waiter of waiters) waiter()
    }

    const answer = (entry: Pending<I, O, E>, result: Exit.Exit<O, E>): Effect.Effect<void> => {
      if (entry.then !== undefined) return Effect.catchAllCause(entry.then(result), Effect.logError)
      if (!entry.abandoned) {
        entry.resume?.(result)
        return Effect.void
      }
      return Exit.isSuccess(result) ? Effect.ignore(abandoned(result.value)) : Effect.void
    }

    const runner = Effect.gen(function* () {
      const batch = yield* nextBatch
      // More waiting than this runner took: wake another.
      if (pending.length > 0) signal()
      const exit = yield* Effect.exit(run(batch.map((entry) => entry.input)))
      for (const [i, entry] of batch.entries()) {
        yield* answer(
          entry,
          Exit.flatMap(exit, (outputs) =>
            i < outputs.length ? Exit.succeed(outputs[i] as O) : Exit.die("a batch gave too few results")
          )
        )
      }
      running -= 1
      whenIdle()
    })
    for (let i = 0; i < options.parallel; i++) yield* Effect.forkScoped(Effect.forever(runner))
    // Requests still waiting when the batcher goes are answered with an interruption.
    yield* Effect.addFinalizer(() =>
      Effect.forEach(pending.splice(0), (entry) => answer(entry, Exit.interrupt(FiberId.none)), {
        discard: true
      })
    )

    return {
      request: (input) =>
        Effect.async<O, E>((resume) => {
          const entry: Pending<I, O, E> = { input, resume, abandoned: false }
          pending.push(entry)
          signal()
          return Effect.sync(() => {
            entry.abandoned = true
          })
        }),
      submit: (input, then) =>
        Effect.sync(() => {
          pending.push({ input, then, abandoned: false })
          signal()
        }),
      idle: Effect.async<void>((resume) => {
        if (running === 0 && pending.length === 0) return resume(Effect.void)
        idleWaiters.push(() => resume(Effect.void))
      })
    }
  })

/**
 * Most jobs claimed, or settled, in one statement, and how many such statements a worker runs at
 * once: a second one starts while the first is at the database, so a job seldom waits for another's
 * batch.
 */
const batching = { maxBatch: 64, parallel: 2 } as const

/** A claimed job this process works on. */
interface InHand {
  readonly job: JobRecord
  /** When the job was claimed (epoch milliseconds): its log lines give the time since. */
  readonly claimedAt: number
  /** The fiber running the job's handler, while it runs (the queue item's fiber: see `work`). */
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  /** Why the handler was interrupted, when it was. */
  stop: Interrupted | undefined
}

/**
 * A log line about a job in hand, with its id, kind, account and the request that made it
 * (`request_id`), and the milliseconds since it was
 * claimed (`duration_ms`): an aggregator follows each job through claim, completion, failure,
 * retry, hand-back and lease takeover.
 */
const logJob = (
  entry: InHand,
  level: LogLevel.LogLevel,
  message: string,
  fields: Record<string, unknown> = {},
  cause: Cause.Cause<unknown> = Cause.empty
) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.logWithLevel(level, message, cause).pipe(
      Effect.annotateLogs({
        "job.id": entry.job.id,
        "job.kind": entry.job.kind,
        "account.id": entry.job.accountId,
        // The request that made the job (the API's request_id; the X-Request-Id the server gave it).
        request_id: entry.job.requestId,
        duration_ms: now - entry.claimedAt,
        ...fields
      })
    )
  )

export const WorkerLive = Layer.scoped(
  Worker,
  Effect.gen(function* () {
    const settings = yield* WorkerSettings
    const handlers = yield* JobHandlers
    const jobs = yield* Jobs
    const lifecycle = yield* JobLifecycle
    const queue = yield* WorkQueue
    const deliveries = yield* WebhookDeliveries
    const accounts = yield* Accounts
    const sender = yield* WebhookSender
    const secrets = yield* Secrets
    const owner = settings.owner
    /** Completed when shutdown begins: handlers still running a grace period later are handed back. */
    const stopping = yield* Deferred.make<void>()
    let graceOver = false
    /** The jobs this process holds, from their claim until they are settled or handed back. */
    const inHand = new Map<string, InHand>()

    const logged = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logError(`${what} failed; the reconciler will retry`, cause))
      )

    /** Interrupts a job's handler, if it still runs, telling it why. */
    const stopHandler = (entry: InHand, why: Interrupted) =>
      Effect.fiberIdWith((self) =>
        Effect.sync(() => {
          const fiber = entry.fiber
          if (fiber === undefined || entry.stop !== undefined) return
          entry.stop = why
          fiber.unsafeInterruptAsFork(self)
        })
      )

    // One heartbeat keeps every lease in hand alive with one statement; a job whose lease was lost
    // (another worker has it) has its handler interrupted.
    const extendInHand = Effect.gen(function* () {
      if (inHand.size === 0) return true
      const held = Array.from(inHand.values())
      const now = yield* DateTime.now
      const kept = new Set<string>(
        yield* jobs.extendLeases({
          ids: held.map(({ job }) => job.id),
          owner,
          now,
          leaseMs: settings.leaseMs
        })
      )
      for (const entry of held) {
        if (!kept.has(entry.job.id) && inHand.get(entry.job.id) === entry) {
          yield* stopHandler(entry, { _tag: "LeaseLost" })
        }
      }
      return true
    })
    yield* Effect.forkScoped(heartbeat(settings.leaseMs, extendInHand, "the leases in hand"))

    // The end of the shutdown grace: handlers still running are interrupted and their jobs handed back.
    yield* Effect.forkScoped(
      Deferred.await(stopping).pipe(
        Effect.zipRight(Effect.sleep(Duration.millis(settings.shutdownGraceMs))),
        Effect.zipRight(
          Effect.suspend(() => {
            graceOver = true
            return Effect.forEach(inHand.values(), (entry) => stopHandler(entry, { _tag: "Stopping" }), {
              discard: true
            })
          })
        )
      )
    )

    const handBack = (job: JobRecord, afterMs: number) =>
      Effect.gen(function* () {
        const at = DateTime.add(yield* DateTime.now, { millis: afterMs })
        yield* jobs.release(job.id, owner, at)
        yield* queue.offer([
          {
            lane: job.kind,
            id: job.id,
            accountId: job.accountId,
            key: `${job.id}:${job.attempts}:again`,
            delayMs: afterMs
          }
        ])
      })

    const claim: Batcher<string, Option.Option<ClaimedJob>, PersistenceError> = yield* batcher(
      batching,
      (ids: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const now = yield* DateTime.now
          const claimed = yield* jobs.claimMany({
            ids: Array.from(new Set(ids)) as Array<JobRecord["id"]>,
            owner,
            now,
            leaseMs: settings.leaseMs
          })
          const byId = new Map<string, ClaimedJob>(claimed.map((job) => [job.id, job]))
          // An id asked twice is given to the first asker only.
          return ids.map((id) => {
            const job = byId.get(id)
            byId.delete(id)
            return Option.fromNullable(job)
          })
        }),
      (claimed) =>
        Option.match(claimed, {
          onNone: () => Effect.void,
          onSome: (job) => logged(`handing back job ${job.id}`, handBack(job, 0))
        })
    )

    const settle: Batcher<Settling, Settled, PersistenceError> = yield* batcher(
      batching,
      (items: ReadonlyArray<Settling>) => lifecycle.settleMany(owner, items),
      () => Effect.void
    )

    /** A job the worker could not finish as planned goes back, to run again once its lease is over. */
    const failedUnexpectedly = (entry: InHand, cause: Cause.Cause<unknown>) =>
      logJob(
        entry,
        LogLevel.Error,
        `job ${entry.job.id} failed unexpectedly; handing it back`,
        {},
        cause
      ).pipe(
        Effect.zipRight(logged(`handing back job ${entry.job.id}`, handBack(entry.job, settings.leaseMs)))
      )

    /**
     * Settles the job in the next batch, then `letGo` of it. A charge the balance no longer covers
     * fails the job instead, uncharged. Runs after the job's queue item is done: see `runJob`.
     */
    const finish = (entry: InHand, outcome: Outcome, at: DateTime.Utc, letGo: Effect.Effect<void>) =>
      settle.submit({ job: entry.job, outcome, at }, (result): Effect.Effect<void> => {
        if (Exit.isFailure(result)) return Effect.ensuring(failedUnexpectedly(entry, result.cause), letGo)
        const settled = result.value
        if (Either.isLeft(settled)) {
          const { required, balance } = settled.left
          const error = `this needs ${required} credits and the balance is ${balance}`
          return finish(entry, { _tag: "Failed", error }, at, letGo)
        }
        const logged = Option.isNone(settled.right)
          ? logJob(entry, LogLevel.Warning, `job ${entry.job.id}: lease lost before settling`)
          : outcome._tag === "Failed"
            ? logJob(entry, LogLevel.Warning, `job ${entry.job.id} failed`, { error: outcome.error })
            : logJob(entry, LogLevel.Info, `job ${entry.job.id} completed`, { outcome: outcome._tag })
        return Effect.ensuring(logged, letGo)
      })

    /**
     * Runs the job's handler, then settles its outcome (in the background: see `finish`) or hands
     * the job back, and lets it go. The handler runs in this fiber, the queue item's, with no fiber of
     * its own: the heartbeat (lease lost) or the end of the shutdown grace interrupts this fiber while
     * the handler runs, and everything after the handler is uninterruptible, so an interruption that
     * comes too late (the handler had finished) only ends the queue item, never a settle.
     */
    const work = (job: JobRecord, entry: InHand, letGo: Effect.Effect<void>) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const handler = handlers.get(job.kind)
          if (handler === undefined) {
            const error = `this server cannot run ${job.kind} jobs`
            return yield* finish(entry, { _tag: "Failed", error }, yield* DateTime.now, letGo)
          }
          if (graceOver) {
            yield* logJob(entry, LogLevel.Info, `job ${job.id}: shutting down, handing it back`)
            return yield* Effect.ensuring(handBack(job, 0), letGo)
          }
          const exit = yield* Effect.withFiberRuntime<Exit.Exit<WorkResult>>((self) => {
            entry.fiber = self
            return Effect.exit(restore(handler(job)))
          })
          entry.fiber = undefined
          if (Exit.isFailure(exit)) {
            if (entry.stop?._tag === "LeaseLost") {
              yield* logJob(
                entry,
                LogLevel.Warning,
                `job ${job.id}: lease lost while working; another worker has it`
              )
              return yield* letGo
            }
            if (entry.stop?._tag === "Stopping" || Cause.isInterruptedOnly(exit.cause)) {
              yield* logJob(entry, LogLevel.Info, `job ${job.id}: shutting down, handing it back`)
              return yield* Effect.ensuring(handBack(job, 0), letGo)
            }
            return yield* Effect.ensuring(failedUnexpectedly(entry, exit.cause), letGo)
          }
          const result = exit.value
          if (result._tag !== "Retry") return yield* finish(entry, result, yield* DateTime.now, letGo)
          if (job.attempts >= settings.maxAttempts) {
            return yield* finish(entry, { _tag: "Failed", error: result.error }, yield* DateTime.now, letGo)
          }
          yield* logJob(entry, LogLevel.Info, `job ${job.id} will be retried`, {
            error: result.error,
            attempt: job.attempts,
            retry_in_ms: result.afterMs
          })
          return yield* Effect.ensuring(handBack(job, result.afterMs), letGo)
        }).pipe(Effect.catchAllCause((cause) => Effect.ensuring(failedUnexpectedly(entry, cause), letGo)))
      )

    // The settles still running when the worker closes are waited for (added after the batchers, so
    // it runs before they stop).
    yield* Effect.addFinalizer(() => settle.idle)

    const runJob = (id: string) =>
      logged(
        `job ${id}`,
        Effect.gen(function* () {
          // Already in hand here (offered twice): the claim would not take it anyway.
          if (inHand.has(id)) return
          const claimed = yield* claim.request(id)
          if (Option.isNone(claimed)) return
          const { takenOverFrom, ...job } = claimed.value
          const entry: InHand = {
            job,
            claimedAt: yield* Clock.currentTimeMillis,
            fiber: undefined,
            stop: undefined
          }
          inHand.set(job.id, entry)
          yield* takenOverFrom === null
            ? logJob(entry, LogLevel.Info, `job ${job.id} claimed`, { attempt: job.attempts })
            : logJob(entry, LogLevel.Warning, `job ${job.id} taken over from an expired lease`, {
                attempt: job.attempts,
                "lease.previous_owner": takenOverFrom
              })
          // The outcome is settled in the background, in a batch with the jobs that finish beside it:
          // the queue item is done and its slot free for the next job meanwhile. The job stays in hand
          // (its lease kept alive) until it is settled; if this process dies first, the lease expires
          // and the job runs again (its charge is keyed: never twice).
          yield* work(
            job,
            entry,
            Effect.sync(() => {
              if (inHand.get(job.id) === entry) inHand.delete(job.id)
            })
          )
        }).pipe(
          Effect.withSpan("verbatim.worker.job", { attributes: { "job.id": id }, captureStackTrace: false })
        )
      )

    const runDelivery = (id: string) =>
      logged(
        `webhook delivery ${id}`,
        Effect.gen(function* () {
          const now = yield* DateTime.now
          const leaseMs = settings.webhook.timeoutMs + 30_000
          const claimed = yield* deliveries.claim(id, owner, now, leaseMs)
          if (Option.isNone(claimed)) return
          const delivery = claimed.value
          const candidate = yield* secrets.newWebhookSecret
          const secret = yield* accounts.ensureWebhookSecret(delivery.accountId, candidate)
          const attempt = delivery.attempts + 1
          const outcome: WebhookOutcome = Option.isNone(secret)
            ? { _tag: "Refused", reason: "the account no longer exists" }
            : yield* sender.send({
                url: delivery.url,
                id: delivery.id,
                timestampSeconds: Math.floor(DateTime.toEpochMillis(now) / 1000),
                body: delivery.payload,
                secret: secret.value,
                timeoutMs: settings.webhook.timeoutMs,
                allowedHosts: settings.webhook.allowedHosts
              })
          const finishedAt = yield* DateTime.now
          const next = Webhook.next(settings.webhook.schedule, attempt, outcome, yield* Random.next)
          const nextAttemptAt =
            next._tag === "RetryIn" ? DateTime.add(finishedAt, { millis: next.delayMs }) : finishedAt
          const recorded = yield* deliveries.record(id, owner, {
            attempt: {
              attempt,
              at: now,
              ...describeOutcome(outcome),
              durationMs: "durationMs" in outcome ? Math.max(0, Math.round(outcome.durationMs)) : 0
            },
            status: next._tag === "Delivered" ? "delivered" : next._tag === "RetryIn" ? "pending" : "failed",
            nextAttemptAt
          })
          if (recorded && next._tag === "RetryIn") {
            yield* queue.offer([
              {
                lane: webhookLane,
                id,
                accountId: delivery.accountId,
                key: `${id}:${attempt}`,
                delayMs: next.delayMs
              }
            ])
          }
        }).pipe(
          Effect.withSpan("verbatim.worker.webhook", {
            attributes: { "delivery.id": id },
            captureStackTrace: false
          })
        )
      )

    const reconcile = Effect.gen(function* () {
      const now = yield* DateTime.now
      const runnable = yield* jobs.runnable(now, 1000)
      const due = yield* deliveries.due(now, 1000)
      yield* queue.offer([
        // Keyed by attempt: an item the queue still holds for an earlier attempt (its worker died
        // with it in hand) does not stop the job from being offered again.
        ...runnable.map((job) => ({
          lane: job.kind,
          id: job.id,
          accountId: job.accountId,
          key: `${job.id}:${job.attempts}`
        })),
        ...due.map((delivery) => ({
          lane: webhookLane,
          id: delivery.id,
          accountId: delivery.accountId,
          key: `${delivery.id}:${delivery.attempts}`
        }))
      ])
      return runnable.length + due.length
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logWarning("reconciling failed; trying again", cause), 0)
      )
    )

    const background: BackgroundFeature = {
      name: "jobs and webhook deliveries",
      lanes: [
        ...settings.lanes.map((lane) => ({ ...lane, handle: (item: WorkItem) => runJob(item.id) })),
        {
          lane: webhookLane,
          concurrency: settings.webhookConcurrency,
          handle: (item: WorkItem) => runDelivery(item.id)
        }
      ],
      reconcile,
      stopping: Deferred.succeed(stopping, undefined)
    }

    return Worker.of({ runJob, runDelivery, reconcile, background })
  })
)
