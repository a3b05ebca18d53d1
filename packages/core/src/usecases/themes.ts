/**
 * Themes of a stored transcript: POST and GET /transcripts/{video_id}/themes (spec "Themes status"),
 * and their detection as queue work.
 *
 * - GET never charges and never starts detection: locked (no record, or refunded) with
 *   `credits_required`; 202 processing while detection runs; completed with the body.
 * - POST unlocks: one transaction moves the record (none or refunded) to processing and charges
 *   `Pricing.themesCredits` under a key naming the record and its unlock count, so of concurrent
 *   POSTs exactly one wins and one charge stands; a short balance rolls both back (402). The record
 *   is offered to the `themes` lane; the request then waits up to `waitMs` (about 25 s) for the
 *   detection and answers completed, or 202 processing. A transcript under `minThemesWords` words
 *   is unlocked completed at once, with empty themes, for 0 credits. A completed record answers free.
 * - Detection (`runItem`, a worker): claims the record with a lease (kept alive while the engine
 *   runs), checks the engine's answer against the transcript (every anchor real, `misplacedAnchors`)
 *   and completes it, or, when the engine fails or the record was claimed `maxAttempts` times,
 *   moves it to refunded and posts the refund in one transaction (keyed: never twice).
 * - Reconciling: processing records whose lease is free or expired (a lost queue item, a dead
 *   worker) are offered again, so a detection survives the death of the process that started it.
 *
 * The transcript is chosen as GET /transcripts/{video_id} chooses it (`id`, `language`, `source`):
 * 404 for a video the account owns nothing of (another account's transcripts are not there).
 */
