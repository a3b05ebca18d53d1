/**
 * The demo video platform: `VideoPlatform` answered from a catalogue file. Every answer is
 * computed once when the catalogue loads, so a lookup is one Map access.
 *
 * - `video(id)`: the video's details; an id not in the catalogue, or a video marked `unavailable`,
 *   fails with `VideoUnavailable` (the reason is the catalogue's `unavailable` text).
 * - `captions(id, track)`: the segments of the video's track with the same kind and language
 *   (case-insensitive; the track name is not compared). A video that is unknown or unavailable
 *   fails with `VideoUnavailable`; a track the video does not have fails with
 *   `CaptionTrackNotFound`. The catalogue holds no translated text: `translateTo` fails with
 *   `TranslationUnavailable`, for languages the video lists as translation targets too.
 * - `playlist(id)` and `uploads(channelId)`: pages of `pageSize` videos (100 by default) with an
 *   opaque continuation token; an unknown playlist or channel fails with `CollectionNotFound`.
 * - `channel(ref)`: by id, or by handle with or without `@`, ignoring case; a legacy `/c/` or
 *   `/user/` name is looked up as a handle (the catalogue has no legacy names of its own).
 * - `audio(id)`: the duration limit is checked first (`DurationLimitExceeded`); a video with a
 *   `media` file streams it (read when the stream runs; its type from the extension), one without
 *   fails with `AudioUnavailable`, and so does every video when the platform was built without a
 *   media folder (`fromCatalogue` without `media`).
 */
import { FileSystem } from "@effect/platform"
import {
  AudioUnavailable,
  CaptionTrackNotFound,
  type ChannelDetails,
  CollectionNotFound,
  DurationLimitExceeded,
  type EgressBudget,
  type EgressRate,
  type PlatformError,
  PlatformFailure,
  TranslationUnavailable,
  type VideoDetails,
  type VideoEntry,
  VideoPlatform,
  VideoUnavailable
} from "@verbatim/core"
import { Captions, type Ids, Transcript } from "@verbatim/domain"
import { Duration, Effect, Layer, Option, Stream } from "effect"
import { type Catalogue, type CatalogueChannel, type CatalogueVideo, trackKey } from "./catalogue.js"
import { type CatalogueInvalid, loadCatalogue } from "./load.js"
import * as Lookup from "./lookup.js"
import { type CatalogueIndex, DemoCatalogue, indexCatalogue } from "./lookup.js"

type Answer<A> = Effect.Effect<A, PlatformError>

interface VideoAnswers {
  readonly details: Answer<VideoDetails>
  /** The segments of each track, by `trackKey`. */
  readonly tracks: ReadonlyMap<string, Answer<ReadonlyArray<Transcript.Segment>>>
  /** The media file of the video's audio, relative to the catalogue file. */
  readonly media: string | undefined
}

const details = (index: CatalogueIndex, video: CatalogueVideo): VideoDetails => ({
  id: video.id,
  title: video.title,
  durationSeconds: video.durationSeconds,
  channelId: video.channelId,
  channelTitle: index.channels.get(video.channelId)?.title ?? null,
  publishedAt: video.publishedAt,
  originalLanguage: video.originalLanguage,
  captionTracks: video.captionTracks.map(
    (t) => new Captions.CaptionTrack({ language: t.language, kind: t.kind, name: t.name ?? null })
  ),
  translationLanguages: video.translationLanguages
})

const answers = (index: CatalogueIndex, video: CatalogueVideo): VideoAnswers => {
  if (video.unavailable !== undefined) {
    const unavailable = Effect.fail(new VideoUnavailable({ videoId: video.id, reason: video.unavailable }))
    return { details: unavailable, tracks: new Map(), media: undefined }
  }
  return {
    media: video.media,
    details: Effect.succeed(details(index, video)),
    tracks: new Map(
      video.captionTracks.map((track) => [
        trackKey(track),
        Effect.succeed(
          track.segments.map((s) => new Transcript.Segment({ text: s.text, start: s.start, end: s.end }))
        )
      ])
    )
  }
}

