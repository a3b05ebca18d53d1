/**
 * The demo catalogue file: the videos (with their caption tracks), channels and playlists the demo
 * platform knows, as JSON with snake_case keys (camelCase once decoded). The schema checks every
 * rule a hand-written file can break, and `decodeCatalogue` reports all broken rules at once, one
 * line each, naming the JSON path: `videos[3].caption_tracks[0].segments[2]: end before start`.
 * The format is documented for people in docs/demo-catalogue.md.
 */
import { Captions, Ids, Language, Transcript } from "@verbatim/domain"
import { Either, ParseResult, Schema } from "effect"

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

/** An ISO 8601 date-time with a time and a zone (`2024-05-01T17:30:00Z`), decoded to a UTC instant. */
export const PublishedAt = Schema.compose(
  Schema.String.pipe(
    Schema.pattern(isoDateTime, {
      message: (issue) =>
        `Expected an ISO 8601 date-time with a zone, such as 2024-05-01T17:30:00Z, actual ${JSON.stringify(issue.actual)}`
    })
  ),
  Schema.DateTimeUtc
).annotations({ identifier: "PublishedAt" })

/** A timed line of a caption track, times in integer milliseconds; it may not end before it starts. */
export const CatalogueSegment = Schema.Struct({
  text: Schema.String,
  start: Transcript.Millis,
  end: Transcript.Millis
}).pipe(
  Schema.filter((s) => s.start <= s.end || `end before start (start ${s.start}, end ${s.end})`),
  Schema.annotations({ identifier: "CatalogueSegment" })
)
export type CatalogueSegment = typeof CatalogueSegment.Type

/** Segments sorted by start time (overlaps are allowed: auto captions roll over each other). */
const sortedSegments = Schema.Array(CatalogueSegment).pipe(
  Schema.filter((segments) =>
    segments.flatMap((segment, i) => {
      const previous = i > 0 ? segments[i - 1] : undefined
      return previous !== undefined && segment.start < previous.start
        ? [
            {
              path: [i],
              message: `starts before the segment above it (start ${segment.start} < ${previous.start}); segments must be sorted by start`
            }
          ]
        : []
    })
  )
)

/** One caption track of a video: its language, who made it, and its timed text. */
export const CatalogueTrack = Schema.Struct({
  language: Language.LanguageCode,
  kind: Captions.TrackKind,
  /** The track's display name on the platform (`English (United Kingdom)`). */
  name: Schema.optionalWith(Schema.String, { exact: true }),
  segments: sortedSegments
}).annotations({ identifier: "CatalogueTrack" })
export type CatalogueTrack = typeof CatalogueTrack.Type

/** The key that identifies a track within its video: its kind and its language, case-insensitively. */
export const trackKey = (track: { readonly kind: Captions.TrackKind; readonly language: string }): string =>
  `${track.kind}:${track.language.toLowerCase()}`

/** A video has at most one track of each kind in each language. */
const uniqueTracks = Schema.Array(CatalogueTrack).pipe(
  Schema.filter((tracks) => {
    const seen = new Map<string, number>()
    return tracks.flatMap((track, i) => {
      const key = trackKey(track)
      const first = seen.get(key)
      if (first === undefined) {
        seen.set(key, i)
        return []
      }
      return [
        {
          path: [i],
          message: `a second ${track.kind} track in ${track.language} (first at caption_tracks[${first}])`
        }
      ]
    })
  })
)

/** `NullOr(schema)` with one message instead of one per member (`Expected null` is no help). */
const nullOr = <A, I>(schema: Schema.Schema<A, I>, expected: string) =>
  Schema.NullOr(schema).annotations({
    message: (issue) => ({
      message: `Expected ${expected}, or null, actual ${JSON.stringify(issue.actual)}`,
      override: true
    })
  })

const HttpUrl = Schema.String.pipe(
  Schema.pattern(/^https?:\/\/\S+$/, {
    message: (issue) => `Expected an http(s) URL, actual ${JSON.stringify(issue.actual)}`
  })
)

