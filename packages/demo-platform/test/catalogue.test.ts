import { describe, expect, it } from "@effect/vitest"
import { Ids } from "@verbatim/domain"
import { Arbitrary, DateTime, Either, FastCheck as fc } from "effect"
import { type CatalogueJson, decodeCatalogue, encodeCatalogue, maxListedIssues } from "../src/catalogue.js"
import { catalogueArb } from "./arbitraries.js"
import { at, type CatalogueFile, channelA, validJson } from "./fixtures.js"

/** The problem lines of a catalogue that must be refused. */
const refused = (json: unknown): ReadonlyArray<string> => {
  const result = decodeCatalogue(json)
  if (Either.isRight(result)) throw new Error("expected the catalogue to be refused")
  return result.left
}

const encode = (catalogue: Parameters<typeof encodeCatalogue>[0]): CatalogueJson =>
  Either.getOrThrowWith(encodeCatalogue(catalogue), (lines) => new Error(lines.join("\n")))

/** A deep, mutable copy of an encoded catalogue. */
const mutable = (json: CatalogueJson) => structuredClone(json) as CatalogueFile

describe("catalogue schema", () => {
  it("accepts a valid catalogue and decodes it to camelCase records", () => {
    const catalogue = Either.getOrThrow(decodeCatalogue(validJson()))
    const first = catalogue.videos[0]
    expect(first?.durationSeconds).toBe(60)
    expect(first?.channelId).toBe(channelA)
    expect(first?.thumbnailUrl).toBe("https://example.com/a.jpg")
    expect(first?.captionTracks[1]?.name).toBeUndefined()
    expect(catalogue.videos[1]?.originalLanguage).toBeNull()
    expect(catalogue.videos[2]?.unavailable).toBe("This video has been removed by the uploader.")
    expect(catalogue.videos[1]?.publishedAt.pipe(DateTime.toEpochMillis)).toBe(Date.UTC(2024, 1, 1, 9))
    expect(catalogue.playlists[0]?.videoIds).toEqual(["aaaaaaaaaaa", "bbbbbbbbbbb", "aaaaaaaaaaa"])
  })

  it("refuses a video whose channel is not in channels", () => {
    const json = validJson()
    at(json.videos, 1).channel_id = "UCzzzzzzzzzzzzzzzzzzzzzz"
    expect(refused(json)).toEqual(["videos[1].channel_id: no channel UCzzzzzzzzzzzzzzzzzzzzzz in channels"])
  })

  it("refuses a playlist naming a video or a channel not in the catalogue", () => {
    const json = validJson()
    at(json.playlists, 0).video_ids.push("zzzzzzzzzzz")
    at(json.playlists, 1).channel_id = "UCzzzzzzzzzzzzzzzzzzzzzz"
    expect(refused(json)).toEqual([
      "playlists[0].video_ids[3]: no video zzzzzzzzzzz in videos",
      "playlists[1].channel_id: no channel UCzzzzzzzzzzzzzzzzzzzzzz in channels"
    ])
  })

  it("refuses duplicate ids of videos, channels and playlists, and handles that differ only in case", () => {
    const json = validJson()
    json.videos.push({ ...at(json.videos, 1) })
    json.playlists.push({ ...at(json.playlists, 0) })
    json.channels.push(
      { ...at(json.channels, 0), handle: "other" },
      { ...at(json.channels, 1), id: "UCcccccccccccccccccccccc", handle: "channelb" }
    )
    expect(refused(json)).toEqual([
      `channels[2].id: duplicate id ${channelA} (first at channels[0])`,
      "channels[3].handle: duplicate handle channelb (first at channels[1])",
      "videos[3].id: duplicate id bbbbbbbbbbb (first at videos[1])",
      "playlists[2].id: duplicate id PLfirst (first at playlists[0])"
    ])
  })

  it("refuses a segment that ends before it starts", () => {
    const json = validJson()
    const segments = at(at(json.videos, 0).caption_tracks, 0).segments
    segments[1] = { text: "two", start: 1000, end: 900 }
    expect(refused(json)).toEqual([
      "videos[0].caption_tracks[0].segments[1]: end before start (start 1000, end 900)"
    ])
  })

  it("refuses segments that are not sorted by start", () => {
    const json = validJson()
    const segments = at(at(json.videos, 0).caption_tracks, 0).segments
    segments[2] = { text: "three", start: 500, end: 4000 }
    expect(refused(json)).toEqual([
      "videos[0].caption_tracks[0].segments[2]: starts before the segment above it (start 500 < 1000); segments must be sorted by start"
    ])
  })

  it("accepts overlapping and zero-length segments as long as starts are sorted", () => {
    const json = validJson()
    const track = at(at(json.videos, 0).caption_tracks, 1)
    track.segments = [
      { text: "a", start: 0, end: 3000 },
      { text: "b", start: 2000, end: 2000 },
      { text: "c", start: 2000, end: 5000 }
    ]
    expect(Either.isRight(decodeCatalogue(json))).toBe(true)
  })

  it("refuses bad language codes wherever a language is expected", () => {
    const json = validJson()
    const video = at(json.videos, 0)
    const track = at(video.caption_tracks, 0)
    track.language = "English"
    video.original_language = "EN"
    video.translation_languages = ["de", "fra"]
    const lines = refused(json)
    expect(lines).toHaveLength(3)
    expect(lines[0]).toBe(
      'videos[0].original_language: Expected a language code such as en or pt-BR, or null, actual "EN"'
    )
    expect(lines[1]).toMatch(/^videos\[0\]\.caption_tracks\[0\]\.language: Expected ISO 639-1 .*"English"$/)
    expect(lines[2]).toMatch(/^videos\[0\]\.translation_languages\[1\]: Expected ISO 639-1 .*"fra"$/)
  })

  it("refuses a second track of the same kind in the same language (compared case-insensitively)", () => {
    const json = validJson()
    const video = at(json.videos, 0)
    video.caption_tracks.push({ language: "en", kind: "auto", segments: [] })
    video.caption_tracks.push({ language: "pt-BR", kind: "manual", segments: [] })
    video.caption_tracks.push({ language: "pt-br", kind: "manual", segments: [] })
    video.caption_tracks.push({ language: "pt-br", kind: "auto", segments: [] })
    expect(refused(json)).toEqual([
      "videos[0].caption_tracks[2]: a second auto track in en (first at caption_tracks[1])",
      "videos[0].caption_tracks[4]: a second manual track in pt-br (first at caption_tracks[3])"
    ])
  })

  it("refuses malformed ids, empty titles, handles, counts, durations, dates and urls, naming each path", () => {
    const json = validJson() as unknown as {
      videos: Array<Record<string, unknown>>
      channels: Array<Record<string, unknown>>
      playlists: Array<Record<string, unknown>>
    }
    const [video, other, channel, playlist] = [
      at(json.videos, 0),
      at(json.videos, 1),
      at(json.channels, 0),
      at(json.playlists, 0)
    ]
    video.id = "short"
    video.duration_seconds = 12.5
    video.published_at = "2024-01-01"
    video.thumbnail_url = "ftp://example.com/a.jpg"
    other.duration_seconds = -1
    other.unavailable = ""
    channel.title = ""
    channel.handle = "@channel-a"
    channel.subscriber_count = "many"
    playlist.id = "P"
    const paths = refused(json).map((line) => line.slice(0, line.indexOf(":")))
    expect(paths).toEqual([
      "channels[0].title",
      "channels[0].handle",
      "channels[0].subscriber_count",
      "videos[0].id",
      "videos[0].duration_seconds",
      "videos[0].published_at",
      "videos[0].thumbnail_url",
      "videos[1].duration_seconds",
      "videos[1].unavailable",
      "playlists[0].id"
    ])
  })

  it("refuses a date-time without a zone with a message saying what is expected", () => {
    const json = validJson()
    const video = at(json.videos, 0)
    video.published_at = "2024-01-01T10:00:00"
    expect(refused(json)).toEqual([
      'videos[0].published_at: Expected an ISO 8601 date-time with a zone, such as 2024-05-01T17:30:00Z, actual "2024-01-01T10:00:00"'
    ])
  })

  it("refuses missing and unknown keys (a misspelt optional key cannot pass unnoticed)", () => {
    const json = validJson() as unknown as { videos: Array<Record<string, unknown>> }
    const video = at(json.videos, 0)
    delete video.title
    video.thumbnail_ur = video.thumbnail_url
    delete video.thumbnail_url
    const lines = refused(json)
    expect(lines).toContain("videos[0].title: is missing")
    expect(lines.some((line) => line.startsWith("videos[0].thumbnail_ur: is unexpected"))).toBe(true)
    expect(refused({ videos: [] })).toEqual(["channels: is missing", "playlists: is missing"])
    expect(refused([])).toHaveLength(1)
  })

  it(`lists at most ${maxListedIssues} problems and counts the rest`, () => {
    const json = validJson()
    at(json.playlists, 0).video_ids.push(
      ...Array.from({ length: 30 }, (_, i) => `zzzzzzzzz${String(i).padStart(2, "0")}`)
    )
    const lines = refused(json)
    expect(lines).toHaveLength(maxListedIssues + 1)
    expect(lines[maxListedIssues]).toBe("... and 10 more")
  })
})

