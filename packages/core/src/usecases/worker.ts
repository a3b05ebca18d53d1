/**
 * The worker: what every process that runs asynchronous work does (the embedded server's worker
 * fibers and each `apps/worker` process alike).
 *
 * - Jobs: an item of a job lane names a job; the worker claims it with a lease (none: another worker
 *   has it, or it is finished: the item is done), keeps the lease alive while the kind's handler
 *   works, and settles the outcome through `JobLifecycle` (one transaction). A handler that asks
 *   for a retry hands the job back with a time to run again. A worker that dies leaves its lease to
 *   expire; the job is then claimed again and runs to completion once (the charge is keyed on the
 *   job, and settling needs the lease).
 * - Webhooks: an item of the webhook lane names a delivery; one attempt is made under a short lease,
 *   recorded in the delivery log, and the next attempt scheduled by the retry schedule.
 * - Reconciling: PostgreSQL is the record; every `reconcileEveryMs` the worker offers again every
 *   runnable job and due delivery (a queue that lost items, a lease that expired). The queue's
 *   deduplication keeps that from doubling work, and the claim keeps a duplicate from running.
 * - Shutdown: closing the scope stops taking items; a handler still running after the grace period
 *   is interrupted and its job handed back at once, so another worker takes it without waiting
 *   for the lease to expire.
 */
import { Webhook } from "@verbatim/domain"
import {
  Context,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Fiber,
  Layer,
  Option,
  Random,
  Schedule,
  type Scope
} from "effect"
import { Accounts } from "../ports/accounts.js"
import { type JobKind, type JobRecord, Jobs } from "../ports/jobs.js"
import { Secrets } from "../ports/secrets.js"
import { WebhookDeliveries } from "../ports/webhook-deliveries.js"
import { type WebhookOutcome, WebhookSender } from "../ports/webhooks.js"
import { type QueueError, WorkQueue } from "../ports/work-queue.js"
import { JobLifecycle, type Outcome, webhookLane } from "./job-lifecycle.js"

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
    /** Claims, runs and settles one job (the handler of a job lane's item). */
    readonly runJob: (id: string) => Effect.Effect<void>
    /** Makes one attempt of one delivery (the handler of a webhook lane's item). */
    readonly runDelivery: (id: string) => Effect.Effect<void>
    /** Offers every runnable job and due delivery again; how many were offered. */
    readonly reconcile: Effect.Effect<number>
    /** Consumes every lane and reconciles on a schedule while the scope is open. */
    readonly start: Effect.Effect<void, QueueError, Scope.Scope>
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

export const WorkerLive = Layer.effect(
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
    const graceOver = Deferred.await(stopping).pipe(Effect.delay(Duration.millis(settings.shutdownGraceMs)))

    const logged = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logError(`${what} failed; the reconciler will retry`, cause))
      )

    /** Keeps the lease alive while the work runs; interrupts the work when the lease is lost. */
    const heartbeat = (job: JobRecord) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const held = yield* jobs.extendLease({ id: job.id, owner, now, leaseMs: settings.leaseMs })
        if (!held) return yield* Effect.fail("lease lost" as const)
      }).pipe(
        Effect.catchTag("PersistenceError", (error) =>
          Effect.logWarning("could not extend a lease", error.cause)
        ),
        Effect.repeat(Schedule.spaced(Duration.millis(Math.max(50, Math.floor(settings.leaseMs / 3))))),
        Effect.delay(Duration.millis(Math.max(50, Math.floor(settings.leaseMs / 3))))
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

    const finish = (job: JobRecord, outcome: Outcome) =>
      Effect.gen(function* () {
        const at = yield* DateTime.now
        const settled = yield* lifecycle.settle(job, owner, outcome, at).pipe(
          Effect.catchTag("InsufficientCredits", (error) =>
            lifecycle.settle(
              job,
              owner,
              {
                _tag: "Failed",
                error: `this needs ${error.required} credits and the balance is ${error.balance}`
              },
              at
            )
          )
        )
        if (Option.isNone(settled)) yield* Effect.logWarning(`job ${job.id}: lease lost before settling`)
      })

    const work = (job: JobRecord) =>
      Effect.gen(function* () {
        const handler = handlers.get(job.kind)
        if (handler === undefined) {
          return yield* finish(job, { _tag: "Failed", error: `this server cannot run ${job.kind} jobs` })
        }
        const beat = yield* Effect.fork(heartbeat(job))
        // The first to finish wins: the work, the loss of the lease, or the end of the shutdown grace.
        const leaseLost: Interrupted = { _tag: "LeaseLost" }
        const stopping: Interrupted = { _tag: "Stopping" }
        const result: WorkResult | Interrupted = yield* Effect.raceAll([
          handler(job),
          Fiber.join(beat).pipe(Effect.either, Effect.as(leaseLost)),
          graceOver.pipe(Effect.as(stopping))
        ]).pipe(
          Effect.onInterrupt(() =>
            logged(`handing back job ${job.id}`, handBack(job, 0)).pipe(
              Effect.zipRight(Fiber.interrupt(beat))
            )
          )
        )
        yield* Fiber.interrupt(beat)
        if (result._tag === "LeaseLost") {
          return yield* Effect.logWarning(`job ${job.id}: lease lost while working; another worker has it`)
        }
        if (result._tag === "Stopping") {
          yield* Effect.logInfo(`job ${job.id}: shutting down, handing it back`)
          return yield* handBack(job, 0)
        }
        if (result._tag === "Retry") {
          if (job.attempts >= settings.maxAttempts) {
            return yield* finish(job, { _tag: "Failed", error: result.error })
          }
          return yield* handBack(job, result.afterMs)
        }
        return yield* finish(job, result)
      })

    const runJob = (id: string) =>
      logged(
        `job ${id}`,
        Effect.gen(function* () {
          const now = yield* DateTime.now
          const claimed = yield* jobs.claim({
            id: id as JobRecord["id"],
            owner,
            now,
            leaseMs: settings.leaseMs
          })
          if (Option.isNone(claimed)) return
          yield* work(claimed.value).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logError(`job ${id} failed unexpectedly; handing it back`, cause).pipe(
                Effect.zipRight(handBack(claimed.value, settings.leaseMs))
              )
            )
          )
        }).pipe(Effect.withSpan("verbatim.worker.job", { attributes: { "job.id": id } }))
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
        }).pipe(Effect.withSpan("verbatim.worker.webhook", { attributes: { "delivery.id": id } }))
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

    // Handlers run interruptibly whatever the queue's own handler region is: the lease heartbeat and
    // the shutdown hand-back rely on interrupting the work.
    const start = Effect.gen(function* () {
      for (const lane of settings.lanes) {
        yield* queue.consume(lane.lane, { concurrency: lane.concurrency }, (item) =>
          Effect.interruptible(runJob(item.id))
        )
      }
      yield* queue.consume(webhookLane, { concurrency: settings.webhookConcurrency }, (item) =>
        Effect.interruptible(runDelivery(item.id))
      )
      yield* Effect.forkScoped(
        reconcile.pipe(Effect.repeat(Schedule.spaced(Duration.millis(settings.reconcileEveryMs))))
      )
      // Added last, so it runs first when the scope closes, before the consumers wait for their handlers.
      yield* Effect.addFinalizer(() => Deferred.succeed(stopping, undefined))
    })

    return Worker.of({ runJob, runDelivery, reconcile, start })
  })
)
