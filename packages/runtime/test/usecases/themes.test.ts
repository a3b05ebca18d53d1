/**
 * Themes on the production wiring (no worker running: the tests run detection items themselves),
 * on PGlite and on PostgreSQL when DATABASE_URL is set, on the test clock (leases and the POST's
 * wait run on Effect's clock; the clock is moved, nothing sleeps):
 *
 * - a detection whose worker died (its lease held, then expired) is offered again by the
 *   reconciler and finished by another worker, charged once;
 * - a detection its POST queued is not queued again by the reconciler (the same key);
 * - a detection claimed more than `maxAttempts` times is given up and refunded;
 * - an engine answer whose anchors are not in the transcript is refused and refunded;
 * - GET never starts detection and never charges; a refunded unlock shows as locked, and a new
 *   POST unlocks again with a new charge (each charge and refund keyed, posted once).
 */
import { expect, layer } from "@effect/vitest"
import {
  type Account,
  Themes,
  type ThemesDetection,
  ThemesEngine,
  ThemesStore,
  type TranscriptRecord,
  Transcripts,
  WorkQueue
} from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { DateTime, Duration, Effect, Layer, Option, TestClock } from "effect"
import { servicesOn, testThemes, themesEngineFor } from "../../src/index.js"
import { asTimePasses, testInfrastructure } from "../../src/testing.js"
import { createAccount, expectBalancedBooks, query, transcriptRecord, videos } from "./support.js"

/** Videos whose detection the scripted engine answers with anchors outside the transcript. */
const misplacedVideo = videos.manualOnly

/** A video whose detection the scripted engine answers with no theme at all. */
const themelessVideo = "themeless01"

/**
 * The local engine, except for `misplacedVideo` (a mention of a segment that does not exist) and
 * `themelessVideo` (no theme).
 */
const scriptedEngine = Layer.effect(
  ThemesEngine,
  Effect.map(ThemesEngine, (local) => ({
    name: "scripted",
    detect: (input) =>
      input.videoId === themelessVideo
        ? Effect.map(local.detect(input), (found): ThemesDetection => ({ ...found, themes: [], moments: [] }))
        : input.videoId !== misplacedVideo
          ? local.detect(input)
          : Effect.map(local.detect(input), (found): ThemesDetection => {
              const [theme] = found.themes
              if (theme === undefined) return found
              const [keyword] = theme.keywords
              const moved = new Api.ThemeKeyword({
                ...(keyword as Api.ThemeKeyword),
                mentions: [new Api.KeywordMention({ segment_index: input.segments.length + 5, start: 0 })]
              })
              return {
                ...found,
                themes: [new Api.Theme({ ...theme, keywords: [moved] }), ...found.themes.slice(1)]
              }
            })
  }))
).pipe(Layer.provide(themesEngineFor("local")))

const wiring = servicesOn(
  testInfrastructure({ themes: testThemes(scriptedEngine, { waitMs: 100, maxAttempts: 2 }) })
)

const store = (record: TranscriptRecord) =>
  Effect.flatMap(Transcripts, (transcripts) => transcripts.store(record)).pipe(Effect.map((s) => s.record))

const themesQuery = (fields: Record<string, string> = {}) => query(Api.ThemesQuery, fields)

/** The account's themes record of the stored transcript. */
const recordOf = (account: Account, transcript: TranscriptRecord) =>
  Effect.flatMap(ThemesStore, (s) => s.find(account.id, transcript.id)).pipe(Effect.map(Option.getOrThrow))

/** POSTs themes: no worker takes the item, so the POST answers 202 once its wait is over. */
const unlock = (account: Account, videoId: string) =>
  Effect.flatMap(Themes, (themes) => asTimePasses(themes.unlock(account, videoId, themesQuery())))

/** Runs the detection item of a record as the worker `owner` would. */
const runAs = (owner: string, account: Account, id: string, leaseMs = 30_000) =>
  Effect.flatMap(Themes, (themes) =>
    themes.runItem({ lane: "themes", id, accountId: account.id }, owner, leaseMs)
  )