import { Api, type Credits, Errors, Plan, Pricing, Status } from "@verbatim/domain"
import { Context, DateTime, Duration, Effect, Either, Layer, Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"
import type { Account } from "../ports/accounts.js"
import { InsufficientCredits, Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import {
  emptyDetection,
  misplacedAnchors,
  ThemesDetection,
  ThemesEngine,
  ThemesId,
  type ThemesRecord,
  ThemesStore
} from "../ports/themes.js"
import { Transactor } from "../ports/transactor.js"
import type { TranscriptRecord } from "../ports/transcripts.js"
import { Transcripts } from "../ports/transcripts.js"
import type { WorkItem } from "../ports/work-queue.js"
import { WorkQueue } from "../ports/work-queue.js"
import { type BackgroundFeature, whileLeased } from "./lanes.js"
import { StoredTranscripts } from "./tags.js"

/** The lane of theme detections. */
export const themesLane = "themes"

export interface ThemesSettingsShape {
  /** How long POST waits for the detection before answering 202 processing (spec: about 25 s). */
  readonly waitMs: number
  /** How often a waiting POST looks at the record. */
  readonly pollMs: number
  /** Claims of one detection before it is given up and refunded. */
  readonly maxAttempts: number
  /** Detections one process runs at once. */
  readonly concurrency: number
}

export const defaultThemesSettings: ThemesSettingsShape = {
  waitMs: Plan.themesPostWaitMs,
  pollMs: 200,
  maxAttempts: 3,
  concurrency: 2
}

export class ThemesSettings extends Context.Tag("@verbatim/core/ThemesSettings")<
  ThemesSettings,
  ThemesSettingsShape
>() {}

type Fails<A> = Effect.Effect<A, Errors.ApiError | PersistenceError>

/** POST and GET themes, and the detection work behind them. */
export class Themes extends Context.Tag("@verbatim/core/Themes")<
  Themes,
  {
    /** POST: unlocks (charging once) and waits; completed, or processing (202). */
    readonly unlock: (
      account: Account,
      videoId: string,
      query: Api.ThemesQuery
    ) => Fails<Api.ThemesResponse | Api.ThemesProcessing>
    /** GET: the state, never charging, never starting detection. */
    readonly get: (account: Account, videoId: string, query: Api.ThemesQuery) => Fails<Api.ThemesState>
    /** Detects the themes of one record (the handler of a `themes` lane item); never fails. */
    readonly runItem: (item: WorkItem, owner: string, leaseMs: number) => Effect.Effect<void>
    /** Offers again the detections whose lease is free or expired; how many. */
    readonly reconcile: Effect.Effect<number>
  }
>() {}

/** A move the themes machine refuses is a defect of ours, never the caller's. */
const checked = (from: Status.ThemesStatus | null, to: Status.ThemesStatus) =>
  Either.match(from === null ? Status.ThemesMachine.start(to) : Status.ThemesMachine.move(from, to), {
    onLeft: (error) => Effect.die(error),
    onRight: () => Effect.void
  })

const isValidDetection = Schema.is(ThemesDetection)

/**
 * A detection's key in the lane: the unlock's, as the POST offers it, until a worker claims it; then
 * one naming the claims too, so the queue still holding the item for a worker that died with it
 * (until its stall timeout) does not keep the detection from running again. The reconciler offers
 * every runnable record each round under this key: one queued for its unlock is not queued twice.
 */
const itemKey = (record: ThemesRecord) =>
  record.attempts === 0
    ? `${record.id}:${record.unlocks}`
    : `${record.id}:${record.unlocks}:${record.attempts}`

export const ThemesLive = Layer.effect(
  Themes,
  Effect.gen(function* () {
    const store = yield* ThemesStore
    const stored = yield* StoredTranscripts
    const transcripts = yield* Transcripts
    const ledger = yield* Ledger
    const tx = yield* Transactor
    const queue = yield* WorkQueue
    const secrets = yield* Secrets
    const engine = yield* ThemesEngine
    const settings = yield* ThemesSettings

    /** The transcript the query names and the account's themes record of it (none: locked). */
    const current = (account: Account, videoId: string, query: Api.ThemesQuery) =>
      Effect.gen(function* () {
        yield* Effect.annotateCurrentSpan({ "account.id": account.id, "video.id": videoId })
        const chosen = yield* stored.get(account, videoId, {
          ...query,
          include_timestamps: true,
          format: "json"
        })
        const existing = yield* store.find(account.id, chosen.record.id)
        return { transcript: chosen.record, existing }
      })

    const completed = (record: ThemesRecord, creditsUsed: Credits.Credits, balance: Credits.Credits) => {
      const result = record.result ?? emptyDetection
      return new Api.ThemesResponse({
        video_id: record.videoId,
        language: record.language,
        status: "completed",
        credits_used: creditsUsed,
        credits_remaining: balance,
        tldr: result.tldr,
        moments: result.moments,
        themes: result.themes
      })
    }

    const processing = (record: ThemesRecord) =>
      new Api.ThemesProcessing({ status: "processing", video_id: record.videoId, language: record.language })

    const locked = (transcript: TranscriptRecord) =>
      new Api.ThemesLocked({
        status: "locked",
        video_id: transcript.videoId,
        language: transcript.language,
        credits_required: Pricing.themesCredits({ wordCount: transcript.wordCount, unlocked: false })
      })

    const offer = (record: ThemesRecord) =>
      queue
        .offer([{ lane: themesLane, id: record.id, accountId: record.accountId, key: itemKey(record) }])
        .pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`could not offer themes ${record.id}; the reconciler will`, error.cause)
          )
        )

    /** Looks at the record until it is no longer processing or `waitMs` is over. */
    const awaitDetection = (id: ThemesId) => {
      const look: Effect.Effect<Option.Option<ThemesRecord>, PersistenceError> = Effect.flatMap(
        store.get(id),
        (found) =>
          Option.isSome(found) && found.value.status === "processing"
            ? Effect.delay(
                Effect.suspend(() => look),
                Duration.millis(settings.pollMs)
              )
            : Effect.succeed(found)
      )
      return look.pipe(Effect.timeoutOption(Duration.millis(settings.waitMs)), Effect.map(Option.flatten))
    }

    /** What POST answers once the record is unlocked (by this request or another). */
    const answer = (record: ThemesRecord, creditsUsed: Credits.Credits, account: Account) =>
      Effect.gen(function* () {
        const latest =
          record.status === "processing"
            ? Option.getOrElse(yield* awaitDetection(record.id), () => record)
            : record
        switch (latest.status) {
          case "completed":
            return completed(latest, creditsUsed, yield* ledger.balance(account.id))
          case "processing":
            return processing(latest)
          default:
            // The engine failed, not this server: 503, as a failed translation is (no Retry-After:
            // nothing tells when the engine heals, and a new POST is a new paid unlock).
            return yield* Errors.apiError(
              "themes_unavailable",
              "theme detection failed; the credits it was charged are refunded, and a new POST may try again",
              { video_id: latest.videoId, refunded: latest.creditsCharged, reason: latest.error ?? "unknown" }
            )
        }
      })

    const unlock = Effect.fn("Themes.unlock")(function* (
      account: Account,
      videoId: string,
      query: Api.ThemesQuery
    ) {
      const { transcript, existing } = yield* current(account, videoId, query)
      if (Option.isSome(existing) && existing.value.status !== "refunded") {
        return yield* answer(existing.value, 0, account)
      }
      const from = Option.match(existing, { onNone: () => "locked" as const, onSome: (r) => r.status })
      const price = Pricing.themesCredits({ wordCount: transcript.wordCount, unlocked: false })
      const short = Pricing.isTooShortForThemes(transcript.wordCount)
      const to = short ? ("completed" as const) : ("processing" as const)
      yield* checked(from, to)
      const at = yield* DateTime.now
      const won = yield* tx
        .transaction(
          Effect.gen(function* () {
            const moved = yield* store.unlock({
              id: ThemesId.make(yield* secrets.uuid),
              accountId: account.id,
              transcriptId: transcript.id,
              videoId: transcript.videoId,
              language: transcript.language,
              status: to,
              result: short ? emptyDetection : null,
              creditsCharged: price,
              at
            })
            if (Option.isNone(moved) || price === 0) return moved
            const record = moved.value
            yield* ledger.charge(
              {
                accountId: account.id,
                key: `charge:themes:${record.id}:${record.unlocks}`,
                reason: `themes of transcript ${transcript.id} (video ${transcript.videoId}, ${transcript.language})`,
                at
              },
              price
            )
            return moved
          })
        )
        .pipe(
          Effect.catchIf(
            (error): error is InsufficientCredits => error instanceof InsufficientCredits,
            (error) =>
              Errors.apiError(
                "payment_required",
                `themes need ${error.required} credit and the balance is ${error.balance}`,
                { required: error.required, balance: error.balance, video_id: transcript.videoId }
              )
          )
        )
      if (Option.isNone(won)) {
        // Another request unlocked it first: its answer is ours, free.
        const current = yield* store.find(account.id, transcript.id)
        if (Option.isNone(current)) return yield* Effect.die("a themes record vanished after its unlock")
        return yield* answer(current.value, 0, account)
      }
      const record = won.value
      yield* Effect.annotateCurrentSpan({ "themes.id": record.id, "themes.credits": price })
      if (record.status === "processing") yield* offer(record)
      return yield* answer(record, price, account)
    })

    const get = Effect.fn("Themes.get")(function* (
      account: Account,
      videoId: string,
      query: Api.ThemesQuery
    ) {
      const { transcript, existing } = yield* current(account, videoId, query)
      if (Option.isNone(existing) || existing.value.status === "refunded") return locked(transcript)
      const record = existing.value
      return record.status === "processing"
        ? processing(record)
        : completed(record, 0, yield* ledger.balance(account.id))
    })

    /** Gives the detection up: refunded, and its charge refunded, in one transaction. */
    const refund = (record: ThemesRecord, owner: string, error: string) =>
      Effect.gen(function* () {
        const at = yield* DateTime.now
        yield* checked(record.status, "refunded")
        yield* tx.transaction(
          Effect.gen(function* () {
            const moved = yield* store.refund(record.id, owner, error, at)
            if (Option.isNone(moved) || moved.value.creditsCharged === 0) return
            yield* ledger.refund(
              {
                accountId: record.accountId,
                key: `refund:themes:${record.id}:${moved.value.unlocks}`,
                reason: `themes detection failed: ${error}`.slice(0, 500),
                at
              },
              moved.value.creditsCharged
            )
          })
        )
        yield* Effect.logWarning(`themes ${record.id}: detection failed and was refunded: ${error}`)
      })

    const detect = (record: ThemesRecord, owner: string, leaseMs: number) =>
      Effect.gen(function* () {
        const transcript = yield* transcripts.get(record.accountId, record.transcriptId)
        if (Option.isNone(transcript)) return yield* refund(record, owner, "the transcript is gone")
        const segments = transcript.value.segments
        const outcome = yield* whileLeased(
          {
            leaseMs,
            extend: Effect.flatMap(DateTime.now, (now) =>
              store.extendLease({ id: record.id, owner, now, leaseMs })
            ),
            what: `themes ${record.id}'s lease`
          },
          engine
            .detect({
              videoId: record.videoId,
              language: record.language,
              title: transcript.value.videoTitle,
              segments
            })
            .pipe(Effect.either)
        )
        if (Option.isNone(outcome)) {
          return yield* Effect.logWarning(
            `themes ${record.id}: lease lost while detecting; another worker has it`
          )
        }
        if (Either.isLeft(outcome.value)) {
          const error = outcome.value.left
          return yield* refund(record, owner, `${error.engine}: ${error.reason}`)
        }
        const detection = outcome.value.right
        const problems = isValidDetection(detection)
          ? misplacedAnchors(segments, detection)
          : ["the detection does not fit the response schema"]
        if (problems.length > 0) {
          return yield* refund(record, owner, `${engine.name}: ${problems.slice(0, 3).join("; ")}`)
        }
        // A transcript long enough to analyse that yields no theme is a failed detection, whichever
        // engine ran it: refunded, never 1 credit for an empty answer (short ones never get here).
        if (detection.themes.length === 0) {
          return yield* refund(record, owner, `${engine.name}: no theme found in ${segments.length} segments`)
        }
        yield* checked(record.status, "completed")
        const done = yield* store.complete(record.id, owner, detection, yield* DateTime.now)
        if (Option.isNone(done)) yield* Effect.logWarning(`themes ${record.id}: lease lost before completing`)
      })

    const runItem = (item: WorkItem, owner: string, leaseMs: number) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const claimed = yield* store.claim({ id: item.id as ThemesId, owner, now, leaseMs })
        if (Option.isNone(claimed)) return
        const record = claimed.value
        if (record.attempts > settings.maxAttempts) {
          return yield* refund(record, owner, `detection was tried ${settings.maxAttempts} times`)
        }
        yield* detect(record, owner, leaseMs).pipe(
          Effect.onInterrupt(() => Effect.ignore(store.release(record.id, owner)))
        )
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError(`themes ${item.id} failed; the reconciler will run it again`, cause)
        ),
        Effect.withSpan("verbatim.worker.themes", {
          attributes: { "themes.id": item.id },
          captureStackTrace: false
        })
      )

    const reconcile = Effect.gen(function* () {
      const runnable = yield* store.runnable(yield* DateTime.now, 1000)
      yield* queue.offer(
        runnable.map((record) => ({
          lane: themesLane,
          id: record.id,
          accountId: record.accountId,
          key: itemKey(record)
        }))
      )
      return runnable.length
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logWarning("reconciling themes failed; trying again", cause), 0)
      )
    )

    return Themes.of({ unlock, get, runItem, reconcile })
  })
)

export interface ThemesWorkerSettings {
  readonly owner: string
  readonly leaseMs: number
}

/** The themes' part of the background work (`BackgroundWork`): detections from the `themes` lane. */
export const themesBackground = (worker: ThemesWorkerSettings) =>
  Effect.gen(function* () {
    const themes = yield* Themes
    const settings = yield* ThemesSettings
    return {
      name: "themes",
      lanes: [
        {
          lane: themesLane,
          concurrency: settings.concurrency,
          handle: (item) => themes.runItem(item, worker.owner, worker.leaseMs)
        }
      ],
      reconcile: themes.reconcile
    } satisfies BackgroundFeature
  })
