/**
 * Batches on the production wiring with the worker running: a video named several times in one
 * batch, and again in another batch accepted at the same moment, is fetched once (its details and
 * its captions), charged once, and every item reports it; the platform's fetches are shared by
 * concurrent requests whatever the use case (the `sharedFetches` layer every process wraps its
 * platform with); an item that runs longer than its lease keeps it (its heartbeat), so it is
 * taken once; a batch keeps at most `offerWindow` items offered, each item taken (or found done)
 * offering the one `offerWindow` positions after it; and every reconciler round offers the items
 * never taken inside each batch's window (once the batch is `reofferAfterMs` old) and those whose
 * lease expired, whatever the lane holds, so a lost offer never stalls a batch while other work
 * keeps the lane busy.
 */

import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import {
  type Account,
  Batches,
  type BatchRecord,
  BatchWork,
  BatchWorkLive,
  batchItemLane,
  firstOffers,
  offerWindow,
  reofferAfterMs,
  VideoPlatform,
  WorkQueue
} from "@verbatim/core"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Api, type Ids } from "@verbatim/domain"
import { Context, DateTime, Duration, Effect, Exit, Layer, Option, Schema, Scope } from "effect"
import { demoPlatform, runWorker, servicesOn } from "../../src/index.js"
import { eventually, testInfrastructure, testWorkerOn, testWorkSettings } from "../../src/testing.js"
import {
  books,
  createAccount,
  expectBalancedBooks,
  liveSuiteOptions,
  suiteOptions,
  videos
} from "./support.js"

/** Calls that reached the platform, by method and video. */
const calls = new Map<string, number>()
const count = (what: string) => calls.set(what, (calls.get(what) ?? 0) + 1)

/** The demo platform, counting the calls that reach it and answering each a little late. */
const countingPlatform = Layer.effect(
  VideoPlatform,
  Effect.map(VideoPlatform, (platform) =>
    VideoPlatform.of({
      ...platform,
      video: (id) =>
        Effect.zipRight(
          Effect.sync(() => count(`video ${id}`)),
          platform.video(id)
        ).pipe(Effect.delay("20 millis")),
      captions: (id, track, options) =>
        Effect.zipRight(
          Effect.sync(() => count(`captions ${id} ${track.language} ${track.kind}`)),
          platform.captions(id, track, options)
        ).pipe(Effect.delay("20 millis"))
    })
  )
).pipe(Layer.provide(demoPlatform(shippedCataloguePath)))

const request = (video_ids: ReadonlyArray<string>) =>
  Schema.decodeUnknownSync(Api.BatchRequest)({ video_ids })

/** A batch record as accepted (processing), to store directly. */
const processingBatch = (
  id: Ids.BatchId,
  accountId: Ids.AccountId,
  total: number,
  createdAt: DateTime.Utc,
  webhookUrl: string | null
): BatchRecord => ({
  id,
  accountId,
  requestId: crypto.randomUUID() as Ids.RequestId,
  status: "processing",
  request: { format: Schema.decodeUnknownSync(Api.FormatOptions)({}), asr_options: {} },
  total,
  webhookUrl,
  webhookDeliveryId: null,
  fetchesAfterFinish: 0,
  fetchWindowStartedAt: null,
  createdAt,
  startedAt: null,
  completedAt: null
})

const finished = (account: Account, id: Ids.BatchId, timeoutMs = 30_000) =>
  eventually(
    `batch ${id} to finish`,
    Effect.gen(function* () {
      const answer = yield* Effect.orDie(Effect.flatMap(BatchWork, (work) => work.get(account, id)))
      return answer.status === "processing" ? Option.none() : Option.some(answer)
    }),
    timeoutMs
  )

