/**
 * The stored-transcript endpoints over real HTTP: GET /transcripts (search over video id, title
 * and text; status, language and date filters; pagination; include_segments), GET
 * /transcripts/{video_id} (best owned; id, language, source, include_timestamps; 403 and 404),
 * DELETE /transcripts/{video_id} with and without filters, POST /transcripts/bulk-delete and
 * GET /transcripts/{video_id}/languages.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Api, Transcript } from "@verbatim/domain"
import { DateTime, Effect } from "effect"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import {
  api,
  balanceOf,
  catalogueVideo,
  decode,
  expectError,
  expectInvalid,
  oldAccount,
  timed,
  trackSegments,
  transcribe,
  transcriptList,
  unknownUuid,
  videos
} from "./support.js"

/** Transcribes and returns the completed answer (the test fails unless it is one). */
const served = (server: TestServerService, key: string, body: Record<string, unknown>) =>
  transcribe(server, key, body).pipe(Effect.flatMap((response) => decode(Api.TranscribeCompleted, response)))

const getTranscript = (server: TestServerService, key: string, videoId: string, query = "") =>
  server.get(api(`/transcripts/${encodeURIComponent(videoId)}${query}`), { key })

const stored = (server: TestServerService, key: string, videoId: string, query = "") =>
  getTranscript(server, key, videoId, query).pipe(
    Effect.flatMap((response) => decode(Api.StoredTranscript, response))
  )

