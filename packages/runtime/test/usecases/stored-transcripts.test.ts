/**
 * StoredTranscripts on the production wiring, with transcripts stored through the `Transcripts` port
 * where a rule needs what no request can make yet (ASR transcripts, chosen creation times):
 *
 * - get, as a property over any set of owned transcripts of a video: the best is human captions,
 *   then auto, then ASR, newest first; `language` narrows and answers 403 `forbidden` (naming the
 *   owned languages) when the account owns the video in other languages only; `source` narrows and
 *   answers 404; `id` takes a transcript id or the id of the job that produced it; a video with
 *   nothing owned is 404 (DESIGN decision 13);
 * - another account's transcripts are 404 to get, remove and languages, 403 to a bulk delete that
 *   owns none of its ids, and never deleted by them;
 * - remove narrows by language and source and answers 404 when nothing matches;
 * - bulkRemove counts only the owned ids; languages lists the owned ones and the platform's targets;
 * - list shows only the account's transcripts, searched and filtered.
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  type Account,
  JobLifecycle,
  StoredTranscripts,
  type TranscriptRecord,
  Transcripts
} from "@verbatim/core"
import { Api, type Ids, Transcript } from "@verbatim/domain"
import { Array as Arr, DateTime, Effect, FastCheck as fc, Option } from "effect"
import {
  catalogueVideo,
  createAccount,
  expectApiError,
  jobRecord,
  query,
  suiteOptions,
  transcriptRecord,
  unknownUuid,
  useCasesLayer,
  uuid,
  videos
} from "./support.js"

const kindRank = { manual: 0, auto: 1, asr: 2 } as const

/** The best of some transcripts: human captions, auto captions, ASR; newest first within a kind. */
const best = (records: ReadonlyArray<TranscriptRecord>) =>
  [...records].sort(
    (a, b) =>
      kindRank[a.sourceKind] - kindRank[b.sourceKind] || b.createdAt.epochMillis - a.createdAt.epochMillis
  )[0]

const store = (record: TranscriptRecord) =>
  Effect.flatMap(Transcripts, (transcripts) => transcripts.store(record)).pipe(
    Effect.tap((stored) => expect(stored.created).toBe(true)),
    Effect.map((stored) => stored.record)
  )

const get = (account: Account, videoId: string, fields: Record<string, string> = {}) =>
  Effect.flatMap(StoredTranscripts, (s) => s.get(account, videoId, query(Api.TranscriptQuery, fields)))

const owned = fc
  .uniqueArray(
    fc.record({
      language: fc.constantFrom("en", "de", "fr"),
      sourceKind: fc.constantFrom("manual" as const, "auto" as const, "asr" as const),
      /** Seconds after a fixed start; distinct, so "newest" is one transcript. */
      at: fc.integer({ min: 0, max: 1000 })
    }),
    {
      minLength: 1,
      maxLength: 6,
      selector: (r) => `${r.language}:${r.sourceKind}`,
      comparator: "IsStrictlyEqual"
    }
  )
  .filter((records) => new Set(records.map((r) => r.at)).size === records.length)

