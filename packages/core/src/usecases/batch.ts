/**
 * POST /batch and GET /batch/{batch_id}, and the batch's work (DESIGN decision 3; spec POST /batch
 * rules 1-4 and "Batch status").
 *
 * - create: checks the plan's batch size, the mode (batch rules), the ASR options and the webhook,
 *   parses every reference (one that names no video becomes a failed item at once), refuses with 402
 *   when the available balance cannot cover the known cost (1 credit per distinct video not owned
 *   yet, whatever the mode: speech recognition costs at least that; it is priced, and its quote held,
 *   when each item starts, `credit-holds.ts`), stores the batch and its items with their job ids
 *   assigned, offers its first `firstOffers` items to the `batch.item` lane and answers 202 at once
 *   (no result yet); each item taken offers the next ones, up to `offerWindow` ahead (`offerNext`).
 * - runItem (a worker): takes the item with a lease, kept alive by a heartbeat while it runs, and
 *   runs the video's transcribe request as the item's job (the same use case as POST /transcribe, so captions, owned transcripts, quotes,
 *   refusals and speech recognition behave alike); speech recognition started by an item delivers no
 *   webhook of its own. An item whose job already exists (its earlier worker died after running it)
 *   is only marked done: a video is never charged twice.
 * - finish: once every item is done and no item's job is still processing, the batch becomes
 *   `completed` (every item succeeded), `failed` (none did) or `partial`, and its webhook delivery
 *   (the finished batch response, signed) is written to the outbox in the same transaction.
 * - reconcile (every worker, every round): offers again the items whose lease expired and the items
 *   never taken inside each batch's window (a lost offer strands nothing), and finishes batches
 *   whose items all ended.
 * - get: 202 while processing (every item's result without transcript data, so a poll reads no
 *   transcript), 200 when finished (with the data); a finished batch is fetched at most 60 times in a
 *   24-hour window, then 429 with `Retry-After` until the window is over.
 */
