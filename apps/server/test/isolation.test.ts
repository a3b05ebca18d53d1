/**
 * Cross-account isolation over real HTTP (DESIGN decision 13): account B never sees, fetches,
 * exports, deletes or bulk-deletes account A's transcripts, nor reads A's jobs; A's ownership
 * gives B nothing for free; and A's data is intact after every attempt.
 */
import { expect, layer } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import {
  allJobs,
  api,
  balanceOf,
  decode,
  expectError,
  oldAccount,
  transcribe,
  transcriptList,
  videos
} from "./support.js"

/** Everything an account can read about itself: transcripts with segments, each video's best, jobs, balance. */
const snapshot = (server: TestServerService, key: string) =>
  Effect.gen(function* () {
    const list = yield* transcriptList(server, key, "&include_segments=true")
    const best = []
    for (const videoId of new Set(list.history.map((item) => item.video_id))) {
      best.push((yield* server.get(api(`/transcripts/${videoId}`), { key })).json)
    }
    return {
      list: list.history,
      best,
      jobs: yield* allJobs(server, key),
      credits: yield* balanceOf(server, key)
    }
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "cross-account isolation",
  (it) => {
    it.effect("an account never sees, fetches, exports or deletes another's transcripts and jobs", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const a = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
        const b = yield* server.newAccount({ plan: "business", credits: 10, createdAt: oldAccount })
        const aEnglish = yield* decode(
          Api.TranscribeCompleted,
          yield* transcribe(server, a.key, { video: videos.multiLanguage, language: "en" })
        )
        yield* transcribe(server, a.key, { video: videos.multiLanguage, language: "de" })
        yield* transcribe(server, a.key, { video: videos.manualAndAuto })
        yield* transcribe(server, a.key, { video: videos.noCaptions })
        yield* transcribe(server, b.key, { video: videos.manualOnly })
        const before = yield* snapshot(server, a.key)
        const aIds = before.list.map((item) => item.id)
        expect(aIds).toHaveLength(3)
        const aJobIds = before.jobs.map((job) => job.job_id)
        expect(aJobIds).toHaveLength(4)

        // Lists and searches show B's own data only.
        const bList = yield* transcriptList(server, b.key)
        expect(bList.history.map((item) => item.video_id)).toEqual([videos.manualOnly])
        for (const search of [videos.multiLanguage, videos.manualAndAuto, "coordination", "documentation"]) {
          expect((yield* transcriptList(server, b.key, `&search=${search}`)).history).toEqual([])
        }
        expect((yield* transcriptList(server, b.key, "&language=de")).history).toEqual([])
        const bJobs = yield* allJobs(server, b.key)
        expect(bJobs.map((job) => job.video_id)).toEqual([videos.manualOnly])

        // A's jobs and transcripts are not there for B, by any id, in any format.
        for (const id of aJobIds)
          expectError(yield* server.get(api(`/jobs/${id}`), { key: b.key }), 404, "not_found")
        for (const query of [
          "",
          "?language=en",
          "?language=de",
          `?id=${aIds[0]}`,
          `?id=${aEnglish.job_id}`,
          "?format=srt",
          "?format=vtt",
          "?format=txt",
          "?source=manual"
        ]) {
          expectError(
            yield* server.get(api(`/transcripts/${videos.multiLanguage}${query}`), { key: b.key }),
            404,
            "not_found"
          )
        }
        expectError(
          yield* server.get(api(`/transcripts/${videos.multiLanguage}/languages`), { key: b.key }),
          404,
          "not_found"
        )
        // B's own video, asked for with A's transcript id, is not A's transcript either.
        expectError(
          yield* server.get(api(`/transcripts/${videos.manualOnly}?id=${aIds[0]}`), { key: b.key }),
          404,
          "not_found"
        )

        // Deletes by B touch nothing of A's.
        for (const query of ["", "?language=en", "?source=manual"]) {
          expectError(
            yield* server.del(api(`/transcripts/${videos.multiLanguage}${query}`), { key: b.key }),
            404,
            "not_found"
          )
        }
        expectError(
          yield* server.post(api("/transcripts/bulk-delete"), { key: b.key, json: { ids: aIds } }),
          403,
          "forbidden"
        )
        // A bulk delete mixing ids deletes only B's own.
        const bId = bList.history[0]?.id
        const mixed = yield* server.post(api("/transcripts/bulk-delete"), {
          key: b.key,
          json: { ids: [...aIds, bId] }
        })
        expect(yield* decode(Api.DeleteResponse, mixed)).toMatchObject({ success: true, deleted: 1 })

        // A's ownership is not B's: B pays for the same transcript and gets its own copy.
        const bEnglish = yield* decode(
          Api.TranscribeCompleted,
          yield* transcribe(server, b.key, { video: videos.multiLanguage, language: "en" })
        )
        expect(bEnglish.credits_used).toBe(1)
        const bStored = yield* decode(
          Api.StoredTranscript,
          yield* server.get(api(`/transcripts/${videos.multiLanguage}`), { key: b.key })
        )
        expect(aIds).not.toContain(bStored.id)
        expect(bStored.language).toBe("en")
        // B deleting its own copy leaves A's.
        const bDelete = yield* server.del(api(`/transcripts/${videos.multiLanguage}`), { key: b.key })
        expect(yield* decode(Api.DeleteResponse, bDelete)).toMatchObject({ deleted: 1 })

        // A's data is intact.
        expect(yield* snapshot(server, a.key)).toEqual(before)
        expect(yield* balanceOf(server, b.key)).toBe(8)
      })
    )

    it.effect("a key reaches only its own account, whichever account issued more keys", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const a = yield* server.newAccount({ plan: "business", credits: 3, createdAt: oldAccount })
        const secondKey = yield* server.issueKey(a.account)
        const b = yield* server.newAccount({ plan: "business", credits: 7, createdAt: oldAccount })
        yield* transcribe(server, secondKey, { video: videos.manualOnly })
        // Both keys of A see the same data; B's key sees none of it.
        expect((yield* transcriptList(server, a.key)).history).toHaveLength(1)
        expect(yield* snapshot(server, a.key)).toEqual(yield* snapshot(server, secondKey))
        expect(yield* balanceOf(server, a.key)).toBe(2)
        expect(yield* balanceOf(server, b.key)).toBe(7)
        expect((yield* transcriptList(server, b.key)).history).toEqual([])
      })
    )
  }
)