// Live clock: the embedded worker runs batch items in the background (see `liveSuiteOptions`).
layer(servicesOn(testInfrastructure({ platform: countingPlatform })), liveSuiteOptions)(
  "batches with the worker",
  (it) => {
    it.effect(
      "a video named three times in a batch and again in another batch is fetched once and charged once",
      () =>
        Effect.gen(function* () {
          const work = yield* BatchWork
          const account = yield* createAccount({ credits: 10 })
          const v = videos.manualOnly
          const w = videos.autoOnly
          calls.clear()
          const first = yield* Effect.orDie(work.create(account, request([v, w, v, v])))
          const second = yield* Effect.orDie(work.create(account, request([w, v])))
          const [a, b] = yield* Effect.scoped(
            Effect.zipRight(
              runWorker,
              Effect.all([finished(account, first.batch_id), finished(account, second.batch_id)])
            )
          ).pipe(Effect.provide(testWorkerOn(testWorkSettings({ batchConcurrency: 8 }))))
          for (const batch of [a, b]) {
            expect(batch.status).toBe("completed")
            expect(batch.results.every((item) => item.status === "completed")).toBe(true)
          }
          expect(a.results.map((item) => item.video_id)).toEqual([v, w, v, v])
          // Each video paid once, by whichever item ran first; the others were served as owned.
          expect(a.credits_used + b.credits_used).toBe(2)
          expect(Object.fromEntries(calls)).toEqual({
            [`video ${v}`]: 1,
            [`video ${w}`]: 1,
            [`captions ${v} en manual`]: 1,
            [`captions ${w} en auto`]: 1
          })
          expect((yield* books(account)).balance).toBe(8)
          yield* expectBalancedBooks(account)
        }),
      30_000
    )

    it.effect("finishing a batch from many fibers at once moves it once and writes one delivery", () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const work = yield* BatchWork
        const sql = yield* SqlClient.SqlClient
        const account = yield* createAccount({ credits: 10 })
        const id = crypto.randomUUID() as Ids.BatchId
        // Every item already ended (references that named no video): the batch is ready to finish.
        yield* batches.insert(
          processingBatch(id, account.id, 3, yield* DateTime.now, "http://127.0.0.1:9/batch-hook"),
          [0, 1, 2].map((position) => ({
            requestId: crypto.randomUUID() as Ids.RequestId,
            jobId: crypto.randomUUID() as Ids.JobId,
            videoId: `not a video ${position}`,
            error: "names no video"
          }))
        )
        yield* Effect.all(
          Array.from({ length: 8 }, () => work.reconcile),
          { concurrency: "unbounded" }
        )
        const rows = yield* sql<{ readonly id: string }>`SELECT d.id FROM webhook_deliveries d
          WHERE d.account_id = ${account.id} AND d.event = 'batch.failed'`
        expect(rows).toHaveLength(1)
        const answer = yield* Effect.orDie(work.get(account, id))
        expect(answer.status).toBe("failed")
      })
    )

    it.effect("concurrent requests for one video share one fetch; a failure is not kept", () =>
      Effect.gen(function* () {
        const platform = yield* VideoPlatform
        calls.clear()
        const details = yield* Effect.all(
          Array.from({ length: 10 }, () => platform.video(videos.multiLanguage as Ids.VideoId)),
          { concurrency: "unbounded" }
        )
        expect(new Set(details.map((d) => d.title)).size).toBe(1)
        expect(calls.get(`video ${videos.multiLanguage}`)).toBe(1)
        const missing = videos.unknown as Ids.VideoId
        yield* Effect.flip(platform.video(missing))
        yield* Effect.flip(platform.video(missing))
        expect(calls.get(`video ${missing}`)).toBe(2)
      })
    )

    it.effect(
      "an item refused before its job is recorded is a failed item with its error, and its batch finishes",
      () =>
        Effect.gen(function* () {
          const batches = yield* Batches
          const work = yield* BatchWork
          const account = yield* createAccount({ credits: 10 })
          const id = crypto.randomUUID() as Ids.BatchId
          const accepted = processingBatch(id, account.id, 1, yield* DateTime.now, null)
          // The webhook host resolved when the batch was accepted; when the worker checks it again
          // it no longer does: the item is refused before its job is recorded.
          yield* batches.insert(
            {
              ...accepted,
              request: { ...accepted.request, mode: "auto", webhook_url: "https://gone.example.net/hook" }
            },
            [{ videoId: videos.manualOnly, error: null }]
          )
          yield* work.runItem(
            { lane: batchItemLane, id: `${id}:0`, accountId: account.id },
            "refusing",
            30_000
          )
          const answer = yield* finished(account, id)
          expect(answer.status).toBe("failed")
          expect(answer.results).toHaveLength(1)
          expect(answer.results[0]).toMatchObject({ status: "failed" })
          expect(JSON.stringify(answer.results[0])).toContain("gone.example.net")
          expect((yield* batches.finishable(100)).map((b) => b.id)).not.toContain(id)
          expect((yield* books(account)).balance).toBe(10)
        }),
      30_000
    )

    it.effect(
      "closing the batch service lets an item's done mark in flight land: the batch finishes, not a lease later",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 10 })
          // A done mark that takes a while: the service closes while it is in flight.
          const slowDone = Layer.effect(
            Batches,
            Effect.map(Batches, (batches) =>
              Batches.of({
                ...batches,
                itemDone: (batchId, position, owner) =>
                  Effect.delay(batches.itemDone(batchId, position, owner), "300 millis")
              })
            )
          )
          const scope = yield* Scope.make()
          const work = Context.get(
            yield* Layer.buildWithScope(BatchWorkLive.pipe(Layer.provide(slowDone)), scope),
            BatchWork
          )
          const batch = yield* Effect.orDie(work.create(account, request([videos.manualOnly])))
          const item = { lane: batchItemLane, id: `${batch.batch_id}:0`, accountId: account.id }
          yield* work.runItem(item, "closing", 30_000)
          yield* Scope.close(scope, Exit.void)
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ readonly done: boolean; readonly owner: string | null }>`
            SELECT done, lease_owner AS owner FROM batch_items WHERE batch_id = ${batch.batch_id}`
          expect(rows).toEqual([{ done: true, owner: null }])
          const answer = yield* Effect.orDie(
            Effect.flatMap(BatchWork, (live) => live.get(account, batch.batch_id))
          )
          expect(answer.status).toBe("completed")
          yield* expectBalancedBooks(account)
        }),
      30_000
    )
  }
)