import {
  Api,
  Asr,
  Captions,
  Errors,
  type Ids,
  Language,
  Mode,
  Plan,
  Pricing,
  Reference
} from "@verbatim/domain"
import {
  Cause,
  Clock,
  Data,
  DateTime,
  Duration,
  Effect,
  Either,
  Layer,
  LogLevel,
  Option,
  Schema
} from "effect"
import type { Account } from "../ports/accounts.js"
import {
  Batches,
  type BatchItemView,
  type BatchRecord,
  type BatchView,
  type ItemClaim,
  type NewBatchItem,
  ServiceUrl
} from "../ports/batches.js"
import { Jobs } from "../ports/jobs.js"
import { Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import { Transactor } from "../ports/transactor.js"
import { VideoPlatform } from "../ports/video-platform.js"
import { WebhookDeliveries } from "../ports/webhook-deliveries.js"
import { AddressResolver } from "../ports/webhooks.js"
import { type WorkItem, WorkQueue } from "../ports/work-queue.js"
import { requestIdForWork } from "../request-context.js"
import { fieldError, fromAsrOptionsError, fromModeError, fromPlatformError, notFound } from "./failures.js"
import { webhookLane } from "./job-lifecycle.js"
import { type BackgroundFeature, makeFollowUps, whileLeased } from "./lanes.js"
import { alreadyChecked, transcribeData } from "./payload.js"
import { BatchWork } from "./tags.js"
import { makeTranscribe } from "./transcribe.js"
import { unknownLanguage } from "./transcribe-request.js"
import { checkWebhookUrl, WebhookAllowList } from "./webhook-url.js"

/** The lane of batch items. */
export const batchItemLane = "batch.item"

/** Fetches of a finished batch answered in 24 hours; the next ones answer 429. */
export const maxFinishedFetches = 60
export const fetchWindow = Duration.hours(24)

/** A concurrent finish moved the batch first: this transaction rolls back. */
class FinishedElsewhere extends Data.TaggedError("FinishedElsewhere") {}

/**
 * Items of one batch offered to the queue ahead of those taken, once the batch runs: far more than
 * the items run at once by every worker together, so none waits for an offer.
 */
export const offerWindow = 500

/**
 * Items offered when a batch is accepted: the window opens from here to `offerWindow` as items are
 * taken (see `offerNext`), so the 202 does not wait behind 500 offers (on Redis a BullMQ job each,
 * about 25 ms of the process's time warm and 60 cold; 64 cost about an eighth of that).
 */
export const firstOffers = 64

/**
 * How old a batch is before the reconciler offers its items never taken again (its own offers had
 * their chance by then).
 */
export const reofferAfterMs = 2_000

/** How long an item that waits for an earlier item of the same video waits before it tries again. */
export const waitingRetryMs = 200

const itemKey = (batchId: string, position: number) => `${batchId}:${position}`

const parseItemKey = (
  id: string
): Option.Option<{ readonly batchId: Ids.BatchId; readonly position: number }> => {
  const at = id.lastIndexOf(":")
  const position = Number(id.slice(at + 1))
  return at > 0 && Number.isSafeInteger(position) && position >= 0
    ? Option.some({ batchId: id.slice(0, at) as Ids.BatchId, position })
    : Option.none()
}

/** What an item reports, from its job (or its own error when it never got one). */
const itemStatus = (item: BatchItemView): Api.BatchResult["status"] =>
  item.error !== null ? "failed" : item.job === null ? "processing" : item.job.status

/** The summary of a batch's items: a finished item that did not succeed counts as failed. */
export const summarize = (items: ReadonlyArray<BatchItemView>) => {
  let succeeded = 0
  let processing = 0
  for (const item of items) {
    const status = itemStatus(item)
    if (status === "completed") succeeded++
    else if (status === "processing") processing++
  }
  return { total: items.length, succeeded, processing, failed: items.length - succeeded - processing }
}

/** DESIGN decision 3: completed when every item succeeded, failed when none did, partial otherwise. */
export const finalStatus = (summary: ReturnType<typeof summarize>): "completed" | "partial" | "failed" =>
  summary.succeeded === summary.total ? "completed" : summary.succeeded === 0 ? "failed" : "partial"

/** An item this worker took, with what its claim read. */
type Claimed = Extract<ItemClaim, { readonly _tag: "Claimed" }>

export const makeBatchWork = Effect.gen(function* () {
  /**
   * Where the follow-ups run: an accepted batch's first offers (after the answer), an item's next
   * offer and its done mark (beside the next item); let finish, for a bounded grace, when the service
   * closes.
   */
  const followUp = yield* makeFollowUps()
  const batches = yield* Batches
  const jobs = yield* Jobs
  const ledger = yield* Ledger
  const secrets = yield* Secrets
  const queue = yield* WorkQueue
  const tx = yield* Transactor
  const deliveries = yield* WebhookDeliveries
  const resolver = yield* AddressResolver
  const allowList = yield* WebhookAllowList
  const serviceUrl = yield* ServiceUrl
  const platform = yield* VideoPlatform
  const transcribe = yield* makeTranscribe

  const pollUrl = (id: string) => `${serviceUrl.replace(/\/+$/, "")}/api/v2/batch/${id}`

  /**
   * The batch response for a view: every item's result, with the transcript data of completed items
   * (cut to the batch's format) when `withData` (a finished batch); a processing batch's results
   * carry none, so a poll reads no transcript.
   */
  const response = (view: BatchView, withData: boolean) =>
    Effect.gen(function* () {
      const { batch, items } = view
      const summary = summarize(items)
      const parts = {
        segments: batch.request.format.timestamp,
        paragraphs: batch.request.format.paragraphs,
        words: batch.request.format.words
      }
      const ids = withData
        ? items.flatMap((item) => (item.job?.transcriptId ? [item.job.transcriptId] : []))
        : []
      const stored = ids.length === 0 ? new Map() : yield* batches.transcriptsOf(batch.accountId, ids)
      const results = items.map((item) => {
        const status = itemStatus(item)
        const transcript = item.job?.transcriptId ? stored.get(item.job.transcriptId) : undefined
        // Built from rows the repository decoded: not validated again here (the HTTP layer still
        // checks the whole answer as it encodes it), which a poll of 1,000 items pays for each one.
        return new Api.BatchResult(
          {
            request_id: item.requestId,
            video_id: item.videoId,
            status,
            job_id: item.error !== null ? null : item.jobId,
            error: item.error ?? item.job?.error ?? null,
            credits_used: item.job?.creditsUsed ?? 0,
            ...(status === "completed" && transcript !== undefined
              ? { data: transcribeData(transcript, parts) }
              : {})
          },
          alreadyChecked
        )
      })
      const creditsUsed = items.reduce((sum, item) => sum + (item.job?.creditsUsed ?? 0), 0)
      const fields = {
        batch_id: batch.id,
        results,
        summary: new Api.BatchSummary(summary),
        credits_used: creditsUsed,
        poll_url: pollUrl(batch.id),
        webhook_delivered: view.delivery?.status === "delivered",
        webhook_failed: view.delivery?.status === "failed",
        webhook_attempts: view.delivery?.attempts ?? 0,
        created_at: batch.createdAt,
        started_at: batch.startedAt,
        completed_at: batch.completedAt
      }
      return batch.status === "processing"
        ? new Api.BatchProcessing({ ...fields, status: "processing" })
        : new Api.BatchFinished({ ...fields, status: batch.status })
    })

  /** The rules a batch request meets before anything else: the plan's size, the mode, the ASR options. */
  const checkRequest = (account: Account, request: Api.BatchRequest) =>
    Effect.gen(function* () {
      const total = request.video_ids.length
      if (!Plan.batchSizeAllowed(account.plan, total)) {
        return yield* Effect.fail(
          fieldError(
            ["video_ids"],
            `the ${account.plan} plan takes batches of up to ${Plan.limitsFor(account.plan).batchSize} videos, not ${total}`
          )
        )
      }
      const resolved = yield* Either.mapLeft(
        Mode.resolveMode(
          {
            mode: request.mode,
            source: request.source,
            allow_asr: request.allow_asr,
            webhook_url: request.webhook_url
          },
          { kind: "batch", accountDefault: account.defaultMode }
        ),
        fromModeError
      )
      const asr = yield* Either.mapLeft(Asr.normalise(request.asr_options), fromAsrOptionsError)
      if (request.language !== undefined && !Language.isKnown(request.language)) {
        return yield* Effect.fail(unknownLanguage("language", request.language))
      }
      return { resolved, asr }
    })

  /** What the batch would cost, video by video (POST /batch/estimate): nothing is stored or charged. */
  const estimate = (account: Account, request: Api.BatchRequest) =>
    Effect.gen(function* () {
      const total = request.video_ids.length
      const { resolved, asr } = yield* checkRequest(account, request)
      const parsed = request.video_ids.map((reference) => ({
        reference,
        id: Reference.parseVideo(reference)
      }))
      const videos = [...new Set(parsed.flatMap((p) => (Either.isRight(p.id) ? [p.id.right] : [])))]
      const owned = yield* batches.ownedVideos(account.id, videos)
      const priced = new Map<string, Api.BatchEstimateItem>()
      yield* Effect.forEach(
        videos,
        (video) =>
          Effect.gen(function* () {
            const item = (
              status: Api.BatchEstimateItem["status"],
              credits: number,
              minutes: number | null,
              error: string | null
            ) =>
              new Api.BatchEstimateItem({
                video_id: video,
                status,
                estimated_credits: credits,
                duration_minutes: minutes,
                error
              })
            if (owned.has(video)) return priced.set(video, item("owned", 0, null, null))
            const details = yield* Effect.either(platform.video(video))
            if (Either.isLeft(details)) {
              return priced.set(video, item("failed", 0, null, fromPlatformError(details.left).message))
            }
            const track = Captions.chooseTrack(details.right.captionTracks, {
              mode: resolved.humanCaptionsOnly ? "human_captions_only" : resolved.mode,
              language: request.language,
              originalLanguage: details.right.originalLanguage
            })
            const step = Mode.decideStep(resolved, Option.isSome(track))
            if (step === "serve_captions") return priced.set(video, item("captions", 1, null, null))
            if (step === "no_captions")
              return priced.set(video, item("no_captions", 0, null, "no captions in this mode"))
            const quote = Pricing.estimate({
              durationSeconds: details.right.durationSeconds,
              addOns: asr.billable
            })
            if (quote.exceeds_max_duration) {
              return priced.set(
                video,
                item(
                  "failed",
                  0,
                  quote.duration_minutes,
                  `longer than the ${quote.max_duration_minutes} minutes ASR takes`
                )
              )
            }
            return priced.set(
              video,
              item(
                step === "start_asr" ? "asr" : "requires_asr_confirmation",
                step === "start_asr" ? quote.estimated_credits : 0,
                quote.duration_minutes,
                null
              )
            )
          }),
        { concurrency: 8, discard: true }
      )
      const seen = new Set<string>()
      const items = parsed.map((p) => {
        if (Either.isLeft(p.id)) {
          return new Api.BatchEstimateItem({
            video_id: p.reference,
            status: "failed",
            estimated_credits: 0,
            duration_minutes: null,
            error: `${p.reference} names no video: ${p.id.left.reason}`
          })
        }
        const found =
          priced.get(p.id.right) ??
          new Api.BatchEstimateItem({
            video_id: p.id.right,
            status: "failed",
            estimated_credits: 0,
            duration_minutes: null,
            error: "not priced"
          })
        // A video named again is served as owned by then.
        if (seen.has(p.id.right) && found.estimated_credits > 0) {
          return new Api.BatchEstimateItem({ ...found, status: "owned", estimated_credits: 0 })
        }
        seen.add(p.id.right)
        return found
      })
      const sum = (status: ReadonlyArray<string>) =>
        items.filter((i) => status.includes(i.status)).reduce((n, i) => n + i.estimated_credits, 0)
      return new Api.BatchEstimate({
        total,
        estimated_credits: sum(["captions", "asr"]),
        caption_credits: sum(["captions"]),
        asr_credits: sum(["asr"]),
        needs_asr: items.filter((i) => i.status === "asr" || i.status === "requires_asr_confirmation").length,
        items
      })
    }).pipe(Effect.withSpan("verbatim.batch.estimate"))

  const create = (account: Account, request: Api.BatchRequest) =>
    Effect.gen(function* () {
      const total = request.video_ids.length
      const { resolved } = yield* checkRequest(account, request)
      // The batch's own webhook (its completion) is used whenever it is sent.
      if (request.webhook_url !== undefined) {
        yield* checkWebhookUrl(request.webhook_url, allowList).pipe(
          Effect.provideService(AddressResolver, resolver)
        )
      }
      const now = yield* DateTime.now
      const id = (yield* secrets.uuid) as Ids.BatchId
      const requestId = ((yield* requestIdForWork) ?? (yield* secrets.uuid)) as Ids.RequestId
      // Each item's request and job ids are assigned by the store, with the items.
      const items = request.video_ids.map((reference): NewBatchItem => {
        const parsed = Reference.parseVideo(reference)
        return {
          videoId: Either.getOrElse(parsed, () => reference),
          error: Either.isLeft(parsed) ? `${reference} names no video: ${parsed.left.reason}` : null
        }
      })
      // The known cost: 1 credit for every distinct video not owned yet (captions; speech
      // recognition costs at least that, and each item holds its own quote when it starts, so a
      // batch never runs more paid work than the available balance covers).
      const speechOnly = resolved.mode === "speech_to_text_only"
      const what = speechOnly ? "at least" : "up to"
      const kind = speechOnly ? "speech recognition" : "captions"
      const videos = [...new Set(items.filter((item) => item.error === null).map((item) => item.videoId))]
      // The videos owned and the balance are read at once (two statements, one wait).
      const [owned, balance] = yield* Effect.all(
        [batches.ownedVideos(account.id, videos), ledger.balance(account.id)],
        { concurrency: 2 }
      )
      const required = videos.filter((video) => !owned.has(video)).length
      if (!speechOnly && request.max_credits !== undefined && required > request.max_credits) {
        return yield* Effect.fail(
          Errors.apiError(
            "payment_required",
            `this batch needs up to ${required} credits for captions, more than max_credits (${request.max_credits})`,
            { required, max_credits: request.max_credits }
          )
        )
      }
      if (balance < required) {
        return yield* Effect.fail(
          Errors.apiError(
            "payment_required",
            `this batch needs ${what} ${required} credits for ${kind} and the available balance is ${balance}`,
            { required, balance }
          )
        )
      }
      const settings = {
        ...(request.language === undefined ? {} : { language: request.language }),
        // A batch without webhook_url runs captions_only when ASR was only the account default.
        ...(resolved.downgradedFrom !== undefined
          ? { mode: "captions_only" as const }
          : {
              ...(request.mode === undefined ? {} : { mode: request.mode }),
              ...(request.source === undefined ? {} : { source: request.source }),
              ...(request.allow_asr === undefined ? {} : { allow_asr: request.allow_asr })
            }),
        format: request.format,
        asr_options: Schema.encodeSync(Asr.AsrOptions)(request.asr_options),
        ...(request.webhook_url === undefined ? {} : { webhook_url: request.webhook_url })
      }
      const batch: BatchRecord = {
        id,
        accountId: account.id,
        requestId,
        status: "processing",
        request: settings,
        total,
        webhookUrl: request.webhook_url ?? null,
        webhookDeliveryId: null,
        fetchesAfterFinish: 0,
        fetchWindowStartedAt: null,
        createdAt: now,
        startedAt: null,
        completedAt: null
      }
      yield* batches.insert(batch, items)
      // The items are stored: the answer does not wait for the queue, and an offer that never
      // happens (the process died) is made by the reconciler. Only the first `firstOffers` items are
      // offered; each item taken offers the next ones (see `offerNext`; items that named no video
      // are offered too, to pass the turn on).
      yield* queue
        .offer(
          items.slice(0, firstOffers).map((_, position) => ({
            lane: batchItemLane,
            id: itemKey(id, position),
            accountId: account.id
          }))
        )
        .pipe(
          Effect.catchAll((error) =>
            Effect.logWarning("could not offer batch items; the reconciler will", error)
          ),
          followUp
        )
      return new Api.BatchProcessing({
        batch_id: id,
        status: "processing",
        results: [],
        summary: new Api.BatchSummary({ total, succeeded: 0, failed: 0, processing: total }),
        credits_used: 0,
        poll_url: pollUrl(id),
        webhook_delivered: false,
        webhook_failed: false,
        webhook_attempts: 0,
        created_at: now,
        started_at: null,
        completed_at: null
      })
    }).pipe(Effect.withSpan("verbatim.batch.create"))

  /**
   * Finishes a batch whose items all ended: its status, and its webhook in the outbox, in one
   * transaction. Called by the reconciler for the batches it finds finishable, so it first asks the
   * index whether an item is left (the whole batch is read only when none is); an item's done mark
   * tells it was the last itself and goes straight to `finishNow`.
   */
  const finish = (accountId: Ids.AccountId, id: Ids.BatchId) =>
    Effect.flatMap(batches.hasUndone(id), (undone) => (undone ? Effect.void : finishNow(accountId, id)))

  const finishNow = (accountId: Ids.AccountId, id: Ids.BatchId) =>
    tx
      .transaction(
        Effect.gen(function* () {
          const found = yield* batches.view(accountId, id)
          if (Option.isNone(found) || found.value.batch.status !== "processing") return Option.none<string>()
          const view = found.value
          const summary = summarize(view.items)
          if (summary.processing > 0) return Option.none<string>()
          const at = yield* DateTime.now
          const status = finalStatus(summary)
          const finished: BatchView = {
            ...view,
            batch: { ...view.batch, status, completedAt: at, startedAt: view.batch.startedAt ?? at }
          }
          let deliveryId: string | null = null
          if (view.batch.webhookUrl !== null) {
            const body = yield* response(finished, true)
            const payload = yield* Effect.orDie(Schema.encode(Api.BatchResponse)(body))
            deliveryId = yield* secrets.uuid
            yield* deliveries.insert({
              id: deliveryId,
              accountId,
              jobId: null,
              event: `batch.${status}`,
              url: view.batch.webhookUrl,
              payload: JSON.stringify(payload),
              at
            })
          }
          // Another finish got there first (it holds or held the row): undo this one's delivery.
          const moved = yield* batches.finish(id, status, at, deliveryId)
          if (!moved) return yield* Effect.fail(new FinishedElsewhere())
          return Option.fromNullable(deliveryId)
        })
      )
      .pipe(
        Effect.catchTag("FinishedElsewhere", () => Effect.succeed(Option.none<string>())),
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.void,
            onSome: (deliveryId) =>
              queue
                .offer([{ lane: webhookLane, id: deliveryId, accountId }])
                .pipe(
                  Effect.catchAll((error) => Effect.logWarning("could not offer a batch delivery", error))
                )
          })
        )
      )

  const runItem = (work: WorkItem, owner: string, leaseMs: number) =>
    Effect.gen(function* () {
      const id = work.id
      const key = parseItemKey(id)
      if (Option.isNone(key)) return yield* Effect.logWarning(`not a batch item: ${id}`)
      const now = yield* DateTime.now
      const claimed = yield* batches
        .claimItem({ ...key.value, owner, now, leaseMs })
        .pipe(Effect.withSpan("verbatim.batch.item.claim"))
      if (claimed._tag !== "Waiting") {
        // Off the item's path: the next offer runs beside it (the reconciler makes a lost one again).
        const total = claimed._tag === "Claimed" ? claimed.batch.total : claimed.total
        yield* followUp(offerNext(key.value.batchId, key.value.position, total, work.accountId))
      }
      if (claimed._tag === "Taken") return
      if (claimed._tag === "Waiting") {
        // An earlier item names the same video: run after it (then this one finds it owned). The
        // offer alternates keys, since this item's own key is still running in the lane.
        return yield* queue.offer([
          {
            lane: batchItemLane,
            id,
            accountId: work.accountId,
            key: work.key === id ? `${id}~` : id,
            delayMs: waitingRetryMs
          }
        ])
      }
      const { batch } = claimed
      const started = yield* Clock.currentTimeMillis
      // One line per step of the item (claim or takeover, done, failed), each naming the item, its
      // batch, account, video and the request that made it, as the worker's job lines do.
      const logItem = (
        level: LogLevel.LogLevel,
        message: string,
        cause: Cause.Cause<unknown> = Cause.empty
      ) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.logWithLevel(level, message, cause).pipe(
            Effect.annotateLogs({
              "batch.id": batch.id,
              "batch.item": id,
              "account.id": batch.accountId,
              "video.id": claimed.item.videoId,
              // The POST /batch that made the item (its X-Request-Id), and the item's own request_id.
              request_id: batch.requestId,
              "item.request_id": claimed.item.requestId,
              duration_ms: now - started
            })
          )
        )
      yield* claimed.takenBefore
        ? logItem(LogLevel.Warning, `batch item ${id} taken over from an expired lease`)
        : logItem(LogLevel.Info, `batch item ${id} claimed`)
      // The item's lease is extended while it runs (its heartbeat), so an item that runs longer than
      // its lease is not taken by another worker; the heartbeat goes on through the done mark (below),
      // and a lease lost all the same (another worker took the item) stops the run.
      const lease = {
        leaseMs,
        extend: Effect.flatMap(DateTime.now, (now) =>
          batches.extendItemLease({ ...key.value, owner, now, leaseMs })
        ),
        what: `batch item ${id}'s lease`
      }
      const ran = yield* whileLeased(
        lease,
        runClaimed(claimed).pipe(Effect.withSpan("verbatim.batch.item.run"))
      )
      if (Option.isNone(ran)) {
        return yield* logItem(
          LogLevel.Warning,
          `batch item ${id}: lease lost while running; another worker has it`
        )
      }
      if (ran.value === "no account")
        return yield* logItem(LogLevel.Info, `batch item ${id} done: its account is gone`)
      const outcome = ran.value
      if (typeof outcome === "object" && outcome.unrecorded !== null) {
        const recorded = yield* whileLeased(
          lease,
          batches.itemFailed(key.value.batchId, key.value.position, owner, outcome.unrecorded)
        )
        if (Option.isNone(recorded)) {
          return yield* logItem(
            LogLevel.Warning,
            `batch item ${id}: lease lost before its error was recorded; another worker has it`
          )
        }
      }
      // The item's job is stored: its done mark, and then whether that was the batch's last item,
      // run beside the next item, not before it (a shutdown lets it finish). The heartbeat goes on
      // until the mark lands: a mark that waits on the batch's row longer than what is left of the
      // lease would otherwise let the reconciler offer the item again and another worker take it.
      // One lost to a crash leaves the item leased and not done: once the lease expires, the
      // reconciler offers it again, and the item taken again finds its job and is marked done (the
      // reconciler also finishes a batch whose check was lost).
      yield* followUp(
        whileLeased(lease, batches.itemDone(key.value.batchId, key.value.position, owner)).pipe(
          Effect.withSpan("verbatim.batch.item.done"),
          Effect.flatMap(
            Option.match({
              onNone: () =>
                logItem(
                  LogLevel.Warning,
                  `batch item ${id}: lease lost before its done mark; another worker has it`
                ),
              onSome: (done) =>
                Effect.zipRight(
                  typeof ran.value === "object"
                    ? logItem(LogLevel.Warning, `batch item ${id} failed: ${ran.value.failed}`)
                    : logItem(LogLevel.Info, `batch item ${id} done`),
                  done === "last"
                    ? finishNow(batch.accountId, batch.id).pipe(Effect.withSpan("verbatim.batch.item.finish"))
                    : Effect.void
                )
            })
          ),
          Effect.catchAllCause((cause) =>
            logItem(
              LogLevel.Warning,
              `marking batch item ${id} done or finishing batch ${batch.id} failed; the reconciler will`,
              cause
            )
          )
        )
      )
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.logError(`batch item ${work.id} failed; the reconciler will run it again`, cause).pipe(
          Effect.annotateLogs({ "batch.item": work.id, "account.id": work.accountId })
        )
      ),
      Effect.withSpan("verbatim.batch.item", { attributes: { "batch.item": work.id } })
    )

  /**
   * What a taken item (or one found done or held) offers: the item `offerWindow` positions after it,
   * and, while the window opens (the first `offerWindow - firstOffers` positions), the item
   * `firstOffers` positions after it. Acceptance offered positions below `firstOffers`; each later
   * position is offered once, by the item `firstOffers` (below `offerWindow`) or `offerWindow`
   * positions before it. A batch so keeps at most about `offerWindow` items in the queue, whatever
   * its size, and the items reach every worker in order. An offer that fails is logged; the
   * reconciler makes it again (see `reconcile`: it offers every item inside the window).
   */
  const offerNext = (batchId: Ids.BatchId, position: number, total: number, accountId: string) => {
    const next = [position + offerWindow]
    if (position + firstOffers < offerWindow) next.push(position + firstOffers)
    const offers = next
      .filter((at) => at < total)
      .map((at) => ({ lane: batchItemLane, id: itemKey(batchId, at), accountId }))
    return offers.length === 0
      ? Effect.void
      : queue.offer(offers).pipe(
          Effect.catchAll((error) => Effect.logWarning("could not offer the next batch items", error)),
          Effect.withSpan("verbatim.batch.item.offer_next")
        )
  }

  /**
   * Runs a claimed item: the video's transcribe request as the item's job, unless that job exists
   * (only an item taken before can have one).
   */
  const runClaimed = ({ batch, account, available, ownsVideo, item, takenBefore }: Claimed) =>
    Effect.gen(function* () {
      const existing = takenBefore ? yield* jobs.get(batch.accountId, item.jobId) : Option.none()
      if (Option.isNone(existing)) {
        if (Option.isNone(account)) return "no account" as const
        const settings = batch.request
        const request = yield* Schema.decodeUnknown(Api.TranscribeRequest)({
          video: item.videoId,
          ...(settings.language === undefined ? {} : { language: settings.language }),
          ...(settings.mode === undefined ? {} : { mode: settings.mode }),
          ...(settings.source === undefined ? {} : { source: settings.source }),
          ...(settings.allow_asr === undefined ? {} : { allow_asr: settings.allow_asr }),
          format: Schema.encodeSync(Api.FormatOptions)(settings.format),
          asr_options: settings.asr_options,
          ...(settings.webhook_url === undefined ? {} : { webhook_url: settings.webhook_url })
        }).pipe(Effect.orDie)
        // Every answer, refusals included, is recorded as the item's job by the use case.
        const refused = yield* transcribe(account.value, request, {
          jobId: item.jobId,
          requestId: item.requestId,
          noWebhook: true,
          availableBefore: available,
          ownedBefore: ownsVideo
        }).pipe(
          Effect.as(undefined),
          Effect.catchTag("ApiError", (error) => Effect.succeed({ code: error.code, message: error.message }))
        )
        if (refused !== undefined) {
          // A refusal before the job row exists (the webhook host re-checked, say) leaves no job
          // to tell it: the item records the error itself, or it would stay processing forever.
          const recorded = yield* jobs.get(batch.accountId, item.jobId)
          return {
            failed: refused.code,
            unrecorded: Option.isNone(recorded) ? `${refused.code}: ${refused.message}` : null
          }
        }
      }
      return "ran" as const
    })

  const reconcile = Effect.gen(function* () {
    const now = yield* DateTime.now
    // Every round, whatever the lane holds: items whose lease expired, and the items never taken
    // inside each batch's offer window once the batch is `reofferAfterMs` old. An offer that failed
    // or was lost (the first one of a batch, or the one an item makes `offerWindow` positions on)
    // is made again within a round, even while other accounts' work keeps the lane busy; items
    // still queued are not doubled, since an offer of a key waiting, delayed or running does nothing.
    const pending = yield* batches.pending(now, 2000, {
      window: offerWindow,
      acceptedBefore: DateTime.subtract(now, { millis: reofferAfterMs })
    })
    if (pending.length > 0) {
      yield* queue.offer(
        pending.map((item) => {
          const id = itemKey(item.batchId, item.position)
          return {
            lane: batchItemLane,
            id,
            accountId: item.accountId,
            // Keyed by the expired lease: the queue may still hold the item for a worker that died
            // with it in hand (until its own stall timeout), which must not keep it from running.
            key: item.leaseExpiresAt === null ? id : `${id}@${DateTime.toEpochMillis(item.leaseExpiresAt)}`
          }
        })
      )
    }
    for (const batch of yield* batches.finishable(100)) yield* finish(batch.accountId, batch.id)
    return pending.length
  }).pipe(
    Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("reconciling batches failed", cause), 0))
  )

  const get = (account: Account, id: Ids.BatchId) =>
    Effect.gen(function* () {
      const found = yield* batches.view(account.id, id)
      if (Option.isNone(found)) return yield* Effect.fail(notFound(`batch ${id}`, { batch_id: id }))
      const view = found.value
      if (view.batch.status !== "processing") {
        const now = yield* DateTime.now
        const count = yield* batches.countFetch(id, now)
        if (count > maxFinishedFetches) {
          const started = view.batch.fetchWindowStartedAt ?? now
          const retryAfter = Math.max(
            1,
            Math.ceil(
              (DateTime.toEpochMillis(started) +
                Duration.toMillis(fetchWindow) -
                DateTime.toEpochMillis(now)) /
                1000
            )
          )
          return yield* Effect.fail(
            Errors.apiError(
              "rate_limit_exceeded",
              `batch ${id} was fetched ${maxFinishedFetches} times in 24 hours since it finished: retry after ${retryAfter} s`,
              { retry_after_seconds: retryAfter, batch_id: id }
            )
          )
        }
      }
      return yield* response(view, view.batch.status !== "processing")
    }).pipe(Effect.withSpan("verbatim.batch.get"))

  return BatchWork.of({ create, estimate, get, runItem, reconcile })
})

export const BatchWorkLive = Layer.scoped(BatchWork, makeBatchWork)

export interface BatchWorkerSettings {
  /** This process's name in leases. */
  readonly owner: string
  /** Items run at once by this process. */
  readonly concurrency: number
  /** How long an item is held by a worker that stopped answering. */
  readonly leaseMs: number
}

/**
 * The batches' part of the background work (`BackgroundWork`): items from the `batch.item` lane,
 * and the reconciler of batches (beside the `Worker` of jobs, in every process that runs work).
 */
export const batchBackground = (settings: BatchWorkerSettings) =>
  Effect.map(
    BatchWork,
    (work): BackgroundFeature => ({
      name: "batches",
      lanes: [
        {
          lane: batchItemLane,
          concurrency: settings.concurrency,
          handle: (item) => work.runItem(item, settings.owner, settings.leaseMs)
        }
      ],
      reconcile: work.reconcile
    })
  )
