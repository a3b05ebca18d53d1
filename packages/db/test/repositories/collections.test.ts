/**
 * `Collections` on every database: a collection is its account's alone and is found by its id or as
 * the latest of its platform id; a channel resolve takes one of the month's channel jobs atomically
 * against the cap (per calendar month); the batch linked to a collection is the first of the account
 * created at or after it that carries any of its videos, and stays linked; each video reports its
 * item's job; the history counts the same states; the top channels come by distinct transcribed
 * videos.
 */
import { randomUUID } from "node:crypto"
import { expect } from "@effect/vitest"
import {
  Batches,
  type BatchItem,
  type BatchRecord,
  type CollectionRecord,
  Collections,
  type CollectionVideo,
  Jobs,
  Transcripts
} from "@verbatim/core"
import { Api, Asr, Ids } from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import { at, job, newAccount, transcript } from "./fixtures.js"

const channelA = Ids.ChannelId.make("UCaaaaaaaaaaaaaaaaaaaaaa")
const channelB = Ids.ChannelId.make("UCbbbbbbbbbbbbbbbbbbbbbb")
const channelC = Ids.ChannelId.make("UCcccccccccccccccccccccc")
const playlist = Ids.PlaylistId.make("PLcollectionsTest")

const vid = (n: number) => Ids.VideoId.make(`video${String(n).padStart(6, "0")}`)

const collection = (
  accountId: Ids.AccountId,
  createdAt: string,
  overrides: Partial<CollectionRecord> = {}
): CollectionRecord => ({
  id: Ids.CollectionId.make(randomUUID()),
  accountId,
  kind: "playlist",
  playlistId: playlist,
  playlistTitle: "Talks",
  playlistUrl: `https://www.youtube.com/playlist?list=${playlist}`,
  channelId: channelA,
  channelTitle: "Channel A",
  channelUrl: `https://www.youtube.com/channel/${channelA}`,
  metadata: { truncated: false, limit: 100 },
  totalVideos: 0,
  createdAt: at(createdAt),
  ...overrides
})

const videos = (ids: ReadonlyArray<Ids.VideoId>): ReadonlyArray<CollectionVideo> =>
  ids.map((videoId, position) => ({
    id: randomUUID(),
    position,
    videoId,
    title: `Video ${position}`,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    publishedAt: position === 0 ? at("2024-05-01T17:30:00.000Z") : null,
    durationSeconds: position === 0 ? 61 : null
  }))

/** A batch of the account created at `createdAt` carrying `ids`, its items with fresh job ids. */
const batch = (accountId: Ids.AccountId, createdAt: string, ids: ReadonlyArray<string>) => {
  const record: BatchRecord = {
    id: Ids.BatchId.make(randomUUID()),
    accountId,
    requestId: Ids.RequestId.make(randomUUID()),
    status: "processing",
    request: {
      format: Api.defaultFormat,
      asr_options: Schema.encodeSync(Asr.AsrOptions)(Asr.defaults)
    },
    total: ids.length,
    webhookUrl: null,
    webhookDeliveryId: null,
    fetchesAfterFinish: 0,
    fetchWindowStartedAt: null,
    createdAt: at(createdAt),
    startedAt: null,
    completedAt: null
  }
  const items: ReadonlyArray<BatchItem> = ids.map((videoId, position) => ({
    position,
    requestId: Ids.RequestId.make(randomUUID()),
    jobId: Ids.JobId.make(randomUUID()),
    videoId,
    error: videoId === "bad" ? "bad names no video" : null,
    done: videoId === "bad"
  }))
  return { record, items }
}

const stored = (c: CollectionRecord, v: ReadonlyArray<CollectionVideo>) => ({ ...c, totalVideos: v.length })

