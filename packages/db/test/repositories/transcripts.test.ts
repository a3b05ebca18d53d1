/**
 * `Transcripts` on every database: idempotent storing, the owned and single reads, the list search of
 * GET /transcripts (words of the title and text, exact video ids, filters, pages, totals), deletions
 * and languages.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import type { TranscriptRecord, TranscriptSearch, TranscriptSummary } from "@verbatim/core"
import { type Ids, Transcript } from "@verbatim/domain"
import { Effect, Exit, Option, Schema } from "effect"
import { migrations } from "../../src/migrations/index.js"
import { RepositoriesLive } from "../../src/persistence.js"
import { describeEachDatabase } from "../harness.js"
import {
  at,
  language,
  newAccount,
  repositories,
  richTranscript,
  transcript,
  transcriptId
} from "./fixtures.js"

const summaryOf = ({
  channelId: _c,
  text: _t,
  segments: _s,
  hasTimestamps: _h,
  summary: _su,
  mindMap: _m,
  asrIntelligence: _a,
  ...summary
}: TranscriptRecord): TranscriptSummary => summary

const ids = (items: ReadonlyArray<{ readonly id: Ids.TranscriptId }>) => items.map((item) => item.id)

const rowCount = (account: Ids.AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM transcripts WHERE account_id = ${account}`,
      ([row]) => row?.n ?? -1
    )
  )

const query = (overrides: Partial<TranscriptSearch> = {}): TranscriptSearch => ({
  status: "succeeded",
  offset: 0,
  limit: 50,
  includeSegments: false,
  ...overrides
})

describeEachDatabase(
  "Transcripts repository",
  (it) => {
    it.effect("stores a transcript and reads every field back", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const record = richTranscript(account.id)
        const stored = yield* transcripts.store(record)
        expect(stored).toEqual({ record, created: true })
        expect(yield* transcripts.get(account.id, record.id)).toEqual(Option.some(record))
        const plain = transcript(account.id, { videoId: "plainvideo1", videoTitle: null, channelId: null })
        yield* transcripts.store(plain)
        expect(yield* transcripts.get(account.id, plain.id)).toEqual(Option.some(plain))
        expect(yield* transcripts.get(account.id, transcriptId())).toEqual(Option.none())
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "puts a stored transcript into the search index at once: nothing waits in GIN's pending list",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { transcripts } = yield* repositories
          const account = yield* newAccount()
          for (const videoId of ["pending0001", "pending0002", "pending0003"]) {
            yield* transcripts.store(transcript(account.id, { videoId }))
          }
          // The pages a merge of the pending list takes in: none, as the index has fastupdate off.
          const pendingPages = (index: string) =>
            Effect.map(
              sql<{
                readonly pages: number
              }>`SELECT gin_clean_pending_list(${index}::regclass)::int AS pages`,
              ([row]) => row?.pages ?? -1
            )
          expect(yield* pendingPages("transcripts_tsv_idx")).toBe(0)
          // The probe sees a pending list where there is one: a GIN index with the default keeps a new row there.
          yield* sql`CREATE TABLE pending_probe (words tsvector)`
          yield* sql`CREATE INDEX pending_probe_idx ON pending_probe USING GIN (words)`
          yield* sql`INSERT INTO pending_probe SELECT to_tsvector('english', text) FROM transcripts WHERE account_id = ${account.id}`
          expect(yield* pendingPages("pending_probe_idx")).toBeGreaterThan(0)
          yield* sql`DROP TABLE pending_probe`
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("reads stored segments back as Segments and Words, their fields in the schema's order", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const record = transcript(account.id)
        yield* transcripts.store(record)
        const [read] = yield* transcripts.owned(account.id, record.videoId, {})
        const segments = read?.segments ?? []
        expect(segments).toEqual(record.segments)
        expect(segments.every((segment) => segment instanceof Transcript.Segment)).toBe(true)
        expect(segments[0]?.words?.every((word) => word instanceof Transcript.Word)).toBe(true)
        // PostgreSQL gives jsonb keys in its own order: an answer still lists them as the schema does.
        expect(JSON.stringify(segments)).toBe(
          JSON.stringify(Schema.encodeSync(Schema.Array(Transcript.Segment))(record.segments))
        )
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE transcripts SET segments = '{"text": "not a list"}'::jsonb WHERE id = ${record.id}`
        const refused = yield* Effect.exit(transcripts.owned(account.id, record.videoId, {}))
        expect(Exit.isFailure(refused)).toBe(true)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("keeps the first transcript of a video, language and source kind", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const first = transcript(account.id)
        yield* transcripts.store(first)
        const again = yield* transcripts.store(
          transcript(account.id, { text: "Different words", creditsUsed: 0 })
        )
        expect(again).toEqual({ record: first, created: false })
        const auto = yield* transcripts.store(transcript(account.id, { sourceKind: "auto" }))
        expect(auto.created).toBe(true)
        const french = yield* transcripts.store(transcript(account.id, { language: language("fr") }))
        expect(french.created).toBe(true)
        const other = yield* newAccount()
        expect((yield* transcripts.store(transcript(other.id))).created).toBe(true)
        expect(yield* rowCount(account.id)).toBe(3)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("creates one transcript when the same one is stored in parallel", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const results = yield* Effect.all(
          Array.from({ length: 12 }, () => transcripts.store(transcript(account.id))),
          { concurrency: "unbounded" }
        )
        expect(results.filter((result) => result.created).length).toBe(1)
        expect(new Set(results.map((result) => result.record.id)).size).toBe(1)
        expect(yield* rowCount(account.id)).toBe(1)
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("lists the succeeded transcripts a video owns, newest first, filtered", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const englishManual = transcript(account.id, { createdAt: at("2026-01-01T00:00:00Z") })
        const englishAuto = transcript(account.id, {
          sourceKind: "auto",
          createdAt: at("2026-01-02T00:00:00Z")
        })
        const french = transcript(account.id, {
          language: language("fr"),
          createdAt: at("2026-01-03T00:00:00Z")
        })
        const running = transcript(account.id, {
          language: language("de"),
          sourceKind: "asr",
          status: "processing",
          createdAt: at("2026-01-04T00:00:00Z")
        })
        const otherVideo = transcript(account.id, { videoId: "otherVideo1" })
        for (const record of [englishManual, englishAuto, french, running, otherVideo]) {
          yield* transcripts.store(record)
        }
        const video = englishManual.videoId
        expect(ids(yield* transcripts.owned(account.id, video, {}))).toEqual([
          french.id,
          englishAuto.id,
          englishManual.id
        ])
        expect(yield* transcripts.owned(account.id, video, { language: language("en") })).toEqual([
          englishAuto,
          englishManual
        ])
        expect(ids(yield* transcripts.owned(account.id, video, { sourceKinds: ["manual"] }))).toEqual([
          french.id,
          englishManual.id
        ])
        expect(ids(yield* transcripts.owned(account.id, video, { sourceKinds: ["auto", "asr"] }))).toEqual([
          englishAuto.id
        ])
        expect(ids(yield* transcripts.owned(account.id, video, { id: englishManual.id }))).toEqual([
          englishManual.id
        ])
        expect(yield* transcripts.owned(account.id, video, { id: running.id })).toEqual([])
        expect(yield* transcripts.owned(account.id, "nosuchvideo", {})).toEqual([])
        // get reads any status.
        expect(yield* transcripts.get(account.id, running.id)).toEqual(Option.some(running))
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("searches words of the title and the text, and exact video ids, newest first", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const garden = transcript(account.id, {
          videoId: "aaaaaaaaaa1",
          videoTitle: "Gardening for beginners",
          text: "Tomatoes need sun and water",
          createdAt: at("2026-01-01T00:00:00Z")
        })
        const pasta = transcript(account.id, {
          videoId: "-bQ_x12-Zz9",
          videoTitle: "Cooking pasta",
          text: "Boil the water then add salt",
          sourceKind: "auto",
          createdAt: at("2026-02-01T00:00:00Z")
        })
        const spanish = transcript(account.id, {
          videoId: "ccccccccccc",
          videoTitle: "Jardinería",
          text: "Los tomates necesitan sol",
          language: language("es"),
          createdAt: at("2026-03-01T00:00:00Z")
        })
        const running = transcript(account.id, {
          videoId: "ddddddddddd",
          videoTitle: "Running tips",
          text: "Runners were running fast",
          sourceKind: "asr",
          status: "processing",
          createdAt: at("2026-04-01T00:00:00Z")
        })
        const failed = transcript(account.id, {
          videoId: "eeeeeeeeeee",
          text: "Nothing came out",
          status: "failed",
          createdAt: at("2026-05-01T00:00:00Z")
        })
        for (const record of [garden, pasta, spanish, running, failed]) yield* transcripts.store(record)
        // Another account's transcript with the same words is never found.
        const other = yield* newAccount()
        yield* transcripts.store(transcript(other.id, { text: "Tomatoes and water", videoId: "aaaaaaaaaa1" }))

        const found = (overrides: Partial<TranscriptSearch>) =>
          Effect.map(transcripts.search(account.id, query(overrides)), (page) => ({
            ids: ids(page.items),
            total: page.total
          }))
        expect(yield* found({ search: "gardening" })).toEqual({ ids: [garden.id], total: 1 })
        expect(yield* found({ search: "Tomatoes" })).toEqual({ ids: [garden.id], total: 1 })
        expect(yield* found({ search: "water" })).toEqual({ ids: [pasta.id, garden.id], total: 2 })
        expect(yield* found({ search: "boiled" })).toEqual({ ids: [pasta.id], total: 1 })
        expect(yield* found({ search: '"add salt"' })).toEqual({ ids: [pasta.id], total: 1 })
        expect(yield* found({ search: "water -salt" })).toEqual({ ids: [garden.id], total: 1 })
        expect(yield* found({ search: "-bQ_x12-Zz9" })).toEqual({ ids: [pasta.id], total: 1 })
        // Web search syntax: a lone "-word" means "without word".
        expect(yield* found({ search: "-salt" })).toEqual({ ids: [spanish.id, garden.id], total: 2 })
        expect(yield* found({ search: "aaaaaaaaaa1" })).toEqual({ ids: [garden.id], total: 1 })
        expect(yield* found({ search: "  gardening  " })).toEqual({ ids: [garden.id], total: 1 })
        expect(yield* found({ search: "zebra" })).toEqual({ ids: [], total: 0 })
        expect(yield* found({ search: "the" })).toEqual({ ids: [], total: 0 })
        expect(yield* found({ search: "run", status: "processing" })).toEqual({ ids: [running.id], total: 1 })
        expect(yield* found({ search: "run" })).toEqual({ ids: [], total: 0 })

        expect(yield* found({})).toEqual({ ids: [spanish.id, pasta.id, garden.id], total: 3 })
        expect(yield* found({ search: "   " })).toEqual({ ids: [spanish.id, pasta.id, garden.id], total: 3 })
        expect(yield* found({ status: "processing" })).toEqual({ ids: [running.id], total: 1 })
        expect(yield* found({ status: "failed" })).toEqual({ ids: [failed.id], total: 1 })
        expect(yield* found({ status: "queued" })).toEqual({ ids: [], total: 0 })
        expect(yield* found({ language: language("es") })).toEqual({ ids: [spanish.id], total: 1 })
        expect(yield* found({ language: language("en"), search: "sol" })).toEqual({ ids: [], total: 0 })
        // Both date bounds are inclusive.
        expect(yield* found({ createdFrom: at("2026-02-01T00:00:00Z") })).toEqual({
          ids: [spanish.id, pasta.id],
          total: 2
        })
        expect(yield* found({ createdTo: at("2026-02-01T00:00:00Z") })).toEqual({
          ids: [pasta.id, garden.id],
          total: 2
        })
        expect(
          yield* found({ createdFrom: at("2026-02-01T00:00:00Z"), createdTo: at("2026-02-01T00:00:00Z") })
        ).toEqual({ ids: [pasta.id], total: 1 })
        expect(yield* found({ createdFrom: at("2026-02-01T00:00:00.001Z"), search: "water" })).toEqual({
          ids: [],
          total: 0
        })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("filters the list and the search by source kind", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const human = transcript(account.id, {
          videoId: "srcmanual01",
          text: "Rivers carry water",
          createdAt: at("2026-01-01T00:00:00Z")
        })
        const automatic = transcript(account.id, {
          videoId: "srcauto0001",
          text: "Water falls as rain",
          sourceKind: "auto",
          createdAt: at("2026-02-01T00:00:00Z")
        })
        const heard = transcript(account.id, {
          videoId: "srcasr00001",
          text: "Spoken words about water",
          sourceKind: "asr",
          createdAt: at("2026-03-01T00:00:00Z")
        })
        for (const record of [human, automatic, heard]) yield* transcripts.store(record)
        const found = (overrides: Partial<TranscriptSearch>) =>
          Effect.map(transcripts.search(account.id, query(overrides)), (page) => ({
            ids: ids(page.items),
            total: page.total
          }))
        expect(yield* found({ sourceKind: "auto" })).toEqual({ ids: [automatic.id], total: 1 })
        expect(yield* found({ sourceKind: "asr", search: "water" })).toEqual({ ids: [heard.id], total: 1 })
        expect(yield* found({ sourceKind: "manual", search: "rain" })).toEqual({ ids: [], total: 0 })
        expect(yield* found({ search: "water" })).toEqual({
          ids: [heard.id, automatic.id, human.id],
          total: 3
        })
        expect(
          yield* found({ sourceKind: "manual", search: "water", createdFrom: at("2026-01-01T00:00:00Z") })
        ).toEqual({ ids: [human.id], total: 1 })
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "searches under every combination of filters, with and without segments, reading each row whole",
      () =>
        Effect.gen(function* () {
          const { transcripts } = yield* repositories
          const account = yield* newAccount()
          // Each combination is a statement of its own (`searchStatement`): its parameters are numbered by
          // the filters that are set, and its rows carry the fields' names without the client's renaming.
          const records = Array.from({ length: 8 }, (_, i) =>
            transcript(account.id, {
              videoId: `shape${String(i).padStart(6, "0")}`,
              videoTitle: i % 4 === 3 ? null : `Walk ${i}`,
              text: i === 5 ? "a quiet street" : "boats in the harbour",
              language: language(i % 2 === 0 ? "en" : "fr"),
              sourceKind: i % 3 === 0 ? "manual" : "auto",
              createdAt: at(`2026-07-0${i + 1}T12:00:00.25${i}Z`)
            })
          )
          for (const record of records) yield* transcripts.store(record)
          const newest = [...records].reverse().filter((record) => record.text.includes("harbour"))
          const from = at("2026-07-03T12:00:00.252Z")
          const to = at("2026-07-07T00:00:00Z")
          for (const filterLanguage of [undefined, language("en"), language("fr")]) {
            for (const createdFrom of [undefined, from]) {
              for (const createdTo of [undefined, to]) {
                for (const includeSegments of [false, true]) {
                  const expected = newest.filter(
                    (record) =>
                      (filterLanguage === undefined || record.language === filterLanguage) &&
                      (createdFrom === undefined ||
                        record.createdAt.epochMillis >= createdFrom.epochMillis) &&
                      (createdTo === undefined || record.createdAt.epochMillis <= createdTo.epochMillis)
                  )
                  const page = yield* transcripts.search(
                    account.id,
                    query({
                      search: "harbour",
                      language: filterLanguage,
                      createdFrom,
                      createdTo,
                      includeSegments,
                      limit: 2
                    })
                  )
                  expect({ filterLanguage, createdFrom, createdTo, includeSegments, ...page }).toEqual({
                    filterLanguage,
                    createdFrom,
                    createdTo,
                    includeSegments,
                    items: expected
                      .slice(0, 2)
                      .map((record) =>
                        includeSegments
                          ? { ...summaryOf(record), segments: record.segments }
                          : summaryOf(record)
                      ),
                    total: expected.length
                  })
                }
              }
            }
          }
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("pages through the list with a correct total, and adds segments only when asked", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        // Equal creation times: the order falls back to the id, newest (greatest) first.
        const records = Array.from({ length: 7 }, (_, i) =>
          transcript(account.id, {
            videoId: `video${String(i).padStart(6, "0")}`,
            createdAt: at(i < 3 ? "2026-06-01T00:00:00Z" : `2026-06-0${i}T00:00:00Z`)
          })
        )
        for (const record of records) yield* transcripts.store(record)
        const all = yield* transcripts.search(account.id, query())
        expect(all.total).toBe(7)
        const expected = [...records].sort((a, b) => {
          const byTime = b.createdAt.epochMillis - a.createdAt.epochMillis
          return byTime !== 0 ? byTime : b.id < a.id ? -1 : 1
        })
        expect(all.items).toEqual(expected.map(summaryOf))
        for (const item of all.items) {
          expect(item).not.toHaveProperty("segments")
          expect(item).not.toHaveProperty("text")
        }
        for (const limit of [1, 2, 3, 6, 7, 8]) {
          const pages = []
          for (let offset = 0; offset < 9; offset += limit) {
            const page = yield* transcripts.search(account.id, query({ offset, limit }))
            expect(page.total).toBe(7)
            pages.push(...page.items)
          }
          expect(ids(pages)).toEqual(ids(all.items))
        }
        expect(yield* transcripts.search(account.id, query({ offset: 20, limit: 5 }))).toEqual({
          items: [],
          total: 7
        })
        expect((yield* transcripts.search(account.id, query({ search: "gardening", limit: 3 }))).total).toBe(
          7
        )

        const withSegments = yield* transcripts.search(account.id, query({ includeSegments: true, limit: 2 }))
        expect(withSegments.total).toBe(7)
        expect(withSegments.items).toEqual(
          expected.slice(0, 2).map((record) => ({ ...summaryOf(record), segments: record.segments }))
        )
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect(
      "pages a search with many matches like a search with few, whether its newest rows match or not",
      () =>
        Effect.gen(function* () {
          const { transcripts } = yield* repositories
          const account = yield* newAccount()
          // 120 transcripts, one a minute. "gardening" in all but every 7th (103 matches, the newest
          // among them but the second newest): its first pages come from the newest rows (more than
          // 32 times the rows up to a page's end match). "tomatoes" in the 90 oldest only: its newest
          // rows do not hold its first pages. "gardening tomatoes" in 77.
          const records = Array.from({ length: 120 }, (_, i) =>
            transcript(account.id, {
              videoId: `video${String(i).padStart(6, "0")}`,
              videoTitle: `Episode ${i}`,
              text: `${i % 7 === 6 ? "cooking" : "gardening"} ${i < 90 ? "tomatoes" : "peppers"}`,
              createdAt: at(new Date(Date.UTC(2026, 5, 1, 0, i)).toISOString())
            })
          )
          for (const record of records) yield* transcripts.store(record)
          const newest = [...records].reverse()
          for (const [search, matches] of [
            ["gardening", (i: number) => i % 7 !== 6],
            ["tomatoes", (i: number) => i < 90],
            ["gardening tomatoes", (i: number) => i % 7 !== 6 && i < 90]
          ] as const) {
            const expected = newest.filter((_, n) => matches(119 - n))
            // The first pages (from the newest rows or not), and the last ones (always from the index).
            for (const limit of [1, 2, 3, 50]) {
              const last = expected.length
              for (const offset of [
                0,
                limit,
                2 * limit,
                3 * limit,
                last - limit - 1,
                last - 1,
                last,
                last + 2
              ]) {
                const page = yield* transcripts.search(account.id, query({ search, offset, limit }))
                expect({ search, offset, limit, ...page }).toEqual({
                  search,
                  offset,
                  limit,
                  items: expected.slice(offset, offset + limit).map(summaryOf),
                  total: expected.length
                })
              }
            }
            const withSegments = yield* transcripts.search(
              account.id,
              query({ search, limit: 1, includeSegments: true })
            )
            expect(withSegments).toEqual({
              items: expected
                .slice(0, 1)
                .map((record) => ({ ...summaryOf(record), segments: record.segments })),
              total: expected.length
            })
          }
        }).pipe(Effect.provide(RepositoriesLive)),
      // 120 transcripts stored one by one, then 80 searches.
      30_000
    )

    it.effect(
      "deletes an account's transcripts of a video, by language and source kind, and counts them",
      () =>
        Effect.gen(function* () {
          const { transcripts } = yield* repositories
          const account = yield* newAccount()
          const other = yield* newAccount()
          const englishManual = transcript(account.id)
          const englishAuto = transcript(account.id, { sourceKind: "auto" })
          const french = transcript(account.id, { language: language("fr") })
          const otherVideo = transcript(account.id, { videoId: "otherVideo1" })
          const othersCopy = transcript(other.id)
          for (const record of [englishManual, englishAuto, french, otherVideo, othersCopy]) {
            yield* transcripts.store(record)
          }
          const video = englishManual.videoId
          expect(yield* transcripts.remove(other.id, "otherVideo1", {})).toBe(0)
          expect(
            yield* transcripts.remove(account.id, video, { language: language("en"), sourceKind: "manual" })
          ).toBe(1)
          expect(yield* transcripts.remove(account.id, video, { sourceKind: "manual" })).toBe(1)
          expect(yield* transcripts.remove(account.id, video, { language: language("de") })).toBe(0)
          expect(ids(yield* transcripts.owned(account.id, video, {}))).toEqual([englishAuto.id])
          expect(yield* transcripts.remove(account.id, video, {})).toBe(1)
          expect(yield* transcripts.remove(account.id, video, {})).toBe(0)
          expect(ids(yield* transcripts.owned(account.id, "otherVideo1", {}))).toEqual([otherVideo.id])
          expect(ids(yield* transcripts.owned(other.id, video, {}))).toEqual([othersCopy.id])
        }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("deletes by ids only the account's own transcripts", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        const other = yield* newAccount()
        const mine = [transcript(account.id), transcript(account.id, { videoId: "secondVideo" })]
        const theirs = transcript(other.id)
        for (const record of [...mine, theirs]) yield* transcripts.store(record)
        expect(yield* transcripts.removeByIds(account.id, [])).toBe(0)
        expect(yield* transcripts.removeByIds(account.id, [theirs.id])).toBe(0)
        expect(yield* transcripts.removeByIds(account.id, [...ids(mine), theirs.id, transcriptId()])).toBe(2)
        expect(yield* rowCount(account.id)).toBe(0)
        expect(yield* transcripts.get(other.id, theirs.id)).toEqual(Option.some(theirs))
      }).pipe(Effect.provide(RepositoriesLive))
    )

    it.effect("lists the distinct languages a video owns in succeeded transcripts, sorted", () =>
      Effect.gen(function* () {
        const { transcripts } = yield* repositories
        const account = yield* newAccount()
        for (const record of [
          transcript(account.id, { language: language("pt-BR") }),
          transcript(account.id, { language: language("en") }),
          transcript(account.id, { language: language("en"), sourceKind: "auto" }),
          transcript(account.id, { language: language("fr") }),
          transcript(account.id, { language: language("de"), status: "queued" }),
          transcript(account.id, { language: language("it"), videoId: "otherVideo1" })
        ]) {
          yield* transcripts.store(record)
        }
        expect(yield* transcripts.languages(account.id, "dQw4w9WgXcQ")).toEqual(["en", "fr", "pt-BR"])
        expect(yield* transcripts.languages(account.id, "nosuchvideo")).toEqual([])
        const other = yield* newAccount()
        expect(yield* transcripts.languages(other.id, "dQw4w9WgXcQ")).toEqual([])
      }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