layer(useCasesLayer(), suiteOptions)("StoredTranscripts on the production wiring", (it) => {
  describe("get", () => {
    it.effect.prop(
      "chooses the best owned transcript; language is 403 when not owned, source and id are 404",
      [owned],
      ([specs]) =>
        Effect.gen(function* () {
          const account = yield* createAccount()
          const start = DateTime.unsafeMake("2026-01-01T00:00:00Z")
          const records = yield* Effect.forEach(specs, (spec) =>
            store(
              transcriptRecord(account, {
                videoId: videos.multiLanguage,
                language: spec.language,
                sourceKind: spec.sourceKind,
                createdAt: DateTime.add(start, { seconds: spec.at })
              })
            )
          )
          const chosen = (fields: Record<string, string> = {}) =>
            get(account, videos.multiLanguage, fields).pipe(Effect.map((c) => c.response.id))

          expect(yield* chosen()).toBe(best(records)?.id)
          const languages = Arr.dedupe(records.map((r) => r.language))
          for (const language of ["en", "de", "fr"]) {
            const ofLanguage = records.filter((r) => r.language === language)
            if (ofLanguage.length === 0) {
              const error = yield* expectApiError(chosen({ language }), "forbidden")
              expect(error.status).toBe(403)
              expect([...(error.details.owned_languages as ReadonlyArray<string>)].sort()).toEqual(
                [...languages].sort()
              )
              continue
            }
            expect(yield* chosen({ language })).toBe(best(ofLanguage)?.id)
            for (const source of ["manual", "auto", "asr"] as const) {
              const exact = ofLanguage.find((r) => r.sourceKind === source)
              if (exact === undefined) yield* expectApiError(chosen({ language, source }), "not_found")
              else expect(yield* chosen({ language, source })).toBe(exact.id)
            }
          }
          for (const source of ["manual", "auto", "asr"] as const) {
            const ofSource = records.filter((r) => r.sourceKind === source)
            if (ofSource.length === 0) yield* expectApiError(chosen({ source }), "not_found")
            else expect(yield* chosen({ source })).toBe(best(ofSource)?.id)
          }
          for (const record of records) expect(yield* chosen({ id: record.id })).toBe(record.id)
          yield* expectApiError(chosen({ id: unknownUuid }), "not_found")
          // Nothing owned of another video: 404, whatever the language.
          yield* expectApiError(get(account, videos.germanOnly), "not_found")
          yield* expectApiError(get(account, videos.germanOnly, { language: "de" }), "not_found")
        }),
      { timeout: 120_000, fastCheck: { numRuns: 15 } }
    )

    it.effect("id takes the id of the job that produced or served the transcript", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const older = yield* store(transcriptRecord(account, { sourceKind: "auto" }))
        yield* store(transcriptRecord(account, { sourceKind: "manual" }))
        const jobId = uuid<Ids.JobId>()
        yield* (yield* JobLifecycle).record(
          jobRecord(account, { id: jobId, status: "completed" }),
          { _tag: "Served", transcript: older },
          yield* DateTime.now
        )
        expect((yield* get(account, videos.manualAndAuto)).response.source_kind).toBe("manual")
        const byJob = yield* get(account, videos.manualAndAuto, { id: jobId })
        expect(byJob.response.id).toBe(older.id)
        // The id narrows first: a source that transcript does not have is 404.
        yield* expectApiError(
          get(account, videos.manualAndAuto, { id: jobId, source: "manual" }),
          "not_found"
        )
      })
    )

    it.effect(
      "include_timestamps=false empties the answer's segments and says so; the record keeps them",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount()
          const record = yield* store(transcriptRecord(account))
          const full = yield* get(account, videos.manualAndAuto)
          expect(full.response.segments).toHaveLength(record.segments.length)
          expect(full.response.has_timestamps).toBe(true)
          const bare = yield* get(account, videos.manualAndAuto, { include_timestamps: "false" })
          expect(bare.response).toMatchObject({ segments: [], has_timestamps: false, text: record.text })
          expect(bare.segments).toHaveLength(record.segments.length)
        })
    )
  })

  describe("another account's transcripts (DESIGN decision 13)", () => {
    it.effect("are 404 to get, remove and languages and 403 to a bulk delete; nothing of theirs goes", () =>
      Effect.gen(function* () {
        const stored = yield* StoredTranscripts
        const transcripts = yield* Transcripts
        const owner = yield* createAccount()
        const other = yield* createAccount()
        const theirs = yield* store(
          transcriptRecord(owner, { videoId: videos.multiLanguage, language: "de" })
        )
        const mine = yield* store(transcriptRecord(other, { videoId: videos.manualOnly }))

        // The other account owns nothing of the video: 404, never 403, even for the owner's language.
        yield* expectApiError(get(other, videos.multiLanguage), "not_found")
        yield* expectApiError(get(other, videos.multiLanguage, { language: "de" }), "not_found")
        yield* expectApiError(get(other, videos.multiLanguage, { id: theirs.id }), "not_found")
        yield* expectApiError(
          stored.languages(other, videos.multiLanguage, query(Api.LanguagesQuery)),
          "not_found"
        )
        yield* expectApiError(
          stored.remove(other, videos.multiLanguage, query(Api.DeleteTranscriptQuery)),
          "not_found"
        )
        const refused = yield* expectApiError(
          stored.bulkRemove(other, new Api.BulkDeleteRequest({ ids: [theirs.id] })),
          "forbidden"
        )
        expect(refused.status).toBe(403)
        const mixed = yield* stored.bulkRemove(
          other,
          new Api.BulkDeleteRequest({ ids: [theirs.id, mine.id, mine.id] })
        )
        expect(mixed).toMatchObject({ success: true, deleted: 1 })
        expect(Option.isSome(yield* transcripts.get(owner.id, theirs.id))).toBe(true)
        expect(Option.isNone(yield* transcripts.get(other.id, mine.id))).toBe(true)
        const listed = yield* stored.list(other, query(Api.TranscriptListQuery))
        expect(listed.history).toEqual([])
        const searched = yield* stored.list(
          other,
          query(Api.TranscriptListQuery, { search: "documentation" })
        )
        expect(searched.pagination.total).toBe(0)
      })
    )
  })

  describe("remove, bulkRemove and languages", () => {
    it.effect("remove narrows by language and source; 404 when nothing matches, the rest kept", () =>
      Effect.gen(function* () {
        const stored = yield* StoredTranscripts
        const account = yield* createAccount()
        const video = videos.multiLanguage
        const en = yield* store(transcriptRecord(account, { videoId: video, language: "en" }))
        const enAuto = yield* store(
          transcriptRecord(account, { videoId: video, language: "en", sourceKind: "auto" })
        )
        yield* store(transcriptRecord(account, { videoId: video, language: "de" }))
        yield* store(transcriptRecord(account, { videoId: video, language: "fr" }))
        const remove = (fields: Record<string, string>) =>
          stored.remove(account, video, query(Api.DeleteTranscriptQuery, fields))

        yield* expectApiError(remove({ language: "es" }), "not_found")
        yield* expectApiError(remove({ language: "de", source: "asr" }), "not_found")
        expect(yield* remove({ language: "en", source: "auto" })).toMatchObject({ success: true, deleted: 1 })
        expect((yield* get(account, video, { language: "en" })).response.id).toBe(en.id)
        yield* expectApiError(get(account, video, { id: enAuto.id }), "not_found")
        expect(yield* remove({ language: "fr" })).toMatchObject({ deleted: 1 })
        expect(yield* remove({})).toMatchObject({ deleted: 2 })
        yield* expectApiError(remove({}), "not_found")
        yield* expectApiError(get(account, video), "not_found")
      })
    )

    it.effect("bulkRemove deletes the owned ids among those given, once each; 403 when none is owned", () =>
      Effect.gen(function* () {
        const stored = yield* StoredTranscripts
        const account = yield* createAccount()
        const a = yield* store(transcriptRecord(account, { videoId: videos.manualOnly }))
        const b = yield* store(transcriptRecord(account, { videoId: videos.autoOnly, sourceKind: "auto" }))
        const kept = yield* store(transcriptRecord(account, { videoId: videos.germanOnly, language: "de" }))
        const result = yield* stored.bulkRemove(
          account,
          new Api.BulkDeleteRequest({ ids: [a.id, b.id, a.id, unknownUuid as Ids.TranscriptId] })
        )
        expect(result).toMatchObject({ success: true, deleted: 2 })
        yield* expectApiError(
          stored.bulkRemove(account, new Api.BulkDeleteRequest({ ids: [a.id, b.id] })),
          "forbidden"
        )
        expect((yield* get(account, videos.germanOnly)).response.id).toBe(kept.id)
      })
    )

    it.effect(
      "languages lists the owned ones and the platform's targets unless include_youtube_default=false",
      () =>
        Effect.gen(function* () {
          const stored = yield* StoredTranscripts
          const account = yield* createAccount()
          const video = videos.multiLanguage
          yield* store(transcriptRecord(account, { videoId: video, language: "fr" }))
          yield* store(transcriptRecord(account, { videoId: video, language: "de" }))
          yield* store(transcriptRecord(account, { videoId: video, language: "de", sourceKind: "asr" }))
          const withTargets = yield* stored.languages(account, video, query(Api.LanguagesQuery))
          expect(withTargets).toMatchObject({ video_id: video })
          expect([...withTargets.languages].sort()).toEqual(["de", "fr"])
          expect(withTargets.platform_translation_languages).toEqual(
            catalogueVideo(video).translationLanguages
          )
          const only = yield* stored.languages(
            account,
            video,
            query(Api.LanguagesQuery, { include_youtube_default: "false" })
          )
          expect(only.platform_translation_languages).toEqual([])
          yield* expectApiError(
            stored.languages(account, videos.germanOnly, query(Api.LanguagesQuery)),
            "not_found"
          )
        })
    )

    it.effect(
      "languages of an owned upload-like id the platform cannot read: the owned ones, no targets",
      () =>
        Effect.gen(function* () {
          const stored = yield* StoredTranscripts
          const account = yield* createAccount()
          yield* store(
            transcriptRecord(account, { videoId: videos.unknown, language: "en", sourceKind: "asr" })
          )
          const languages = yield* stored.languages(account, videos.unknown, query(Api.LanguagesQuery))
          expect(languages).toMatchObject({ languages: ["en"], platform_translation_languages: [] })
        })
    )
  })

  describe("list", () => {
    it.effect("lists the account's transcripts newest first; search, language and dates narrow it", () =>
      Effect.gen(function* () {
        const stored = yield* StoredTranscripts
        const account = yield* createAccount()
        const at = (iso: string) => DateTime.unsafeMake(iso)
        const first = yield* store(
          transcriptRecord(account, { videoId: videos.manualAndAuto, createdAt: at("2026-03-01T00:00:00Z") })
        )
        const second = yield* store(
          transcriptRecord(account, {
            videoId: videos.germanOnly,
            language: "de",
            createdAt: at("2026-03-02T00:00:00Z")
          })
        )
        const third = yield* store(
          transcriptRecord(account, {
            videoId: videos.multiLanguage,
            language: "fr",
            createdAt: at("2026-03-03T00:00:00Z")
          })
        )
        const ids = (fields: Record<string, string>) =>
          stored
            .list(account, query(Api.TranscriptListQuery, fields))
            .pipe(Effect.map((l) => l.history.map((t) => t.id)))
        expect(yield* ids({})).toEqual([third.id, second.id, first.id])
        expect(yield* ids({ language: "de" })).toEqual([second.id])
        expect(yield* ids({ search: "coordination" })).toEqual([first.id])
        expect(yield* ids({ search: videos.germanOnly })).toEqual([second.id])
        // Both bounds are inclusive.
        expect(yield* ids({ date_from: "2026-03-02T00:00:00Z", date_to: "2026-03-03T00:00:00Z" })).toEqual([
          third.id,
          second.id
        ])
        const page = yield* stored.list(account, query(Api.TranscriptListQuery, { limit: "2", page: "2" }))
        expect(page.history.map((t) => t.id)).toEqual([first.id])
        expect(page.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasMore: false })
        const withSegments = yield* stored.list(
          account,
          query(Api.TranscriptListQuery, { include_segments: "true" })
        )
        expect(withSegments.history[2]?.segments?.map((s) => s.text)).toEqual(
          first.segments.map((s) => s.text)
        )
        expect((yield* stored.list(account, query(Api.TranscriptListQuery))).history[0]).not.toHaveProperty(
          "segments"
        )
        expect(Transcript.textOf(first.segments)).toBe(first.text)
      })
    )
  })
})