export interface DemoOptions {
  /** Videos per playlist or uploads page (at least 1); 100 by default. */
  readonly pageSize?: number
  /** Where media paths are resolved (the catalogue file's folder), and the file system to read them. */
  readonly media?: { readonly dir: string; readonly fs: FileSystem.FileSystem }
  /**
   * Milliseconds added to every answer (0 by default): a platform as slow as a real one, for
   * benchmarks and fault tests (`VERBATIM_DEMO_LATENCY_MS`).
   */
  readonly latencyMs?: number
  /**
   * Every request first takes its slot in an egress budget (core's `EgressBudget`), as the YouTube
   * adapter's do: a platform with a rate, shared by every process on the same budget, for the fleet
   * bench (`VERBATIM_DEMO_PACE_MS`).
   */
  readonly pace?: {
    readonly budget: EgressBudget["Type"]
    readonly egress: string
    readonly rate: EgressRate
  }
}

const mediaTypes: Record<string, string> = {
  wav: "audio/wav",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  webm: "audio/webm",
  m4a: "audio/mp4",
  flac: "audio/flac"
}

const joinPath = (dir: string, file: string): string =>
  dir.length === 0 || dir.endsWith("/") ? `${dir}${file}` : `${dir}/${file}`

const continuationPrefix = "demo:"

const entry = (video: CatalogueVideo, withDate: boolean): VideoEntry => ({
  id: video.id,
  title: video.title,
  durationSeconds: video.durationSeconds,
  publishedAt: withDate ? video.publishedAt : null
})

const channelDetails = (channel: CatalogueChannel, index: CatalogueIndex): ChannelDetails => ({
  id: channel.id,
  title: channel.title,
  handle: channel.handle,
  subscriberCount: channel.subscriberCount,
  videoCount: Lookup.channelVideos(index, channel.id).length
})

/** The `VideoPlatform` service over an indexed catalogue, each answer `latencyMs` late (after its slot, when paced). */
export const make = (index: CatalogueIndex, options: DemoOptions = {}): VideoPlatform["Type"] => {
  const platform = makeInstant(index, options)
  const latency = Duration.millis(Math.max(0, Math.floor(options.latencyMs ?? 0)))
  const pace = options.pace
  if (Duration.isZero(latency) && pace === undefined) return platform
  const slot =
    pace === undefined
      ? Effect.void
      : Effect.flatMap(pace.budget.reserve(pace.egress, pace.rate), (wait) =>
          Duration.isZero(wait) ? Effect.void : Effect.sleep(wait)
        ).pipe(
          // When each request starts, for the fleet bench (which reads the workers' debug logs).
          Effect.zipRight(
            Effect.logDebug("demo platform: request").pipe(Effect.annotateLogs({ egress: pace.egress }))
          )
        )
  const late = <A, E>(answer: Effect.Effect<A, E>) =>
    Effect.zipRight(slot, Duration.isZero(latency) ? answer : Effect.delay(answer, latency))
  return {
    video: (id) => late(platform.video(id)),
    captions: (id, track, captionOptions) => late(platform.captions(id, track, captionOptions)),
    playlist: (id, continuation) => late(platform.playlist(id, continuation)),
    channel: (ref) => late(platform.channel(ref)),
    uploads: (id, continuation) => late(platform.uploads(id, continuation)),
    audio: (id, audioOptions) => late(platform.audio(id, audioOptions))
  }
}

