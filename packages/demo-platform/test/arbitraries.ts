/** fast-check arbitraries of valid catalogues (ids unique, every reference resolving, segments sorted). */
import { Ids, Language } from "@verbatim/domain"
import { Arbitrary, DateTime, FastCheck as fc } from "effect"
import {
  type Catalogue,
  type CatalogueChannel,
  type CataloguePlaylist,
  type CatalogueSegment,
  type CatalogueTrack,
  type CatalogueVideo,
  trackKey
} from "../src/catalogue.js"

const text = fc.oneof(fc.string(), fc.string({ unit: "binary", maxLength: 40 }))
const title = fc.string({ minLength: 1, maxLength: 40 })
export const languageArb = Arbitrary.make(Language.LanguageCode)

/** Sorted segments: each start at or after the previous one; overlaps and zero lengths included. */
export const segmentsArb: fc.Arbitrary<ReadonlyArray<CatalogueSegment>> = fc
  .array(fc.record({ text, gap: fc.nat(5_000), length: fc.nat(8_000) }), { maxLength: 12 })
  .map((parts) => {
    let start = 0
    return parts.map((p) => {
      start += p.gap
      return { text: p.text, start, end: start + p.length }
    })
  })

const trackArb: fc.Arbitrary<CatalogueTrack> = fc.record(
  {
    language: languageArb,
    kind: fc.constantFrom("manual" as const, "auto" as const),
    name: title,
    segments: segmentsArb
  },
  { requiredKeys: ["language", "kind", "segments"] }
)

const channelArb: fc.Arbitrary<CatalogueChannel> = fc.record({
  id: Arbitrary.make(Ids.ChannelId),
  title,
  handle: Arbitrary.make(Ids.ChannelHandle),
  subscriberCount: fc.nat()
})

const videoIdArb = Arbitrary.make(Ids.VideoId)
const playlistIdArb = Arbitrary.make(Ids.PlaylistId)
const thumbnailArb = fc.webUrl()
const tracksArb = fc.uniqueArray(trackArb, {
  maxLength: 4,
  comparator: (a, b) => trackKey(a) === trackKey(b)
})
const translationLanguagesArb = fc.array(languageArb, { maxLength: 3 })
const unavailableArb = fc.string({ minLength: 1, maxLength: 30 })

const publishedAtArb = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) })
  .map((ms) => DateTime.unsafeMake(ms))

const videoArb = (channels: ReadonlyArray<CatalogueChannel>): fc.Arbitrary<CatalogueVideo> =>
  fc.record(
    {
      id: videoIdArb,
      title,
      durationSeconds: fc.nat(100_000),
      channelId: fc.constantFrom(...channels.map((c) => c.id)),
      publishedAt: publishedAtArb,
      originalLanguage: fc.option(languageArb, { nil: null }),
      captionTracks: tracksArb,
      translationLanguages: translationLanguagesArb,
      unavailable: unavailableArb,
      thumbnailUrl: thumbnailArb
    },
    {
      requiredKeys: [
        "id",
        "title",
        "durationSeconds",
        "channelId",
        "publishedAt",
        "originalLanguage",
        "captionTracks",
        "translationLanguages"
      ]
    }
  )

const playlistArb = (
  channels: ReadonlyArray<CatalogueChannel>,
  videos: ReadonlyArray<CatalogueVideo>
): fc.Arbitrary<CataloguePlaylist> =>
  fc.record({
    id: playlistIdArb,
    title,
    channelId: fc.option(fc.constantFrom(...channels.map((c) => c.id)), { nil: null }),
    videoIds:
      videos.length === 0
        ? fc.constant([])
        : fc.array(fc.constantFrom(...videos.map((v) => v.id)), { maxLength: 5 })
  })

/** Any valid catalogue: 1-3 channels, up to 6 videos, up to 3 playlists. */
export const catalogueArb: fc.Arbitrary<Catalogue> = fc
  .uniqueArray(channelArb, {
    minLength: 1,
    maxLength: 3,
    comparator: (a, b) => a.id === b.id || a.handle.toLowerCase() === b.handle.toLowerCase()
  })
  .chain((channels) =>
    fc
      .uniqueArray(videoArb(channels), { maxLength: 6, selector: (v) => v.id })
      .chain((videos) =>
        fc
          .uniqueArray(playlistArb(channels, videos), { maxLength: 3, selector: (p) => p.id })
          .map((playlists): Catalogue => ({ channels, videos, playlists }))
      )
  )