layer(wiring, { timeout: "60 seconds" })("themes use cases", (it) => {
  it.effect("a detection whose worker died is offered again and finished by another, charged once", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const account = yield* createAccount({ credits: 5 })
      const transcript = yield* store(transcriptRecord(account))
      // No worker consumes the lane here: the POST waits, then answers 202.
      const posted = yield* unlock(account, transcript.videoId)
      expect(posted).toBeInstanceOf(Api.ThemesProcessing)
      const record = yield* recordOf(account, transcript)
      // A worker claims it with a short lease and dies.
      const themesStore = yield* ThemesStore
      const dead = yield* themesStore.claim({
        id: record.id,
        owner: "dead",
        now: yield* DateTime.now,
        leaseMs: 50
      })
      expect(Option.isSome(dead)).toBe(true)
      yield* runAs("alive", account, record.id)
      expect((yield* recordOf(account, transcript)).status).toBe("processing")
      yield* TestClock.adjust(Duration.millis(100))
      const queue = yield* WorkQueue
      const before = (yield* queue.depth("themes")).waiting
      expect(yield* themes.reconcile).toBeGreaterThanOrEqual(1)
      expect((yield* queue.depth("themes")).waiting).toBeGreaterThan(before)
      yield* runAs("alive", account, record.id)
      const done = yield* themes.get(account, transcript.videoId, themesQuery())
      expect(done).toBeInstanceOf(Api.ThemesResponse)
      expect((done as Api.ThemesResponse).themes.length).toBeGreaterThan(0)
      const { balance, entries } = yield* expectBalancedBooks(account)
      expect(balance).toBe(4)
      expect(entries.filter((e) => e.key.includes(":themes:")).map((e) => e.amount)).toEqual([-1])
    })
  )

  it.effect("a detection queued by its POST is queued once however many rounds the reconciler runs", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const queue = yield* WorkQueue
      const account = yield* createAccount({ credits: 5 })
      const transcript = yield* store(transcriptRecord(account, { videoId: videos.autoOnly }))
      const waiting = Effect.map(queue.depth("themes"), (depth) => depth.waiting)
      const before = yield* waiting
      expect(yield* unlock(account, transcript.videoId)).toBeInstanceOf(Api.ThemesProcessing)
      expect(yield* waiting).toBe(before + 1)
      expect(yield* themes.reconcile).toBeGreaterThanOrEqual(1)
      expect(yield* themes.reconcile).toBeGreaterThanOrEqual(1)
      expect(yield* waiting).toBe(before + 1)
    })
  )

  it.effect("gives up a detection claimed more than maxAttempts times and refunds it", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const themesStore = yield* ThemesStore
      const account = yield* createAccount({ credits: 2 })
      const transcript = yield* store(transcriptRecord(account))
      expect(yield* unlock(account, transcript.videoId)).toBeInstanceOf(Api.ThemesProcessing)
      const record = yield* recordOf(account, transcript)
      for (const owner of ["w1", "w2"]) {
        yield* themesStore.claim({ id: record.id, owner, now: yield* DateTime.now, leaseMs: 30_000 })
        yield* themesStore.release(record.id, owner)
      }
      yield* runAs("w3", account, record.id)
      expect(yield* recordOf(account, transcript)).toMatchObject({ status: "refunded", attempts: 3 })
      const locked = yield* themes.get(account, transcript.videoId, themesQuery())
      expect(locked).toEqual(
        new Api.ThemesLocked({
          status: "locked",
          video_id: transcript.videoId,
          language: transcript.language,
          credits_required: 1
        })
      )
      const { balance, entries } = yield* expectBalancedBooks(account)
      expect(balance).toBe(2)
      expect(entries.filter((e) => e.key.includes(":themes:")).map((e) => [e.kind, e.amount])).toEqual([
        ["charge", -1],
        ["refund", 1]
      ])
    })
  )

  it.effect(
    "refuses an answer whose anchors are not in the transcript and refunds; a new POST charges again",
    () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 3 })
        const transcript = yield* store(transcriptRecord(account, { videoId: misplacedVideo }))
        for (const round of [1, 2]) {
          expect(yield* unlock(account, misplacedVideo)).toBeInstanceOf(Api.ThemesProcessing)
          const record = yield* recordOf(account, transcript)
          expect(record.unlocks).toBe(round)
          yield* runAs("w", account, record.id)
          const refunded = yield* recordOf(account, transcript)
          expect(refunded.status).toBe("refunded")
          expect(refunded.error).toContain("does not exist")
          const { balance, entries } = yield* expectBalancedBooks(account)
          expect(balance).toBe(3)
          expect(entries.filter((e) => e.key.includes(":themes:"))).toHaveLength(2 * round)
        }
      })
  )

  it.effect("a detection that finds no theme in a transcript long enough is refunded, as a failure is", () =>
    Effect.gen(function* () {
      const account = yield* createAccount({ credits: 3 })
      const transcript = yield* store(transcriptRecord(account, { videoId: themelessVideo }))
      expect(transcript.wordCount).toBeGreaterThanOrEqual(50)
      expect(yield* unlock(account, themelessVideo)).toBeInstanceOf(Api.ThemesProcessing)
      const record = yield* recordOf(account, transcript)
      yield* runAs("w", account, record.id)
      const refunded = yield* recordOf(account, transcript)
      expect(refunded.status).toBe("refunded")
      expect(refunded.error).toContain("no theme")
      const { balance } = yield* expectBalancedBooks(account)
      expect(balance).toBe(3)
    })
  )

  it.effect("GET never starts detection and never charges", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const queue = yield* WorkQueue
      const account = yield* createAccount({ credits: 1 })
      const transcript = yield* store(transcriptRecord(account))
      const before = yield* queue.depth("themes")
      for (let i = 0; i < 3; i++) {
        expect(
          yield* themes.get(account, transcript.videoId, themesQuery({ language: "en" }))
        ).toBeInstanceOf(Api.ThemesLocked)
      }
      expect(yield* queue.depth("themes")).toEqual(before)
      expect(
        Option.isNone(yield* Effect.flatMap(ThemesStore, (s) => s.find(account.id, transcript.id)))
      ).toBe(true)
      expect((yield* expectBalancedBooks(account)).balance).toBe(1)
    })
  )
})
