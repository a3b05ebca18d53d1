import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { VideoPlatform } from "@verbatim/core"
import { Captions } from "@verbatim/domain"
import { DateTime, Effect, FastCheck as fc, Option } from "effect"
import { type Catalogue, encodeCatalogue } from "../src/catalogue.js"
import { channel, channelVideos, indexCatalogue, playlistVideos } from "../src/lookup.js"
import * as DemoPlatform from "../src/platform.js"
import { catalogueArb } from "./arbitraries.js"

/** What the port must say about a video, computed from the source catalogue alone. */
const expectedDetails = (source: Catalogue, video: Catalogue["videos"][number]) => ({
  id: video.id,
  title: video.title,
  durationSeconds: video.durationSeconds,
  channelId: video.channelId,
  channelTitle: source.channels.find((c) => c.id === video.channelId)?.title ?? null,
  publishedAt: DateTime.toEpochMillis(video.publishedAt),
  originalLanguage: video.originalLanguage,
  captionTracks: video.captionTracks.map((t) => ({
    language: t.language,
    kind: t.kind,
    name: t.name ?? null
  })),
  translationLanguages: video.translationLanguages
})

it.layer(NodeContext.layer)("catalogue file round trip", (it) => {
  it.scoped.prop(
    "encode, write, load: every video's details and captions equal the source",
    [catalogueArb],
    ([source]) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "verbatim-demo-" })
        const path = `${dir}/catalogue.json`
        const json = yield* encodeCatalogue(source)
        yield* fs.writeFileString(path, JSON.stringify(json, null, 2))
        const platform = yield* VideoPlatform.pipe(Effect.provide(DemoPlatform.layer(path)))
        for (const video of source.videos) {
          if (video.unavailable !== undefined) {
            const error = yield* Effect.flip(platform.video(video.id))
            expect(error).toMatchObject({
              _tag: "VideoUnavailable",
              videoId: video.id,
              reason: video.unavailable
            })
            continue
          }
          const details = yield* platform.video(video.id)
          expect({
            ...details,
            publishedAt: details.publishedAt === null ? null : DateTime.toEpochMillis(details.publishedAt)
          }).toEqual(expectedDetails(source, video))
          for (const track of video.captionTracks) {
            const asked = new Captions.CaptionTrack({
              language: track.language,
              kind: track.kind,
              name: null
            })
            const segments = yield* platform.captions(video.id, asked)
            expect(segments.map((s) => ({ text: s.text, start: s.start, end: s.end }))).toEqual(
              track.segments
            )
          }
        }
      }),
    { fastCheck: { numRuns: 60 } }
  )
})

describe("read helper laws", () => {
  it("a channel's videos are exactly its catalogue videos, newest first", () => {
    fc.assert(
      fc.property(catalogueArb, (source) => {
        const index = indexCatalogue(source)
        for (const c of source.channels) {
          const listed = channelVideos(index, c.id)
          expect(listed.map((v) => v.id).sort()).toEqual(
            source.videos
              .filter((v) => v.channelId === c.id)
              .map((v) => v.id)
              .sort()
          )
          const times = listed.map((v) => DateTime.toEpochMillis(v.publishedAt))
          expect(times).toEqual([...times].sort((a, b) => b - a))
          expect(Option.map(channel(index, `@${c.handle.toUpperCase()}`), (found) => found.id)).toEqual(
            Option.some(c.id)
          )
        }
      })
    )
  })

  it("a playlist's videos are its video ids, in order", () => {
    fc.assert(
      fc.property(catalogueArb, (source) => {
        const index = indexCatalogue(source)
        for (const p of source.playlists) {
          expect(Option.map(playlistVideos(index, p.id), (vs) => vs.map((v) => v.id))).toEqual(
            Option.some(p.videoIds)
          )
        }
      })
    )
  })
})