/** A video of the catalogue. */
export const CatalogueVideo = Schema.Struct({
  id: Ids.VideoId,
  title: Schema.NonEmptyString,
  durationSeconds: Schema.propertySignature(Schema.NonNegativeInt).pipe(Schema.fromKey("duration_seconds")),
  /** Must name a channel of the catalogue. */
  channelId: Schema.propertySignature(Ids.ChannelId).pipe(Schema.fromKey("channel_id")),
  publishedAt: Schema.propertySignature(PublishedAt).pipe(Schema.fromKey("published_at")),
  /** The spoken language, or null when the platform does not know it. */
  originalLanguage: Schema.propertySignature(
    nullOr(Language.LanguageCode, "a language code such as en or pt-BR")
  ).pipe(Schema.fromKey("original_language")),
  /** Empty for a video without captions (one that needs speech recognition). */
  captionTracks: Schema.propertySignature(uniqueTracks).pipe(Schema.fromKey("caption_tracks")),
  /** Languages the platform can translate this video's captions into. */
  translationLanguages: Schema.propertySignature(Schema.Array(Language.LanguageCode)).pipe(
    Schema.fromKey("translation_languages")
  ),
  /**
   * The video's audio: a media file, its path relative to the catalogue file (`../media/welcome.wav`).
   * Without it the platform answers `AudioUnavailable` for the video's audio.
   */
  media: Schema.optionalWith(
    Schema.NonEmptyString.pipe(
      Schema.filter((p) => !p.startsWith("/") || "a media path is relative to the catalogue file")
    ),
    { exact: true }
  ),
  /** When present the video cannot be watched (private, removed...): the platform answers VideoUnavailable with this reason. */
  unavailable: Schema.optionalWith(Schema.NonEmptyString, { exact: true }),
  thumbnailUrl: Schema.optionalWith(HttpUrl, { exact: true }).pipe(Schema.fromKey("thumbnail_url"))
}).annotations({ identifier: "CatalogueVideo" })
export type CatalogueVideo = typeof CatalogueVideo.Type

/** A channel of the catalogue. */
export const CatalogueChannel = Schema.Struct({
  id: Ids.ChannelId,
  title: Schema.NonEmptyString,
  /** The public handle without the leading `@`; unique in the catalogue, case-insensitively. */
  handle: Ids.ChannelHandle,
  subscriberCount: Schema.propertySignature(Schema.NonNegativeInt).pipe(Schema.fromKey("subscriber_count"))
}).annotations({ identifier: "CatalogueChannel" })
export type CatalogueChannel = typeof CatalogueChannel.Type

/** A playlist of the catalogue: videos in order (a video may appear more than once). */
export const CataloguePlaylist = Schema.Struct({
  id: Ids.PlaylistId,
  title: Schema.NonEmptyString,
  /** The owning channel, or null for a playlist no channel of the catalogue owns. */
  channelId: Schema.propertySignature(
    nullOr(Ids.ChannelId, "a channel id (UC followed by 22 characters)")
  ).pipe(Schema.fromKey("channel_id")),
  /** Each must name a video of the catalogue. */
  videoIds: Schema.propertySignature(Schema.Array(Ids.VideoId)).pipe(Schema.fromKey("video_ids"))
}).annotations({ identifier: "CataloguePlaylist" })
export type CataloguePlaylist = typeof CataloguePlaylist.Type

interface PathIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** Issues for every id that appears a second time (compared by `key`). */
const duplicates = <A>(
  items: ReadonlyArray<A>,
  list: string,
  field: string,
  id: (item: A) => string,
  key: (id: string) => string = (s) => s
): ReadonlyArray<PathIssue> => {
  const seen = new Map<string, number>()
  return items.flatMap((item, i) => {
    const value = id(item)
    const first = seen.get(key(value))
    if (first === undefined) {
      seen.set(key(value), i)
      return []
    }
    return [{ path: [list, i, field], message: `duplicate ${field} ${value} (first at ${list}[${first}])` }]
  })
}