describeEachDatabase(
  "Collections repository",
  (it) => {
    it.effect("keeps a collection for its account, by id or as the latest of its platform id", () =>
      Effect.gen(function* () {
        const collections = yield* Collections
        const owner = yield* newAccount()
        const other = yield* newAccount("Grace")
        const listed = videos([vid(1), vid(2), vid(1)])
        const first = stored(collection(owner.id, "2026-10-03T12:00:00.000Z"), listed)
        const again = videos([vid(1)])
        const second = stored(collection(owner.id, "2026-10-04T12:00:00.000Z"), again)
        expect(yield* collections.insert(first, listed, null)).toBe(true)
        expect(yield* collections.insert(second, again, null)).toBe(true)

        const byId = yield* collections.view(owner.id, "playlist", { _tag: "Id", id: first.id })
        expect(Option.map(byId, (v) => v.collection)).toEqual(Option.some(first))
        const view = Option.getOrThrow(byId)
        expect(view.batch).toBeNull()
        expect(view.videos.map((v) => [v.position, v.videoId, v.status, v.jobId, v.finishedAt])).toEqual([
          [0, vid(1), null, null, null],
          [1, vid(2), null, null, null],
          [2, vid(1), null, null, null]
        ])
        expect(view.videos[0]).toMatchObject({
          id: listed[0]?.id,
          title: "Video 0",
          publishedAt: at("2024-05-01T17:30:00.000Z"),
          durationSeconds: 61
        })

        const latest = yield* collections.view(owner.id, "playlist", { _tag: "Platform", id: playlist })
        expect(Option.map(latest, (v) => v.collection.id)).toEqual(Option.some(second.id))
        // Another account's, or the other kind: none.
        expect(yield* collections.view(other.id, "playlist", { _tag: "Id", id: first.id })).toEqual(
          Option.none()
        )
        expect(yield* collections.view(owner.id, "channel", { _tag: "Id", id: first.id })).toEqual(
          Option.none()
        )
        expect(yield* collections.view(other.id, "playlist", { _tag: "Platform", id: playlist })).toEqual(
          Option.none()
        )
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("takes channel jobs per month up to the cap; a refused one stores nothing", () =>
      Effect.gen(function* () {
        const collections = yield* Collections
        const owner = yield* newAccount()
        const october = { month: "2026-10", cap: 3 }
        const channel = (createdAt: string) =>
          collection(owner.id, createdAt, {
            kind: "channel",
            playlistId: null,
            playlistTitle: null,
            playlistUrl: null
          })
        for (let n = 0; n < 3; n++) {
          expect(yield* collections.insert(channel("2026-10-05T00:00:00.000Z"), [], october)).toBe(true)
        }
        expect(yield* collections.channelJobsUsed(owner.id, "2026-10")).toBe(3)
        const refused = channel("2026-10-31T23:59:59.000Z")
        expect(yield* collections.insert(refused, videos([vid(1)]), october)).toBe(false)
        expect(yield* collections.channelJobsUsed(owner.id, "2026-10")).toBe(3)
        expect(yield* collections.view(owner.id, "channel", { _tag: "Id", id: refused.id })).toEqual(
          Option.none()
        )
        // The next month starts again; an unlimited cap never refuses.
        expect(
          yield* collections.insert(channel("2026-11-01T00:00:00.000Z"), [], { month: "2026-11", cap: 3 })
        ).toBe(true)
        expect(yield* collections.channelJobsUsed(owner.id, "2026-11")).toBe(1)
        for (let n = 0; n < 4; n++) {
          expect(
            yield* collections.insert(channel("2026-12-01T00:00:00.000Z"), [], {
              month: "2026-12",
              cap: null
            })
          ).toBe(true)
        }
        expect(yield* collections.channelJobsUsed(owner.id, "2026-12")).toBe(4)
        expect((yield* collections.history(owner.id, "channel", 100)).length).toBe(8)
        // Concurrent claims never pass the cap.
        const results = yield* Effect.all(
          Array.from({ length: 6 }, () =>
            collections.insert(channel("2027-01-02T00:00:00.000Z"), [], { month: "2027-01", cap: 2 })
          ),
          { concurrency: "unbounded" }
        )
        expect(results.filter((ok) => ok).length).toBe(2)
        expect(yield* collections.channelJobsUsed(owner.id, "2027-01")).toBe(2)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("links the first later batch carrying any of its videos, and reports each video's job", () =>
      Effect.gen(function* () {
        const collections = yield* Collections
        const batches = yield* Batches
        const jobs = yield* Jobs
        const owner = yield* newAccount()
        const listed = videos([vid(1), vid(2), vid(3), vid(4)])
        const resolved = stored(collection(owner.id, "2026-10-03T12:00:00.000Z"), listed)
        yield* collections.insert(resolved, listed, null)

        // Before the resolve: never linked, whatever it carries.
        const earlier = batch(owner.id, "2026-10-03T11:00:00.000Z", [vid(1), vid(2)])
        yield* batches.insert(earlier.record, earlier.items)
        const none = Option.getOrThrow(
          yield* collections.view(owner.id, "playlist", { _tag: "Id", id: resolved.id })
        )
        expect(none.batch).toBeNull()
        expect(none.videos.every((v) => v.status === null)).toBe(true)

        // After it: linked, with the items it carries (vid(1) twice: its first item counts).
        const ran = batch(owner.id, "2026-10-03T12:05:00.000Z", [
          vid(1),
          vid(2),
          vid(1),
          vid(3),
          "other00000A"
        ])
        yield* batches.insert(ran.record, ran.items)
        const later = batch(owner.id, "2026-10-03T12:10:00.000Z", [vid(4)])
        yield* batches.insert(later.record, later.items)
        const [one, two, , three] = ran.items
        yield* jobs.insert(
          job(owner.id, {
            id: one?.jobId as Ids.JobId,
            videoId: vid(1),
            status: "completed",
            completedAt: at("2026-10-03T12:06:00.000Z")
          })
        )
        yield* jobs.insert(
          job(owner.id, {
            id: three?.jobId as Ids.JobId,
            videoId: vid(3),
            status: "failed",
            error: "no captions",
            creditsUsed: 0,
            completedAt: at("2026-10-03T12:07:00.000Z")
          })
        )
        const view = Option.getOrThrow(
          yield* collections.view(owner.id, "playlist", { _tag: "Id", id: resolved.id })
        )
        expect(view.batch).toEqual({ id: ran.record.id, createdAt: ran.record.createdAt, startedAt: null })
        expect(view.videos.map((v) => [v.videoId, v.status, v.jobId, v.error, v.finishedAt])).toEqual([
          [vid(1), "completed", one?.jobId, null, at("2026-10-03T12:06:00.000Z")],
          // Its item has no job yet: processing.
          [vid(2), "processing", two?.jobId, null, null],
          [vid(3), "failed", three?.jobId, "no captions", at("2026-10-03T12:07:00.000Z")],
          // Not in the linked batch (only in a later one): not submitted.
          [vid(4), null, null, null, null]
        ])

        const [summary] = yield* collections.history(owner.id, "playlist", 10)
        expect(summary).toMatchObject({
          batch: { id: ran.record.id },
          submitted: 3,
          completed: 1,
          failed: 1,
          processing: 1,
          lastFinishedAt: at("2026-10-03T12:07:00.000Z")
        })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("lists the history newest first, each linked and counted", () =>
      Effect.gen(function* () {
        const collections = yield* Collections
        const batches = yield* Batches
        const jobs = yield* Jobs
        const owner = yield* newAccount()
        const old = stored(collection(owner.id, "2026-10-01T00:00:00.000Z"), videos([vid(7)]))
        const recent = stored(collection(owner.id, "2026-10-02T00:00:00.000Z"), videos([vid(8), vid(9)]))
        yield* collections.insert(old, videos([vid(7)]), null)
        yield* collections.insert(recent, videos([vid(8), vid(9)]), null)
        const ran = batch(owner.id, "2026-10-02T01:00:00.000Z", [vid(8), vid(9)])
        yield* batches.insert(ran.record, ran.items)
        for (const item of ran.items) {
          yield* jobs.insert(
            job(owner.id, {
              id: item.jobId,
              videoId: item.videoId,
              completedAt: at("2026-10-02T01:00:05.000Z")
            })
          )
        }
        const history = yield* collections.history(owner.id, "playlist", 10)
        expect(
          history.map((s) => [s.collection.id, s.submitted, s.completed, s.failed, s.processing])
        ).toEqual([
          [recent.id, 2, 2, 0, 0],
          [old.id, 0, 0, 0, 0]
        ])
        expect(history[1]?.batch).toBeNull()
        expect(yield* collections.history(owner.id, "playlist", 1)).toHaveLength(1)
        expect(yield* collections.history(owner.id, "channel", 10)).toEqual([])
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("ranks channels by distinct transcribed videos, then the latest transcribed", () =>
      Effect.gen(function* () {
        const collections = yield* Collections
        const transcripts = yield* Transcripts
        const owner = yield* newAccount()
        const other = yield* newAccount("Grace")
        const store = (
          accountId: Ids.AccountId,
          videoId: string,
          channelId: string | null,
          created: string,
          language = "en"
        ) =>
          transcripts.store(
            transcript(accountId, {
              videoId,
              channelId,
              createdAt: at(created),
              language: language as never
            })
          )
        // A: two videos (one in two languages), B: one newer, C: one older; D has no channel.
        yield* store(owner.id, vid(1), channelA, "2026-10-01T00:00:00.000Z")
        yield* store(owner.id, vid(1), channelA, "2026-10-01T00:00:01.000Z", "de")
        yield* store(owner.id, vid(2), channelA, "2026-10-01T00:00:02.000Z")
        yield* store(owner.id, vid(3), channelB, "2026-10-05T00:00:00.000Z")
        yield* store(owner.id, vid(4), channelC, "2026-10-04T00:00:00.000Z")
        yield* store(owner.id, vid(5), null, "2026-10-06T00:00:00.000Z")
        yield* store(other.id, vid(6), channelC, "2026-10-07T00:00:00.000Z")
        expect(yield* collections.topChannels(owner.id, 10)).toEqual([
          { channelId: channelA, transcribedCount: 2 },
          { channelId: channelB, transcribedCount: 1 },
          { channelId: channelC, transcribedCount: 1 }
        ])
        expect(yield* collections.topChannels(owner.id, 1)).toEqual([
          { channelId: channelA, transcribedCount: 2 }
        ])
        expect(yield* collections.topChannels(other.id, 3)).toEqual([
          { channelId: channelC, transcribedCount: 1 }
        ])
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