const wordCount = (text: string) => text.split(" ").filter((word) => word.length > 0).length

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "the stored-transcript endpoints over real HTTP",
  (it) => {
    describe("GET /transcripts", () => {
      it.effect("lists the account's transcripts newest first, metadata only unless include_segments", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          yield* served(server, key, { video: videos.manualAndAuto })
          yield* served(server, key, { video: videos.autoOnly })
          const list = yield* transcriptList(server, key)
          expect(list.count).toBe(2)
          expect(list.pagination).toEqual({ page: 1, limit: 100, total: 2, totalPages: 1, hasMore: false })
          const [auto, manual] = list.history
          const text = Transcript.textOf(trackSegments(videos.manualAndAuto, "en", "manual"))
          expect(manual).toMatchObject({
            video_id: videos.manualAndAuto,
            video_title: catalogueVideo(videos.manualAndAuto).title,
            language: "en",
            source_kind: "manual",
            status: "succeeded",
            word_count: wordCount(text),
            segment_count: 16,
            duration_seconds: 92,
            credits_used: 1
          })
          expect(auto).toMatchObject({
            video_id: videos.autoOnly,
            source_kind: "auto",
            duration_seconds: 111
          })
          const raw = yield* server.get(api("/transcripts"), { key })
          for (const item of (raw.json as { history: Array<object> }).history) {
            expect(item).not.toHaveProperty("segments")
          }
          const withSegments = yield* transcriptList(server, key, "&include_segments=true")
          expect(withSegments.history.map((item) => item.segments?.length)).toEqual([
            trackSegments(videos.autoOnly, "en", "auto").length,
            16
          ])
          expect(withSegments.history[1]?.segments?.map(timed)).toEqual(
            trackSegments(videos.manualAndAuto, "en", "manual").map(timed)
          )
        })
      )

      it.effect("searches the video id, the title's words and the transcript's words", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          yield* served(server, key, { video: videos.manualAndAuto })
          yield* served(server, key, { video: videos.multiLanguage, language: "de" })
          yield* served(server, key, { video: videos.germanOnly })
          const search = (words: string) =>
            transcriptList(server, key, `&search=${encodeURIComponent(words)}`).pipe(
              Effect.map((list) => list.history.map((item) => item.video_id).sort())
            )
          // Video ids, one with a dash (not read as "without").
          expect(yield* search(videos.manualAndAuto)).toEqual([videos.manualAndAuto])
          expect(yield* search(videos.germanOnly)).toEqual([videos.germanOnly])
          // Title words: the German transcript of an English-titled video is found by its title.
          expect(yield* search("Lightning")).toEqual([videos.manualAndAuto])
          expect(yield* search("quiet documentation")).toEqual([videos.multiLanguage])
          // Transcript words only.
          expect(yield* search("coordination")).toEqual([videos.manualAndAuto])
          expect(yield* search("Vorlesung")).toEqual([videos.germanOnly])
          expect(yield* search("zeppelin")).toEqual([])
          const counted = yield* transcriptList(server, key, "&search=coordination")
          expect(counted.pagination.total).toBe(1)
          for (const query of ["search=", `search=${"x".repeat(201)}`]) {
            expectInvalid(yield* server.get(api(`/transcripts?${query}`), { key }), ["search"])
          }
        })
      )

      it.effect("filters by status (succeeded by default), language and creation date", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          yield* served(server, key, { video: videos.manualAndAuto })
          yield* served(server, key, { video: videos.multiLanguage, language: "de" })
          yield* Effect.sleep("20 millis")
          const between = DateTime.formatIso(yield* DateTime.now)
          yield* Effect.sleep("20 millis")
          yield* served(server, key, { video: videos.germanOnly })
          const ids = (query: string) =>
            transcriptList(server, key, query).pipe(
              Effect.map((list) => list.history.map((item) => `${item.video_id}:${item.language}`))
            )
          const all = [`${videos.germanOnly}:de`, `${videos.multiLanguage}:de`, `${videos.manualAndAuto}:en`]
          expect(yield* ids("")).toEqual(all)
          expect(yield* ids("&status=succeeded")).toEqual(all)
          for (const status of ["failed", "queued", "processing"])
            expect(yield* ids(`&status=${status}`)).toEqual([])
          expect(yield* ids("&language=de")).toEqual(all.slice(0, 2))
          expect(yield* ids("&language=en")).toEqual(all.slice(2))
          expect(yield* ids("&language=fr")).toEqual([])
          expect(yield* ids(`&date_from=${encodeURIComponent(between)}`)).toEqual(all.slice(0, 1))
          expect(yield* ids(`&date_to=${encodeURIComponent(between)}`)).toEqual(all.slice(1))
          expect(yield* ids("&date_from=2000-01-01T00:00:00Z&date_to=2100-01-01T00:00:00Z")).toEqual(all)
          expect(yield* ids("&date_to=2000-01-01T00:00:00Z")).toEqual([])
          expect(yield* ids("&date_from=2100-01-01T00:00:00Z")).toEqual([])
          expect(yield* ids(`&language=de&date_from=${encodeURIComponent(between)}`)).toEqual(all.slice(0, 1))
          expectInvalid(yield* server.get(api("/transcripts?status=done"), { key }), ["status"])
          expectInvalid(yield* server.get(api("/transcripts?language=german"), { key }), ["language"])
          expectInvalid(yield* server.get(api("/transcripts?date_from=yesterday"), { key }), ["date_from"])
          expectInvalid(yield* server.get(api("/transcripts?date_to=2024-13-45"), { key }), ["date_to"])
          expectInvalid(yield* server.get(api("/transcripts?include_segments=1"), { key }), [
            "include_segments"
          ])
        })
      )

      it.effect("pages with page and limit (1 to 100)", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          for (const language of ["en", "de", "fr"])
            yield* served(server, key, { video: videos.multiLanguage, language })
          const page = (query: string) =>
            server
              .get(api(`/transcripts?${query}`), { key })
              .pipe(Effect.flatMap((response) => decode(Api.TranscriptList, response)))
          const first = yield* page("limit=2")
          const second = yield* page("limit=2&page=2")
          expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasMore: true })
          expect(second.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasMore: false })
          expect([...first.history, ...second.history].map((item) => item.language)).toEqual([
            "fr",
            "de",
            "en"
          ])
          expect((yield* page("limit=2&page=3")).history).toEqual([])
          expect((yield* page("")).pagination.limit).toBe(50)
          expectInvalid(yield* server.get(api("/transcripts?limit=0"), { key }), ["limit"])
          expectInvalid(yield* server.get(api("/transcripts?limit=101"), { key }), ["limit"])
          expectInvalid(yield* server.get(api("/transcripts?page=0"), { key }), ["page"])
        })
      )
    })

    describe("GET /transcripts/{video_id}", () => {
      it.effect("answers the best owned transcript; language, source and id choose among them", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          const english = yield* served(server, key, { video: videos.multiLanguage, language: "en" })
          const german = yield* served(server, key, { video: videos.multiLanguage, language: "de" })

          const best = yield* stored(server, key, videos.multiLanguage)
          // Both are human captions: the newest wins.
          expect(best.language).toBe("de")
          expect(best).toMatchObject({
            video_id: videos.multiLanguage,
            source_kind: "manual",
            has_timestamps: true,
            video_title: catalogueVideo(videos.multiLanguage).title,
            summary: null,
            mind_map: null,
            text: german.data.transcript.text
          })
          expect(best.segments.map(timed)).toEqual(
            trackSegments(videos.multiLanguage, "de", "manual").map(timed)
          )

          const en = yield* stored(server, key, videos.multiLanguage, "?language=en")
          expect(en.text).toBe(english.data.transcript.text)
          expect((yield* stored(server, key, videos.multiLanguage, "?source=manual")).language).toBe("de")
          expectError(
            yield* getTranscript(server, key, videos.multiLanguage, "?source=auto"),
            404,
            "not_found"
          )
          expectError(
            yield* getTranscript(server, key, videos.multiLanguage, "?source=asr"),
            404,
            "not_found"
          )

          // id: a transcript id, or the id of the job that produced it.
          expect((yield* stored(server, key, videos.multiLanguage, `?id=${en.id}`)).language).toBe("en")
          expect((yield* stored(server, key, videos.multiLanguage, `?id=${english.job_id}`)).id).toBe(en.id)
          expectError(
            yield* getTranscript(server, key, videos.multiLanguage, `?id=${unknownUuid}`),
            404,
            "not_found"
          )
          expectInvalid(yield* getTranscript(server, key, videos.multiLanguage, "?id=first"), ["id"])
          expectInvalid(yield* getTranscript(server, key, videos.multiLanguage, "?source=human"), ["source"])
        })
      )

      it.effect("403 forbidden for a language not owned, 404 not_found when nothing is owned", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          yield* served(server, key, { video: videos.multiLanguage, language: "en" })
          const forbidden = yield* getTranscript(server, key, videos.multiLanguage, "?language=fr")
          expectError(forbidden, 403, "forbidden")
          expectError(yield* getTranscript(server, key, videos.manualAndAuto), 404, "not_found")
          expectError(
            yield* getTranscript(server, key, videos.manualAndAuto, "?language=en"),
            404,
            "not_found"
          )
          expectError(yield* getTranscript(server, key, "no-such-video"), 404, "not_found")
          expectInvalid(yield* getTranscript(server, key, videos.multiLanguage, "?language=French"), [
            "language"
          ])
          expectInvalid(yield* getTranscript(server, key, "x".repeat(65)), ["video_id"])
        })
      )

      it.effect("include_timestamps=false leaves the segments out and says so", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          yield* served(server, key, { video: videos.manualAndAuto })
          const without = yield* stored(server, key, videos.manualAndAuto, "?include_timestamps=false")
          expect(without.segments).toEqual([])
          expect(without.has_timestamps).toBe(false)
          expect(without.text).toBe(Transcript.textOf(trackSegments(videos.manualAndAuto, "en", "manual")))
          const withThem = yield* stored(server, key, videos.manualAndAuto, "?include_timestamps=true")
          expect(withThem.segments).toHaveLength(16)
          expect(withThem.has_timestamps).toBe(true)
          expectInvalid(yield* getTranscript(server, key, videos.manualAndAuto, "?include_timestamps=no"), [
            "include_timestamps"
          ])
        })
      )
    })

    describe("DELETE /transcripts/{video_id}", () => {
      it.effect(
        "deletes by language, by source, or everything owned for the video; 404 when nothing matches",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
            for (const language of ["en", "de", "fr"])
              yield* served(server, key, { video: videos.multiLanguage, language })
            yield* served(server, key, { video: videos.autoOnly })
            const remove = (videoId: string, query = "") =>
              server.del(api(`/transcripts/${videoId}${query}`), { key })

            const one = yield* remove(videos.multiLanguage, "?language=fr")
            expect(one.status).toBe(200)
            expect(yield* decode(Api.DeleteResponse, one)).toMatchObject({ success: true, deleted: 1 })
            expectError(
              yield* getTranscript(server, key, videos.multiLanguage, "?language=fr"),
              403,
              "forbidden"
            )
            expectError(yield* remove(videos.multiLanguage, "?language=fr"), 404, "not_found")
            expectError(yield* remove(videos.multiLanguage, "?source=auto"), 404, "not_found")
            expectError(yield* remove(videos.multiLanguage, "?language=es&source=manual"), 404, "not_found")

            const filtered = yield* remove(videos.multiLanguage, "?language=de&source=manual")
            expect(yield* decode(Api.DeleteResponse, filtered)).toMatchObject({ success: true, deleted: 1 })

            const auto = yield* remove(videos.autoOnly, "?source=auto")
            expect(yield* decode(Api.DeleteResponse, auto)).toMatchObject({ deleted: 1 })

            for (const language of ["de", "es"])
              yield* served(server, key, { video: videos.multiLanguage, language })
            const all = yield* remove(videos.multiLanguage)
            expect(yield* decode(Api.DeleteResponse, all)).toMatchObject({ success: true, deleted: 3 })
            expectError(yield* getTranscript(server, key, videos.multiLanguage), 404, "not_found")
            expectError(yield* remove(videos.multiLanguage), 404, "not_found")
            expectError(yield* remove(videos.manualOnly), 404, "not_found")
            expect((yield* transcriptList(server, key)).history).toEqual([])
            expectInvalid(yield* remove(videos.multiLanguage, "?source=human"), ["source"])
            expectInvalid(yield* remove(videos.multiLanguage, "?language=xx_YY"), ["language"])
          })
      )

      it.effect("a deleted transcript is no longer owned: transcribing it again is charged again", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 5, createdAt: oldAccount })
          expect((yield* served(server, key, { video: videos.manualOnly })).credits_used).toBe(1)
          expect((yield* server.del(api(`/transcripts/${videos.manualOnly}`), { key })).status).toBe(200)
          expect((yield* served(server, key, { video: videos.manualOnly })).credits_used).toBe(1)
          expect(yield* balanceOf(server, key)).toBe(3)
        })
      )
    })

    describe("POST /transcripts/bulk-delete", () => {
      it.effect("deletes the owned ids among those given, and 403 when none is owned", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          for (const language of ["en", "de", "fr"])
            yield* served(server, key, { video: videos.multiLanguage, language })
          const ids = (yield* transcriptList(server, key)).history.map((item) => item.id)
          const [fr, de, en] = ids
          const bulk = (json: unknown) => server.post(api("/transcripts/bulk-delete"), { key, json })

          const partial = yield* bulk({ ids: [fr, de, de, unknownUuid] })
          expect(partial.status, partial.text).toBe(200)
          expect(yield* decode(Api.DeleteResponse, partial)).toMatchObject({ success: true, deleted: 2 })
          expect((yield* transcriptList(server, key)).history.map((item) => item.id)).toEqual([en])

          expectError(yield* bulk({ ids: [fr, unknownUuid] }), 403, "forbidden")
          expectInvalid(yield* bulk({ ids: [] }), ["ids"])
          expectInvalid(yield* bulk({}), ["ids"])
          expectInvalid(yield* bulk({ ids: ["first"] }), ["ids", 0])
          expectInvalid(yield* bulk({ ids: en }), ["ids"])
          expectInvalid(yield* bulk({ ids: Array.from({ length: 1001 }, () => en) }), ["ids"])
          expect((yield* transcriptList(server, key)).history.map((item) => item.id)).toEqual([en])
        })
      )
    })

    describe("GET /transcripts/{video_id}/languages", () => {
      it.effect("lists the owned languages and the platform's translation targets", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
          for (const language of ["en", "de"])
            yield* served(server, key, { video: videos.multiLanguage, language })
          const languages = (query = "") =>
            server
              .get(api(`/transcripts/${videos.multiLanguage}/languages${query}`), { key })
              .pipe(Effect.flatMap((response) => decode(Api.LanguagesResponse, response)))
          const all = yield* languages()
          expect(all.video_id).toBe(videos.multiLanguage)
          expect([...all.languages].sort()).toEqual(["de", "en"])
          expect([...all.platform_translation_languages].sort()).toEqual(
            [...catalogueVideo(videos.multiLanguage).translationLanguages].sort()
          )
          expect(yield* languages("?include_youtube_default=true")).toEqual(all)
          const owned = yield* languages("?include_youtube_default=false")
          expect([...owned.languages].sort()).toEqual(["de", "en"])
          expect(owned.platform_translation_languages).toEqual([])
          expectError(
            yield* server.get(api(`/transcripts/${videos.manualOnly}/languages`), { key }),
            404,
            "not_found"
          )
          expectInvalid(
            yield* server.get(
              api(`/transcripts/${videos.multiLanguage}/languages?include_youtube_default=maybe`),
              {
                key
              }
            ),
            ["include_youtube_default"]
          )
        })
      )
    })
  }
)
