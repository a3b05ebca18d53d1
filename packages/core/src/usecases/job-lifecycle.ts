/**
 * The job lifecycle, shared by the request path and the worker: a job is created in a first state
 * the job machine allows, and finished with its outcome in ONE transaction that stores the
 * transcript, posts the charge (keyed on the job, so it never happens twice), moves the job and
 * writes its webhook delivery to the outbox. A crash before the commit leaves nothing; after it,
 * everything, including the delivery that a worker will send.
 *
 * - `create`: a new job (with, optionally, a write that must commit with it); a processing one is
 *   offered to its lane (a queue that is down loses nothing: the reconciler offers every runnable
 *   job again from the database).
 * - `record`: a request answered within itself (captions served, a refusal) becomes a job that
 *   starts finished.
 * - `settle`: a worker finishes a job it claimed; nothing is written when the lease was lost (the
 *   job is another worker's now).
 * - `settleMany`: `settle` of many jobs at once (the worker gathers the jobs that finish together):
 *   one statement moves every job still held and posts its charge, inside a transaction only when a
 *   job stores a transcript or writes a delivery. A job whose lease was lost writes nothing; a job
 *   whose account cannot pay is settled again alone, so only the jobs that cannot be paid are refused.
 */
import { Api, type Credits, Status } from "@verbatim/domain"
import { Context, Data, type DateTime, Effect, Either, Layer, Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"
import { type JobRecord, Jobs, type Settlement } from "../ports/jobs.js"
import { type ChargeRequest, InsufficientCredits, Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import { Transactor } from "../ports/transactor.js"
import {
  type OwnedFilter,
  type ServedTranscript,
  type TranscriptRecord,
  Transcripts
} from "../ports/transcripts.js"
import { WebhookDeliveries } from "../ports/webhook-deliveries.js"
import { WorkQueue } from "../ports/work-queue.js"
import { jobBody } from "./job-body.js"
import { partsOfPayload } from "./payload.js"

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
  /**
   * Further transcripts the same work produced (speech translated with `translateTo`), stored in
   * the same transaction when the main one is; priced in `price`.
   */
  readonly alongside?: ReadonlyArray<TranscriptRecord> | undefined
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

/** One job a worker finishes (see `settle`). */
export interface Settling {
  readonly job: JobRecord
  readonly outcome: Outcome
  readonly at: DateTime.Utc
}

/** A settle's result: the finished job (none: the lease was lost), or the charge it could not pay. */
export type Settled = Either.Either<Option.Option<Finished>, InsufficientCredits>

const notSettled: Settled = Either.right(Option.none())

/** A step of a batch: a job's result (and its delivery), or a job to settle again alone. */
type Step =
  | { readonly _tag: "Done"; readonly settled: Settled; readonly delivery: Option.Option<string> }
  | { readonly _tag: "Alone"; readonly item: Settling }

/** The batch's transaction is rolled back, and each of its jobs settled alone. */
class Redo extends Data.TaggedError("Redo") {}

/** A job settled alone is refused, or was not held: its transaction is rolled back. */
class Refused extends Data.TaggedError("Refused")<{ readonly settled: Settled }> {}

export class JobLifecycle extends Context.Tag("@verbatim/core/JobLifecycle")<
  JobLifecycle,
  {
    /**
     * Creates the job; `within`, when given, runs in the same transaction after the insert (an
     * upload consumed by the job it starts), and its failure leaves nothing written. A processing
     * job is offered to its lane after the commit.
     */
    readonly create: <E = never>(
      job: JobRecord,
      within?: Effect.Effect<void, E>
    ) => Effect.Effect<JobRecord, E | PersistenceError>
    readonly record: (
      job: JobRecord,
      outcome: Outcome,
      at: DateTime.Utc
    ) => Effect.Effect<Finished, InsufficientCredits | PersistenceError>
    /**
     * Serves an owned transcript again (DESIGN decision 5): the account's newest transcript of the
     * job's video matching `filter`, with `job` recorded as completed for 0 credits, as `record`
     * with `Served` would record it; none, and nothing written, when the account owns none. Without
     * a webhook this is one statement (the hot path of POST /transcribe).
     */
    readonly serveOwned: (
      job: JobRecord,
      filter: OwnedFilter,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<ServedTranscript>, PersistenceError>
    readonly settle: (
      job: JobRecord,
      owner: string,
      outcome: Outcome,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<Finished>, InsufficientCredits | PersistenceError>
    /** `settle` of many jobs of one owner in one transaction: each job's result, in order. */
    readonly settleMany: (
      owner: string,
      items: ReadonlyArray<Settling>
    ) => Effect.Effect<ReadonlyArray<Settled>, PersistenceError>
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
          return { settlement, transcript: null, charge: null, wrote: false }
        }
        const wrote = outcome._tag === "Completed" && outcome.transcript !== null
        const stored =
          outcome._tag === "Served"
            ? { record: outcome.transcript, created: false }
            : outcome.transcript === null
              ? null
              : yield* transcripts.store(outcome.transcript)
        if (outcome._tag === "Completed" && (stored === null || stored.created)) {
          for (const extra of outcome.alongside ?? []) yield* transcripts.store(extra)
        }
        const credits =
          outcome._tag === "Completed" && (stored === null || stored.created) ? outcome.price : 0
        // Posted last in the transaction: it locks the account's row, which every charge of the
        // account waits for, so the lock is held only until the commit.
        const charge: ChargeRequest | null =
          outcome._tag === "Completed" && credits > 0
            ? {
                request: {
                  accountId: job.accountId,
                  key: `charge:job:${job.id}`,
                  jobId: job.id,
                  reason: outcome.reason,
                  at
                },
                amount: credits
              }
            : null
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
        return { settlement, transcript: record, charge, wrote }
      })

    /**
     * Writes the job's webhook delivery to the outbox, when it has a webhook; its id. The body is cut
     * to the parts the job's payload asked for (read only when there is a webhook).
     */
    const outbox = (job: JobRecord, transcript: TranscriptRecord | null, at: DateTime.Utc) =>
      Effect.gen(function* () {
        if (job.webhookUrl === null) return Option.none<string>()
        const parts = partsOfPayload(job.payload)
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

    /**
     * The batch in one step. Jobs that store a transcript or have a webhook need a transaction (the
     * transcripts stored, the jobs moved with their charges, the deliveries written); a batch without
     * any is ONE statement (`Jobs.settleMany` moves every job still held and posts its charge). A job
     * whose account cannot cover the charges is settled again alone (after rolling the transaction
     * back, when there is one); so is every job of a transaction in which a job that stored a
     * transcript is no longer held. Alone, such a job is refused, or not settled, with nothing written.
     */
    const settleBatch = (owner: string, items: ReadonlyArray<Settling>) => {
      const writes = items.some(
        ({ job, outcome }) =>
          job.webhookUrl !== null || (outcome._tag === "Completed" && outcome.transcript !== null)
      )
      const alone = items.length === 1
      const work = Effect.gen(function* () {
        const prepared = yield* Effect.forEach(items, (item) =>
          Effect.map(apply(item.job, item.outcome, item.at), (applied) => ({ ...item, ...applied }))
        )
        for (const { settlement } of prepared) {
          const move = Status.JobMachine.move("processing", settlement.status)
          if (Either.isLeft(move)) return yield* Effect.die(move.left)
        }
        const results = yield* jobs.settleMany(
          owner,
          prepared.map(({ job, settlement, charge }) => ({ id: job.id, ...settlement, charge }))
        )
        const steps: Array<Step> = []
        for (const [i, { job, outcome, at, settlement, transcript, wrote }] of prepared.entries()) {
          const result = results[i]
          if (result === undefined) return yield* Effect.dieMessage("Jobs.settleMany gave too few results")
          switch (result._tag) {
            case "NotHeld": {
              if (wrote) return yield* alone ? new Refused({ settled: notSettled }) : new Redo()
              steps.push({ _tag: "Done", settled: notSettled, delivery: Option.none() })
              break
            }
            case "Unpaid": {
              const refused: Settled = Either.left(
                new InsufficientCredits({ required: result.required, balance: result.balance })
              )
              if (!alone) {
                if (writes) return yield* new Redo()
                steps.push({ _tag: "Alone", item: { job, outcome, at } })
              } else if (writes) return yield* new Refused({ settled: refused })
              else steps.push({ _tag: "Done", settled: refused, delivery: Option.none() })
              break
            }
            case "Settled": {
              const settled: JobRecord = {
                ...job,
                ...settlement,
                videoTitle: settlement.videoTitle ?? job.videoTitle,
                transcriptId: result.transcriptId,
                leaseOwner: null,
                leaseExpiresAt: null
              }
              const delivery =
                settled.webhookUrl === null ? Option.none<string>() : yield* outbox(settled, transcript, at)
              const finished: Finished = { job: settled, transcript, credits: settlement.creditsUsed }
              steps.push({ _tag: "Done", settled: Either.right(Option.some(finished)), delivery })
            }
          }
        }
        return steps
      })
      return writes ? tx.transaction(work) : work
    }

    const settleMany = (
      owner: string,
      items: ReadonlyArray<Settling>
    ): Effect.Effect<ReadonlyArray<Settled>, PersistenceError> =>
      items.length === 0
        ? Effect.succeed([])
        : settleBatch(owner, items).pipe(
            Effect.flatMap((steps) =>
              // Most jobs have nothing left to do: no delivery to offer, no second settle.
              steps.every((step) => step._tag === "Done" && Option.isNone(step.delivery))
                ? Effect.succeed(steps.map((step) => (step._tag === "Done" ? step.settled : notSettled)))
                : Effect.forEach(steps, (step) => {
                    if (step._tag === "Alone") return settleAlone(owner, step.item)
                    const { settled, delivery } = step
                    return Either.isRight(settled) && Option.isSome(settled.right)
                      ? Effect.as(afterCommit(settled.right.value, delivery), settled)
                      : Effect.succeed(settled)
                  })
            ),
            Effect.catchTag("Refused", ({ settled }) => Effect.succeed([settled])),
            Effect.catchTag("Redo", () => Effect.forEach(items, (item) => settleAlone(owner, item)))
          )

    const settleAlone = (owner: string, item: Settling): Effect.Effect<Settled, PersistenceError> =>
      Effect.map(settleMany(owner, [item]), ([settled]) => settled ?? notSettled)

    /**
     * A new transcript with its job and its charge, and nothing else to write (no webhook, nothing
     * stored alongside): one statement (`Jobs.insertPaid`) instead of a transaction of five round trips (CR-14).
     * None when the account already owns a transcript with its key: `record`'s general path then
     * serves that one, uncharged.
     */
    const recordPaid = (
      job: JobRecord,
      transcript: TranscriptRecord,
      price: Credits.Credits,
      reason: string,
      at: DateTime.Utc
    ) =>
      Effect.gen(function* () {
        yield* checked(Status.JobMachine.start("completed"))
        const created: JobRecord = {
          ...job,
          status: "completed",
          error: null,
          creditsUsed: price,
          transcriptId: transcript.id,
          videoTitle: transcript.videoTitle,
          language: transcript.language,
          source: transcript.sourceKind,
          completedAt: at,
          startedAt: job.startedAt ?? at,
          leaseOwner: null,
          leaseExpiresAt: null
        }
        const charge: ChargeRequest = {
          request: { accountId: job.accountId, key: `charge:job:${job.id}`, jobId: job.id, reason, at },
          amount: price
        }
        const stored = yield* jobs.insertPaid(created, transcript, charge)
        return stored === "stored"
          ? Option.some<Finished>({ job: created, transcript, credits: price })
          : Option.none<Finished>()
      })

    const record = (job: JobRecord, outcome: Outcome, at: DateTime.Utc) =>
      outcome._tag === "Completed" &&
      outcome.transcript !== null &&
      outcome.price > 0 &&
      (outcome.alongside ?? []).length === 0 &&
      job.webhookUrl === null
        ? Effect.flatMap(recordPaid(job, outcome.transcript, outcome.price, outcome.reason, at), (paid) =>
            Option.isSome(paid) ? Effect.succeed(paid.value) : recordInTransaction(job, outcome, at)
          )
        : recordInTransaction(job, outcome, at)

    /** `record` in general: the job, what its outcome writes and its charge, in one transaction. */
    const recordInTransaction = (job: JobRecord, outcome: Outcome, at: DateTime.Utc) => {
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
        const delivery = yield* outbox(created, transcript, at)
        if (charge !== null) yield* ledger.charge(charge.request, charge.amount)
        return { finished: { job: created, transcript, credits: settlement.creditsUsed }, delivery }
      })
      // Serving an owned transcript or recording a failure writes one row and no delivery: no
      // transaction is needed, and the hot path (owned transcripts served again) saves two round trips.
      const single = outcome._tag !== "Completed" && job.webhookUrl === null
      return (single ? work : tx.transaction(work)).pipe(
        Effect.flatMap(({ finished, delivery }) => afterCommit(finished, delivery))
      )
    }

    const serveOwned = (
      job: JobRecord,
      filter: OwnedFilter,
      at: DateTime.Utc
    ): Effect.Effect<Option.Option<ServedTranscript>, PersistenceError> =>
      job.webhookUrl !== null
        ? // A delivery is written with the job: read, then record.
          Effect.flatMap(transcripts.owned(job.accountId, job.videoId, filter), ([first]) =>
            first === undefined
              ? Effect.succeedNone
              : record(job, { _tag: "Served", transcript: first }, at).pipe(
                  // Serving charges nothing, so the balance cannot be short.
                  Effect.catchTag("InsufficientCredits", Effect.die),
                  Effect.as(Option.some(first))
                )
          )
        : Effect.zipRight(
            checked(Status.JobMachine.start("completed")),
            // What `apply` settles for `Served`; the transcript's fields are the row's, in the statement.
            jobs.insertServing(
              {
                ...job,
                status: "completed",
                error: null,
                creditsUsed: 0,
                startedAt: job.startedAt ?? at,
                completedAt: at,
                leaseOwner: null,
                leaseExpiresAt: null
              },
              filter
            )
          )

    return JobLifecycle.of({
      create: <E>(job: JobRecord, within?: Effect.Effect<void, E>) =>
        Effect.gen(function* () {
          yield* checked(Status.JobMachine.start(job.status))
          const created =
            within === undefined
              ? yield* jobs.insert(job)
              : yield* tx.transaction(Effect.tap(jobs.insert(job), () => within))
          // Keyed like the reconciler's offers (`<id>:<attempts>`), so the two never queue it twice.
          if (created.status === "processing") {
            yield* offer(created.kind, created.id, created.accountId, `${created.id}:${created.attempts}`)
          }
          return created
        }),

      record,

      serveOwned,

      settle: (job, owner, outcome, at) =>
        Effect.flatMap(settleMany(owner, [{ job, outcome, at }]), ([settled]) =>
          settled === undefined
            ? Effect.dieMessage("settleMany gave no result")
            : Either.match(settled, { onLeft: Effect.fail, onRight: Effect.succeed })
        ),

      settleMany
    })
  })
)

/** The job object on the wire; a job we built that does not encode is a defect. */
const encodeJob = (job: Api.Job) => Effect.orDie(Schema.encode(Api.Job)(job))