const makeInstant = (index: CatalogueIndex, options: DemoOptions): VideoPlatform["Type"] => {
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? 100))
  const byId = new Map<string, VideoAnswers>(index.catalogue.videos.map((v) => [v.id, answers(index, v)]))
  const notFound = (id: string) =>
    Effect.fail(new VideoUnavailable({ videoId: id, reason: `video ${id} is not in the demo catalogue` }))

  /** The page of `items` a continuation token points at. */
  const page = <A>(items: ReadonlyArray<A>, continuation: string | undefined) => {
    const offset = continuation === undefined ? 0 : Number(continuation.slice(continuationPrefix.length))
    if (
      continuation !== undefined &&
      (!continuation.startsWith(continuationPrefix) || !Number.isSafeInteger(offset) || offset <= 0)
    ) {
      return Effect.fail(
        new PlatformFailure({ reason: `not a continuation of the demo platform: ${continuation}` })
      )
    }
    const end = offset + pageSize
    return Effect.succeed({
      items: items.slice(offset, end),
      continuation: end < items.length ? `${continuationPrefix}${end}` : null
    })
  }

  return {
    video: (id) => byId.get(id)?.details ?? notFound(id),
    captions: (id, track, captionOptions = {}) => {
      const video = byId.get(id)
      if (video === undefined) return notFound(id)
      const segments = video.tracks.get(trackKey(track))
      const translateTo = captionOptions.translateTo
      if (segments !== undefined && translateTo === undefined) return segments
      const missing: PlatformError =
        segments === undefined
          ? new CaptionTrackNotFound({ videoId: id, language: track.language, kind: track.kind })
          : new TranslationUnavailable({ videoId: id, language: translateTo ?? track.language })
      return Effect.flatMap(video.details, () => Effect.fail(missing))
    },
    playlist: (id, continuation) =>
      Effect.gen(function* () {
        const found = index.playlists.get(id)
        if (found === undefined) {
          return yield* new CollectionNotFound({
            kind: "playlist",
            id,
            reason: `playlist ${id} is not in the demo catalogue`
          })
        }
        const videos = Option.getOrElse(Lookup.playlistVideos(index, id), () => [])
        const { items, continuation: next } = yield* page(videos, continuation)
        return {
          id: found.id,
          title: found.title,
          channelId: found.channelId,
          channelTitle:
            found.channelId === null ? null : (index.channels.get(found.channelId)?.title ?? null),
          videoCount: found.videoIds.length,
          videos: items.map((v) => entry(v, false)),
          continuation: next
        }
      }),
    channel: (ref) => {
      const key = ref._tag === "Id" ? ref.id : ref._tag === "Handle" ? ref.handle : ref.name
      const found = Lookup.channel(index, key)
      return Option.match(found, {
        onSome: (c) => Effect.succeed(channelDetails(c, index)),
        onNone: () =>
          Effect.fail(
            new CollectionNotFound({
              kind: "channel",
              id: key,
              reason: `channel ${key} is not in the demo catalogue`
            })
          )
      })
    },
    uploads: (id: Ids.ChannelId, continuation?: string) =>
      Effect.gen(function* () {
        if (!index.channels.has(id)) {
          return yield* new CollectionNotFound({
            kind: "channel",
            id,
            reason: `channel ${id} is not in the demo catalogue`
          })
        }
        const { items, continuation: next } = yield* page(Lookup.channelVideos(index, id), continuation)
        return { channelId: id, videos: items.map((v) => entry(v, true)), continuation: next }
      }),
    audio: (id, { maxDurationSeconds }) =>
      Effect.gen(function* () {
        const video = yield* byId.get(id)?.details ?? notFound(id)
        const duration = video.durationSeconds ?? 0
        if (duration > maxDurationSeconds) {
          return yield* new DurationLimitExceeded({
            videoId: id,
            durationSeconds: duration,
            limitSeconds: maxDurationSeconds
          })
        }
        const media = byId.get(id)?.media
        const reader = options.media
        if (media === undefined || reader === undefined) {
          return yield* new AudioUnavailable({
            videoId: id,
            reason: "the demo catalogue holds no media for this video: only its captions can be read"
          })
        }
        const path = joinPath(reader.dir, media)
        const size = yield* reader.fs.stat(path).pipe(
          Effect.map((info) => Number(info.size)),
          Effect.mapError(
            (error) =>
              new AudioUnavailable({
                videoId: id,
                reason: `the media file ${media} cannot be read: ${error.message}`
              })
          )
        )
        const extension = media.split(".").pop()?.toLowerCase() ?? ""
        return {
          videoId: id,
          durationSeconds: duration,
          mimeType: mediaTypes[extension] ?? "application/octet-stream",
          contentLength: size,
          bytes: reader.fs.stream(path).pipe(
            Stream.mapError(
              (error): PlatformError =>
                new AudioUnavailable({
                  videoId: id,
                  reason: `the media file ${media} cannot be read: ${error.message}`
                })
            )
          )
        }
      })
  }
}

/** The demo platform over an already decoded catalogue (tests, tools); also provides `DemoCatalogue`. */
export const fromCatalogue = (
  catalogue: Catalogue,
  options: DemoOptions = {}
): Layer.Layer<VideoPlatform | DemoCatalogue> => {
  const index = indexCatalogue(catalogue)
  return Layer.merge(Layer.succeed(VideoPlatform, make(index, options)), Layer.succeed(DemoCatalogue, index))
}

/** The demo platform over the catalogue file at `path`, read and checked once when the layer builds. */
export const layer = (
  path: string,
  options: DemoOptions = {}
): Layer.Layer<VideoPlatform | DemoCatalogue, CatalogueInvalid, FileSystem.FileSystem> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const catalogue = yield* loadCatalogue(path)
      const slash = path.lastIndexOf("/")
      const dir = slash < 0 ? "." : path.slice(0, slash + 1)
      return fromCatalogue(catalogue, { media: { dir, fs }, ...options })
    })
  )
