/**
 * The job lifecycle, shared by the request path and the worker: a job is created in a first state
 * the job machine allows, and finished with its outcome in ONE transaction that stores the
 * transcript, posts the charge (keyed on the job, so it never happens twice), moves the job and
 * writes its webhook delivery to the outbox. A crash before the commit leaves nothing; after it,
 * everything, including the delivery that a worker will send.
 *
 * - `create`: a new job; a processing one is offered to its lane (a queue that is down loses
 *   nothing: the reconciler offers every runnable job again from the database).
 * - `record`: a request answered within itself (captions served, a refusal) becomes a job that
 *   starts finished.
 * - `settle`: a worker finishes a job it claimed; nothing is written when the lease was lost (the
 *   job is another worker's now).
 */
import { Api, type Credits, Status } from "@verbatim/domain"
import { Context, type DateTime, Effect, Either, Layer, Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"
import { type JobRecord, Jobs, type Settlement } from "../ports/jobs.js"
import { type InsufficientCredits, Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import { Transactor } from "../ports/transactor.js"
import { type TranscriptRecord, Transcripts } from "../ports/transcripts.js"
import { WebhookDeliveries } from "../ports/webhook-deliveries.js"
import { WorkQueue } from "../ports/work-queue.js"
import { jobBody } from "./job-body.js"
import { type PayloadParts, partsOfPayload } from "./payload.js"

/** The lane of webhook deliveries. */
export const webhookLane = "webhook"

/** A job's work succeeded. */
export interface Completed {
  readonly _tag: "Completed"
  /**
   * The transcript produced, if any: stored unless the account already owns one for the same video,
   * language and source, in which case that one is served and nothing is charged.
   */
  readonly transcript: TranscriptRecord | null
  /** The price of the work, charged once, keyed on the job. */
  readonly price: Credits.Credits
  /** The ledger entry's reason. */
  readonly reason: string
}

/** An owned transcript served again: nothing stored, nothing charged (DESIGN decision 5). */
export interface Served {
  readonly _tag: "Served"
  readonly transcript: TranscriptRecord
}

/** A job's work failed; nothing is charged. */
export interface Failed {
  readonly _tag: "Failed"
  readonly error: string
}

export type Outcome = Completed | Served | Failed

/** A finished job, its transcript and what it was charged. */
export interface Finished {
  readonly job: JobRecord
  readonly transcript: TranscriptRecord | null
  readonly credits: Credits.Credits
}

class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {}) {}

export class JobLifecycle extends Context.Tag("@verbatim/core/JobLifecycle")<
  JobLifecycle,
  {
    readonly create: (job: JobRecord) => Effect.Effect<JobRecord, PersistenceError>
    readonly record: (
      job: JobRecord,
      outcome: Outcome,
      at: DateTime.Utc
    ) => Effect.Effect<Finished, InsufficientCredits | PersistenceError>
    readonly settle: (
      job: JobRecord,
      owner: string,
      outcome: Outcome,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<Finished>, InsufficientCredits | PersistenceError>
  }
>() {}

/** A move the job machine refuses is a defect of ours, never the caller's. */
const checked = (move: Either.Either<Status.JobStatus, Status.IllegalTransition>) =>
  Either.match(move, { onLeft: (error) => Effect.die(error), onRight: () => Effect.void })

export const JobLifecycleLive = Layer.effect(
  JobLifecycle,
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const transcripts = yield* Transcripts
    const ledger = yield* Ledger
    const tx = yield* Transactor
    const deliveries = yield* WebhookDeliveries
    const queue = yield* WorkQueue
    const secrets = yield* Secrets

    const offer = (lane: string, id: string, accountId: string, key?: string) =>
      queue
        .offer([{ lane, id, accountId, key }])
        .pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`could not offer ${lane} ${id}; the reconciler will`, error.cause)
          )
        )

    /** The settlement of an outcome, writing the transcript, and the charge to post (inside the transaction). */
    const apply = (job: JobRecord, outcome: Outcome, at: DateTime.Utc) =>
      Effect.gen(function* () {
        if (outcome._tag === "Failed") {
          const settlement: Settlement = {
            status: "failed",
            error: outcome.error,
            creditsUsed: 0,
            transcriptId: null,
            videoTitle: job.videoTitle,
            language: job.language,
            source: job.source,
            completedAt: at
          }
          return { settlement, transcript: null, charge: Effect.void }
        }
        const stored =
          outcome._tag === "Served"
            ? { record: outcome.transcript, created: false }
            : outcome.transcript === null
              ? null
              : yield* transcripts.store(outcome.transcript)
        const credits =
          outcome._tag === "Completed" && (stored === null || stored.created) ? outcome.price : 0
        // Posted last in the transaction: it locks the account's row, which every charge of the
        // account waits for, so the lock is held only until the commit.
        const charge =
          outcome._tag === "Completed" && credits > 0
            ? Effect.asVoid(
                ledger.charge(
                  {
                    accountId: job.accountId,
                    key: `charge:job:${job.id}`,
                    jobId: job.id,
                    reason: outcome.reason,
                    at
                  },
                  credits
                )
              )
            : Effect.void
        const record = stored?.record ?? null
        const settlement: Settlement = {
          status: "completed",
          error: null,
          creditsUsed: credits,
          transcriptId: record?.id ?? null,
          videoTitle: record?.videoTitle ?? job.videoTitle,
          language: record?.language ?? job.language,
          source: record?.sourceKind ?? job.source,
          completedAt: at
        }
        return { settlement, transcript: record, charge }
      })

    /** Writes the job's webhook delivery to the outbox, when it has a webhook; its id. */
    const outbox = (
      job: JobRecord,
      transcript: TranscriptRecord | null,
      parts: PayloadParts,
      at: DateTime.Utc
    ) =>
      Effect.gen(function* () {
        if (job.webhookUrl === null) return Option.none<string>()
        const body = yield* encodeJob(jobBody(job, Option.fromNullable(transcript), parts))
        const id = yield* secrets.uuid
        yield* deliveries.insert({
          id,
          accountId: job.accountId,
          jobId: job.id,
          event: `job.${job.status}`,
          url: job.webhookUrl,
          payload: JSON.stringify(body),
          at
        })
        return Option.some(id)
      })

    const afterCommit = (finished: Finished, delivery: Option.Option<string>) =>
      Option.match(delivery, {
        onNone: () => Effect.succeed(finished),
        onSome: (id) => Effect.as(offer(webhookLane, id, finished.job.accountId), finished)
      })

    return JobLifecycle.of({
      create: (job) =>
        Effect.gen(function* () {
          yield* checked(Status.JobMachine.start(job.status))
          const created = yield* jobs.insert(job)
          // Keyed like the reconciler's offers (`<id>:<attempts>`), so the two never queue it twice.
          if (created.status === "processing") {
            yield* offer(created.kind, created.id, created.accountId, `${created.id}:${created.attempts}`)
          }
          return created
        }),

      record: (job, outcome, at) => {
        const work = Effect.gen(function* () {
          const { settlement, transcript, charge } = yield* apply(job, outcome, at)
          yield* checked(Status.JobMachine.start(settlement.status))
          const created = yield* jobs.insert({
            ...job,
            ...settlement,
            startedAt: job.startedAt ?? at,
            leaseOwner: null,
            leaseExpiresAt: null
          })
          const delivery = yield* outbox(created, transcript, partsOfPayload(created.payload), at)
          yield* charge
          return { finished: { job: created, transcript, credits: settlement.creditsUsed }, delivery }
        })
        // Serving an owned transcript or recording a failure writes one row and no delivery: no
        // transaction is needed, and the hot path (owned transcripts served again) saves two round trips.
        const single = outcome._tag !== "Completed" && job.webhookUrl === null
        return (single ? work : tx.transaction(work)).pipe(
          Effect.flatMap(({ finished, delivery }) => afterCommit(finished, delivery))
        )
      },

      settle: (job, owner, outcome, at) =>
        tx
          .transaction(
            Effect.gen(function* () {
              const { settlement, transcript, charge } = yield* apply(job, outcome, at)
              yield* checked(Status.JobMachine.move("processing", settlement.status))
              const settled = yield* jobs.settle(job.id, owner, settlement)
              if (Option.isNone(settled)) return yield* new LeaseLost()
              const delivery = yield* outbox(
                settled.value,
                transcript,
                partsOfPayload(settled.value.payload),
                at
              )
              yield* charge
              return {
                finished: { job: settled.value, transcript, credits: settlement.creditsUsed },
                delivery
              }
            })
          )
          .pipe(
            Effect.flatMap(({ finished, delivery }) =>
              Effect.map(afterCommit(finished, delivery), Option.some)
            ),
            Effect.catchTag("LeaseLost", () => Effect.succeed(Option.none<Finished>()))
          )
    })
  })
)

/** The job object on the wire; a job we built that does not encode is a defect. */
const encodeJob = (job: Api.Job) => Effect.orDie(Schema.encode(Api.Job)(job))