describe("catalogue schema laws", () => {
  it("decoding the encoding of any valid catalogue gives it back", () => {
    fc.assert(
      fc.property(catalogueArb, (catalogue) => {
        const json = JSON.parse(JSON.stringify(encode(catalogue))) as unknown
        const decoded = Either.getOrThrowWith(decodeCatalogue(json), (lines) => new Error(lines.join("\n")))
        expect(encode(decoded)).toEqual(encode(catalogue))
      }),
      { numRuns: 200 }
    )
  })

  it("a video moved to a channel not in channels is refused, naming exactly that video", () => {
    const absent = Arbitrary.make(Ids.ChannelId)
    const withVideo = catalogueArb.filter((c) => c.videos.length > 0)
    fc.assert(
      fc.property(withVideo, absent, fc.nat(), (catalogue, channelId, pick) => {
        fc.pre(!catalogue.channels.some((c) => c.id === channelId))
        const json = mutable(encode(catalogue))
        const i = pick % json.videos.length
        const video = json.videos[i]
        if (!video) throw new Error("no video")
        video.channel_id = channelId
        expect(refused(json)).toEqual([`videos[${i}].channel_id: no channel ${channelId} in channels`])
      })
    )
  })

  it("a segment inserted after a later-starting one is refused at its index, and only there", () => {
    const withSegment = catalogueArb.filter((c) =>
      c.videos.some((v) => v.captionTracks.some((t) => t.segments.some((s) => s.start > 0)))
    )
    fc.assert(
      fc.property(withSegment, fc.nat(), (catalogue, shift) => {
        const json = mutable(encode(catalogue))
        const i = json.videos.findIndex((v) =>
          v.caption_tracks.some((t) => t.segments.some((s) => s.start > 0))
        )
        const tracks = json.videos[i]?.caption_tracks ?? []
        const t = tracks.findIndex((track) => track.segments.some((s) => s.start > 0))
        const segments = tracks[t]?.segments ?? []
        const j = segments.findIndex((s) => s.start > 0)
        const after = segments[j]?.start ?? 0
        const early = shift % after
        segments.splice(j + 1, 0, { text: "early", start: early, end: early })
        expect(refused(json)).toEqual([
          `videos[${i}].caption_tracks[${t}].segments[${j + 1}]: starts before the segment above it (start ${early} < ${after}); segments must be sorted by start`
        ])
      })
    )
  })
})
