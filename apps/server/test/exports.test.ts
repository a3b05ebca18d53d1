/**
 * Exports of GET /transcripts/{video_id} over real HTTP: format=srt|vtt|txt answer with their
 * content types, and the files parse back with the domain's readers into one cue per stored
 * segment, at the stored times; json stays the default; errors stay JSON error bodies.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Api, Transcript } from "@verbatim/domain"
import { Effect, Either } from "effect"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import {
  api,
  decode,
  expectError,
  expectInvalid,
  oldAccount,
  trackSegments,
  transcribe,
  videos
} from "./support.js"

const exported = (server: TestServerService, key: string, videoId: string, query: string) =>
  server.get(api(`/transcripts/${videoId}?${query}`), { key })

/** The stored segments of the account's best transcript of a video, as the JSON answer gives them. */
const storedSegments = (server: TestServerService, key: string, videoId: string, query = "") =>
  exported(server, key, videoId, query).pipe(
    Effect.flatMap((response) => decode(Api.StoredTranscript, response)),
    Effect.map((transcript) => transcript.segments)
  )

const owning = (server: TestServerService, ...bodies: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const { key } = yield* server.newAccount({ plan: "business", credits: 20, createdAt: oldAccount })
    for (const body of bodies) expect((yield* transcribe(server, key, body)).status).toBe(200)
    return key
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })(
  "transcript exports over real HTTP",
  (it) => {
    describe("format=srt", () => {
      it.effect("answers SubRip that parses back to one cue per stored segment", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = yield* owning(server, { video: videos.manualAndAuto })
          const segments = yield* storedSegments(server, key, videos.manualAndAuto)
          const response = yield* exported(server, key, videos.manualAndAuto, "format=srt")
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("application/x-subrip; charset=utf-8")
          expect(response.headers.get("content-disposition")).toContain(`${videos.manualAndAuto}.en.srt`)
          const cues = Either.getOrThrow(Transcript.parseSrt(response.text))
          expect(cues).toHaveLength(segments.length)
          expect(cues).toEqual(Transcript.cuesOf(segments))
          expect(cues.map((cue) => cue.start)).toEqual(segments.map((segment) => segment.start))
          expect(cues.map((cue) => cue.text)).toEqual(segments.map((segment) => segment.text))
        })
      )

      it.effect("overlapping auto captions become non-overlapping cues, one per segment", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = yield* owning(server, { video: videos.autoOnly })
          const segments = yield* storedSegments(server, key, videos.autoOnly)
          expect(segments).toHaveLength(trackSegments(videos.autoOnly, "en", "auto").length)
          const cues = Either.getOrThrow(
            Transcript.parseSrt((yield* exported(server, key, videos.autoOnly, "format=srt")).text)
          )
          expect(cues).toHaveLength(segments.length)
          expect(cues).toEqual(Transcript.cuesOf(segments))
          for (const [i, cue] of cues.entries()) {
            expect(cue.end).toBeGreaterThan(cue.start)
            const next = cues[i + 1]
            if (next !== undefined) expect(cue.end).toBeLessThanOrEqual(next.start)
          }
        })
      )
    })

    describe("format=vtt", () => {
      it.effect("answers WebVTT that parses back, keeping non-ASCII text", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = yield* owning(server, { video: videos.germanOnly })
          const segments = yield* storedSegments(server, key, videos.germanOnly)
          const response = yield* exported(server, key, videos.germanOnly, "format=vtt")
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("text/vtt; charset=utf-8")
          expect(response.text.startsWith("WEBVTT")).toBe(true)
          const cues = Either.getOrThrow(Transcript.parseVtt(response.text))
          expect(cues).toHaveLength(segments.length)
          expect(cues).toEqual(Transcript.cuesOf(segments))
          expect(response.text).toMatch(/[äöüßÄÖÜ]/)
        })
      )
    })

    describe("format=txt", () => {
      it.effect(
        "answers one [HH:MM:SS] line per segment, or the paragraphs (blank-line separated) with include_timestamps=false",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const key = yield* owning(server, { video: videos.multiLanguage, language: "es" })
            const segments = yield* storedSegments(server, key, videos.multiLanguage)
            const response = yield* exported(server, key, videos.multiLanguage, "format=txt")
            expect(response.status).toBe(200)
            expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8")
            const lines = response.text.trimEnd().split("\n")
            expect(lines).toHaveLength(segments.length)
            for (const [i, line] of lines.entries()) {
              expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\] /)
              expect(line.slice(line.indexOf("] ") + 2)).toBe(segments[i]?.text)
            }
            const plain = yield* exported(
              server,
              key,
              videos.multiLanguage,
              "format=txt&include_timestamps=false"
            )
            const paragraphs = Transcript.paragraphsOf(segments)
            expect(plain.text).toBe(`${paragraphs.map((paragraph) => paragraph.text).join("\n\n")}\n`)
            expect(paragraphs.length).toBeGreaterThan(1)
            expect(plain.text).not.toMatch(/^\[\d{2}:/m)
          })
      )
    })

    describe("format=json and errors", () => {
      it.effect("json is the default; language and source choose the exported transcript", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = yield* owning(
            server,
            { video: videos.multiLanguage, language: "en" },
            { video: videos.multiLanguage, language: "fr" }
          )
          const json = yield* exported(server, key, videos.multiLanguage, "format=json")
          expect(json.headers.get("content-type")).toContain("application/json")
          expect(json.json).toEqual((yield* exported(server, key, videos.multiLanguage, "")).json)
          const english = yield* exported(
            server,
            key,
            videos.multiLanguage,
            "format=srt&language=en&source=manual"
          )
          expect(english.headers.get("content-disposition")).toContain(`${videos.multiLanguage}.en.srt`)
          expect(Either.getOrThrow(Transcript.parseSrt(english.text))).toEqual(
            Transcript.cuesOf(trackSegments(videos.multiLanguage, "en", "manual"))
          )
        })
      )

      it.effect("errors of an export are JSON error bodies: 403, 404 and 400", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = yield* owning(server, { video: videos.manualAndAuto })
          for (const format of ["srt", "vtt", "txt"]) {
            expectError(
              yield* exported(server, key, videos.manualAndAuto, `format=${format}&language=de`),
              403,
              "forbidden"
            )
            expectError(yield* exported(server, key, videos.manualOnly, `format=${format}`), 404, "not_found")
          }
          expectInvalid(yield* exported(server, key, videos.manualAndAuto, "format=pdf"), ["format"])
          expectInvalid(yield* exported(server, key, videos.manualAndAuto, "format=SRT"), ["format"])
        })
      )
    })
  }
)