/** Items taken (claimed to run), by `<batch id>:<position>`. */
const claims = new Map<string, number>()

/**
 * The `Batches` port, counting the claims that took an item, with done marks that land a lease
 * late (as one waiting its turn on a busy batch's row could).
 */
const countingClaims = Layer.effect(
  Batches,
  Effect.map(Batches, (batches) =>
    Batches.of({
      ...batches,
      itemDone: (batchId, position, owner) =>
        Effect.delay(batches.itemDone(batchId, position, owner), Duration.millis(slowDoneMs)),
      claimItem: (claim) =>
        Effect.tap(batches.claimItem(claim), (claimed) =>
          Effect.sync(() => {
            if (claimed._tag !== "Claimed") return
            const key = `${claim.batchId}:${claim.position}`
            claims.set(key, (claims.get(key) ?? 0) + 1)
          })
        )
    })
  )
)

/** Every platform answer this late: an item (details, then captions) runs about four leases. */
const slowFetchMs = 600
const shortLeaseMs = 300
/** Every done mark this late: two leases (before it, the heartbeat stopped with the run). */
const slowDoneMs = 2 * shortLeaseMs

// Live clock: the embedded worker runs batch items in the background (see `liveSuiteOptions`).
layer(
  servicesOn(
    countingClaims.pipe(
      Layer.provideMerge(testInfrastructure({ platform: demoPlatform(shippedCataloguePath, slowFetchMs) }))
    )
  ),
  liveSuiteOptions
)("batch item leases", (it) => {
  it.effect(
    "an item running longer than its lease keeps it while it runs and until its done mark lands: taken once, charged once",
    () =>
      Effect.gen(function* () {
        const work = yield* BatchWork
        const account = yield* createAccount({ credits: 10 })
        claims.clear()
        const batch = yield* Effect.orDie(work.create(account, request([videos.manualOnly, videos.autoOnly])))
        const done = yield* Effect.scoped(Effect.zipRight(runWorker, finished(account, batch.batch_id))).pipe(
          // The reconciler looks for expired leases every 50 ms: without a heartbeat it would offer
          // each item again about 300 ms into its run, and another fiber would take it.
          Effect.provide(testWorkerOn(testWorkSettings({ leaseMs: shortLeaseMs, reconcileEveryMs: 50 })))
        )
        expect(done.status).toBe("completed")
        expect(done.credits_used).toBe(2)
        expect(Object.fromEntries(claims)).toEqual({
          [`${batch.batch_id}:0`]: 1,
          [`${batch.batch_id}:1`]: 1
        })
        // The lease ended with the run: the item is done and held by nobody.
        const sql = yield* SqlClient.SqlClient
        const held = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM batch_items
          WHERE batch_id = ${batch.batch_id} AND (NOT done OR lease_owner IS NOT NULL)`
        expect(held[0]?.n).toBe(0)
        expect((yield* books(account)).balance).toBe(8)
        yield* expectBalancedBooks(account)
      }),
    30_000
  )
})

/** The account whose work keeps the batch lane busy. */
const busyAccount = crypto.randomUUID()

/** An item that keeps the batch lane busy for the whole suite (another account's, delayed an hour). */
const keepLaneBusy = Effect.flatMap(WorkQueue, (queue) =>
  queue.offer([
    { lane: batchItemLane, id: `${crypto.randomUUID()}:0`, accountId: busyAccount, delayMs: 3_600_000 }
  ])
)

// On the test clock: a reconcile round is called, never waited for; no worker runs.
layer(servicesOn(testInfrastructure()), suiteOptions)("reconciling batch items", (it) => {
  it.effect(
    "offers the items never taken of a batch a few seconds old whatever the lane holds, once each; expired leases always",
    () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const work = yield* BatchWork
        const queue = yield* WorkQueue
        const sql = yield* SqlClient.SqlClient
        const account = yield* createAccount({ credits: 10 })
        const id = crypto.randomUUID() as Ids.BatchId
        const now = yield* DateTime.now
        const waiting = Effect.map(queue.depth(batchItemLane), (depth) => depth.waiting)
        // Another account's work keeps the lane busy the whole time.
        yield* keepLaneBusy
        // Stored, never offered (as if the process that accepted it died first); no worker runs.
        yield* batches.insert(
          processingBatch(
            id,
            account.id,
            3,
            DateTime.subtract(now, { millis: reofferAfterMs + 1_000 }),
            null
          ),
          [videos.manualOnly, videos.autoOnly, videos.multiLanguage].map((videoId) => ({
            videoId,
            error: null
          }))
        )
        // A batch accepted a moment ago: its own offers are on their way, it is left alone.
        const young = crypto.randomUUID() as Ids.BatchId
        yield* batches.insert(processingBatch(young, account.id, 1, yield* DateTime.now, null), [
          { videoId: videos.germanOnly, error: null }
        ])
        const before = yield* waiting
        expect(yield* work.reconcile).toBe(3)
        expect(yield* waiting).toBe(before + 3)
        // (Finished here, so that it never counts once it is old enough, in this test or the next.)
        yield* sql`UPDATE batches SET status = 'completed' WHERE id = ${young}`
        // Queued: offered again round after round, never doubled.
        expect(yield* work.reconcile).toBe(3)
        expect(yield* waiting).toBe(before + 3)
        // A worker took the first and died: once its lease is over, it is offered (under a new key).
        const claimed = yield* batches.claimItem({
          batchId: id,
          position: 0,
          owner: "gone",
          now: DateTime.subtract(now, { seconds: 10 }),
          leaseMs: 1_000
        })
        expect(claimed._tag).toBe("Claimed")
        expect(yield* work.reconcile).toBe(3)
        expect(yield* waiting).toBe(before + 4)
      })
  )

  it.effect(
    "an offer a taken item failed to make (the item a window on) is made by the next round while the lane is busy",
    () =>
      Effect.gen(function* () {
        const batches = yield* Batches
        const work = yield* BatchWork
        const queue = yield* WorkQueue
        const sql = yield* SqlClient.SqlClient
        const account = yield* createAccount({ credits: 10 })
        const id = crypto.randomUUID() as Ids.BatchId
        const total = 2 * offerWindow + 2
        const accepted = DateTime.subtract(yield* DateTime.now, { millis: reofferAfterMs + 1_000 })
        yield* keepLaneBusy
        yield* batches.insert(
          processingBatch(id, account.id, total, accepted, null),
          Array.from({ length: total }, (_, position) => ({
            videoId: `v${String(position).padStart(10, "0")}`,
            error: null
          }))
        )
        // The first item ran; the offer of the item a window on that it made was lost.
        yield* sql`UPDATE batch_items SET done = true WHERE batch_id = ${id} AND position = 0`
        const offered = new Set(
          (yield* batches.pending(yield* DateTime.now, 10_000, {
            window: offerWindow,
            acceptedBefore: DateTime.subtract(yield* DateTime.now, { millis: reofferAfterMs })
          }))
            .filter((item) => item.batchId === id)
            .map((item) => item.position)
        )
        // The rest of the first window, and the lost one: never the items beyond the window.
        expect(offered.size).toBe(offerWindow)
        expect(offered.has(offerWindow)).toBe(true)
        expect(offered.has(offerWindow + 1)).toBe(false)
        const depth = yield* queue.depth(batchItemLane)
        yield* work.reconcile
        expect((yield* queue.depth(batchItemLane)).waiting).toBe(depth.waiting + offerWindow)
      })
  )
})

// Live clock: an item's next offer runs beside it, in a fiber of its own that waits on the database.
layer(servicesOn(testInfrastructure()), liveSuiteOptions)("offering batch items a window on", (it) => {
  it.effect(
    "a batch offers its first items only; each item taken offers the one a window after it, and while the window opens the one firstOffers after it",
    () =>
      Effect.gen(function* () {
        const work = yield* BatchWork
        const queue = yield* WorkQueue
        const account = yield* createAccount({ credits: 2 * offerWindow + 10 })
        const queued = Effect.map(queue.depth(batchItemLane), (depth) => depth.waiting)
        const before = yield* queued
        // Two windows and two items; the second names no video (failed at once, offered all the same).
        const total = 2 * offerWindow + 2
        const ids = Array.from({ length: total }, (_, i) =>
          i === 1 ? "not a video" : `v${String(i).padStart(10, "0")}`
        )
        const batch = yield* Effect.orDie(work.create(account, request(ids)))
        // The next offers run beside the item (off its path): waited for, not assumed made at its end.
        const queuedReaches = (n: number) =>
          eventually(
            `${n} items queued`,
            Effect.map(queued, (depth) => (depth === n ? Option.some(depth) : Option.none()))
          )
        yield* queuedReaches(before + firstOffers)
        const item = (position: number) => ({
          lane: batchItemLane,
          id: `${batch.batch_id}:${position}`,
          accountId: account.id,
          key: `${batch.batch_id}:${position}`
        })
        // The item that named no video is found done: it passes its turns on (positions
        // firstOffers + 1 and window + 1).
        yield* work.runItem(item(1), "tester", 10_000)
        yield* queuedReaches(before + firstOffers + 2)
        // Taken and run (an unknown video: the item's job fails), it offers positions firstOffers
        // and window.
        yield* work.runItem(item(0), "tester", 10_000)
        yield* queuedReaches(before + firstOffers + 4)
        // The last position that opens the window further, then the first that does not: one
        // offer each beyond the window's opening (window - firstOffers + window is in the batch).
        yield* work.runItem(item(offerWindow - firstOffers - 1), "tester", 10_000)
        yield* queuedReaches(before + firstOffers + 6)
        yield* work.runItem(item(offerWindow - firstOffers), "tester", 10_000)
        yield* queuedReaches(before + firstOffers + 7)
        // The last window offers nothing beyond the batch (its last position is 2 x window + 1).
        yield* work.runItem(item(offerWindow + 2), "tester", 10_000)
        yield* Effect.sleep("100 millis")
        expect(yield* queued).toBe(before + firstOffers + 7)
      })
  )
})

/** Keys of the batch items whose first offer was lost. */
const lost = new Set<string>()

/**
 * The work queue, losing the first offer of every batch item but the busy account's (the call
 * succeeds, nothing is queued).
 */
const losingFirstOffers = Layer.effect(
  WorkQueue,
  Effect.map(WorkQueue, (queue) =>
    WorkQueue.of({
      ...queue,
      offer: (items) =>
        queue.offer(
          items.filter((item) => {
            const key = item.key ?? item.id
            if (item.lane !== batchItemLane || item.accountId === busyAccount || lost.has(key)) return true
            lost.add(key)
            return false
          })
        )
    })
  )
)

// Live clock: the embedded worker runs batch items in the background (see `liveSuiteOptions`).
layer(servicesOn(losingFirstOffers.pipe(Layer.provideMerge(testInfrastructure()))), liveSuiteOptions)(
  "batch offers lost",
  (it) => {
    it.effect(
      "a batch whose offers were all lost completes while other work keeps the lane busy",
      () =>
        Effect.gen(function* () {
          const work = yield* BatchWork
          const account = yield* createAccount({ credits: 10 })
          yield* keepLaneBusy
          const queue = yield* WorkQueue
          expect((yield* queue.depth(batchItemLane)).delayed).toBe(1)
          const batch = yield* Effect.orDie(
            work.create(account, request([videos.manualOnly, videos.autoOnly, videos.multiLanguage]))
          )
          const done = yield* Effect.scoped(
            Effect.zipRight(runWorker, finished(account, batch.batch_id, 15_000))
          ).pipe(Effect.provide(testWorkerOn(testWorkSettings())))
          expect([0, 1, 2].every((position) => lost.has(`${batch.batch_id}:${position}`))).toBe(true)
          expect(done.status).toBe("completed")
          expect(done.credits_used).toBe(3)
          expect((yield* books(account)).balance).toBe(7)
          yield* expectBalancedBooks(account)
        }),
      30_000
    )
  }
)
