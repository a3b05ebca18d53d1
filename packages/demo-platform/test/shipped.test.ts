import { existsSync, readFileSync } from "node:fs"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Either } from "effect"
import { type Catalogue, type CatalogueVideo, decodeCatalogue } from "../src/catalogue.js"
import { loadCatalogue } from "../src/load.js"
import { demoCataloguePath, shippedCataloguePath } from "../src/shipped.js"

const hasTrack = (video: CatalogueVideo, language: string, kind: "manual" | "auto") =>
  video.captionTracks.some((t) => t.language === language && t.kind === kind)

const load = loadCatalogue(shippedCataloguePath).pipe(Effect.provide(NodeContext.layer))

describe("the shipped catalogue", () => {
  it("sits in catalogue/ beside src/ and dist/", () => {
    expect(shippedCataloguePath.endsWith("/packages/demo-platform/catalogue/demo.json")).toBe(true)
    expect(existsSync(shippedCataloguePath)).toBe(true)
  })

  it.effect("loads and passes every rule of the schema", () =>
    Effect.gen(function* () {
      const catalogue = yield* load
      expect(catalogue.channels.length).toBeGreaterThanOrEqual(2)
      expect(catalogue.channels.length).toBeLessThanOrEqual(3)
      expect(catalogue.playlists).toHaveLength(2)
      expect(catalogue.videos.length).toBeGreaterThanOrEqual(8)
      expect(catalogue.videos.length).toBeLessThanOrEqual(12)
    })
  )

  it.effect("covers every case the demo is meant to show", () =>
    Effect.gen(function* () {
      const { videos, playlists }: Catalogue = yield* load
      const available = videos.filter((v) => v.unavailable === undefined)
      const some = (p: (v: CatalogueVideo) => boolean) => expect(available.some(p)).toBe(true)
      // manual en beside auto en
      some((v) => hasTrack(v, "en", "manual") && hasTrack(v, "en", "auto"))
      // several manual languages plus auto en
      some(
        (v) => ["en", "de", "fr", "es"].every((l) => hasTrack(v, l, "manual")) && hasTrack(v, "en", "auto")
      )
      // auto-only English
      some(
        (v) =>
          v.captionTracks.length > 0 && v.captionTracks.every((t) => t.kind === "auto" && t.language === "en")
      )
      // German only, spoken German
      some(
        (v) =>
          v.originalLanguage === "de" &&
          v.captionTracks.length > 0 &&
          v.captionTracks.every((t) => t.language === "de")
      )
      // no captions, short enough for ASR
      some((v) => v.captionTracks.length === 0 && v.durationSeconds > 0 && v.durationSeconds <= 480 * 60)
      // no captions, with speech to recognise: media files shipped beside the catalogue
      some((v) => v.captionTracks.length === 0 && v.media !== undefined)
      for (const v of videos.filter((v) => v.media !== undefined)) {
        expect(existsSync(new URL(v.media ?? "", `file://${shippedCataloguePath}`)), v.media).toBe(true)
      }
      // no captions, longer than the 480-minute ASR limit
      some((v) => v.captionTracks.length === 0 && v.durationSeconds > 480 * 60)
      // a regional track
      some((v) => hasTrack(v, "pt-BR", "manual"))
      // an unavailable video, listed in a playlist
      const gone = videos.filter((v) => v.unavailable !== undefined)
      expect(gone.length).toBeGreaterThanOrEqual(1)
      expect(playlists.some((p) => p.videoIds.some((id) => gone.some((v) => v.id === id)))).toBe(true)
      // a playlist without a channel
      expect(playlists.some((p) => p.channelId === null)).toBe(true)
    })
  )

  it.effect("has 8 to 30 segments on every caption track, within the video", () =>
    Effect.gen(function* () {
      const { videos } = yield* load
      for (const video of videos) {
        for (const track of video.captionTracks) {
          expect(track.segments.length).toBeGreaterThanOrEqual(8)
          expect(track.segments.length).toBeLessThanOrEqual(30)
          for (const segment of track.segments) {
            expect(segment.text.trim()).not.toBe("")
            expect(segment.end).toBeGreaterThan(segment.start)
            expect(segment.end).toBeLessThanOrEqual(video.durationSeconds * 1000)
          }
        }
      }
    })
  )

  it.effect("dates every video in the past", () =>
    Effect.gen(function* () {
      const { videos } = yield* load
      const now = Date.now()
      for (const video of videos) expect(DateTime.toEpochMillis(video.publishedAt)).toBeLessThan(now)
    })
  )
})

describe("demoCataloguePath", () => {
  it.effect("is VERBATIM_DEMO_CATALOG when set, the shipped catalogue otherwise", () =>
    Effect.gen(function* () {
      const unset = yield* Effect.withConfigProvider(demoCataloguePath, ConfigProvider.fromMap(new Map()))
      expect(unset).toBe(shippedCataloguePath)
      const set = yield* Effect.withConfigProvider(
        demoCataloguePath,
        ConfigProvider.fromMap(new Map([["VERBATIM_DEMO_CATALOG", "/srv/demo.json"]]))
      )
      expect(set).toBe("/srv/demo.json")
    })
  )
})

describe("docs/demo-catalogue.md", () => {
  it("shows an example that is a valid catalogue", () => {
    const doc = readFileSync(new URL("../../../docs/demo-catalogue.md", import.meta.url), "utf8")
    const example = doc.split("## Example")[1]?.split("```json")[1]?.split("```")[0]
    expect(example).toBeDefined()
    const decoded = decodeCatalogue(JSON.parse(example ?? "null"))
    expect(Either.getOrThrowWith(decoded, (lines) => new Error(lines.join("\n"))).videos).toHaveLength(2)
  })
})