const crossReferences = (catalogue: {
  readonly channels: ReadonlyArray<CatalogueChannel>
  readonly videos: ReadonlyArray<CatalogueVideo>
  readonly playlists: ReadonlyArray<CataloguePlaylist>
}): ReadonlyArray<PathIssue> => {
  const channelIds = new Set<string>(catalogue.channels.map((c) => c.id))
  const videoIds = new Set<string>(catalogue.videos.map((v) => v.id))
  return [
    ...duplicates(catalogue.channels, "channels", "id", (c) => c.id),
    ...duplicates(
      catalogue.channels,
      "channels",
      "handle",
      (c) => c.handle,
      (h) => h.toLowerCase()
    ),
    ...duplicates(catalogue.videos, "videos", "id", (v) => v.id),
    ...duplicates(catalogue.playlists, "playlists", "id", (p) => p.id),
    ...catalogue.videos.flatMap((video, i) =>
      channelIds.has(video.channelId)
        ? []
        : [{ path: ["videos", i, "channel_id"], message: `no channel ${video.channelId} in channels` }]
    ),
    ...catalogue.playlists.flatMap((playlist, i) => [
      ...(playlist.channelId === null || channelIds.has(playlist.channelId)
        ? []
        : [
            { path: ["playlists", i, "channel_id"], message: `no channel ${playlist.channelId} in channels` }
          ]),
      ...playlist.videoIds.flatMap((videoId, j) =>
        videoIds.has(videoId)
          ? []
          : [{ path: ["playlists", i, "video_ids", j], message: `no video ${videoId} in videos` }]
      )
    ])
  ]
}

/**
 * A whole catalogue. Besides each field's own rule: ids are unique within channels, videos and
 * playlists; handles are unique case-insensitively; every channel and video a record names exists.
 */
export const Catalogue = Schema.Struct({
  channels: Schema.Array(CatalogueChannel),
  videos: Schema.Array(CatalogueVideo),
  playlists: Schema.Array(CataloguePlaylist)
}).pipe(Schema.filter(crossReferences), Schema.annotations({ identifier: "Catalogue" }))
export type Catalogue = typeof Catalogue.Type
/** The catalogue as its JSON file holds it. */
export type CatalogueJson = typeof Catalogue.Encoded

/** At most this many problems are listed in a message; the rest are counted. */
export const maxListedIssues = 20

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`
    const name = String(key)
    return out === "" ? name : `${out}.${name}`
  }, "")

/** One line per problem: `videos[3].caption_tracks[0].segments[2]: end before start`. */
export const formatIssues = (error: ParseResult.ParseError): ReadonlyArray<string> => {
  const lines = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => {
    const where = formatPath(issue.path)
    return where === "" ? issue.message : `${where}: ${issue.message}`
  })
  return lines.length <= maxListedIssues
    ? lines
    : [...lines.slice(0, maxListedIssues), `... and ${lines.length - maxListedIssues} more`]
}

const decode = Schema.decodeUnknownEither(Catalogue, { errors: "all", onExcessProperty: "error" })

/**
 * Decodes parsed JSON into a catalogue, or the list of every broken rule (one line each, naming its
 * path). Unknown keys are refused, so a misspelt optional key (`thumbnail_ur`) cannot pass unnoticed.
 */
export const decodeCatalogue = (json: unknown): Either.Either<Catalogue, ReadonlyArray<string>> =>
  Either.mapLeft(decode(json), formatIssues)

/** The JSON form of a catalogue (what `decodeCatalogue` reads back). */
export const encodeCatalogue = (catalogue: Catalogue): Either.Either<CatalogueJson, ReadonlyArray<string>> =>
  Either.mapLeft(Schema.encodeEither(Catalogue)(catalogue), formatIssues)
