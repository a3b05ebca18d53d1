/**
 * The demo video platform: `VideoPlatform` answered from a catalogue file. Every answer is
 * computed once when the catalogue loads, so a lookup is one Map access.
 *
 * - `video(id)`: the video's details; an id not in the catalogue, or a video marked `unavailable`,
 *   fails with `VideoUnavailable` (the reason is the catalogue's `unavailable` text).
 * - `captions(id, track)`: the segments of the video's track with the same kind and language
 *   (case-insensitive; the track name is not compared). A video that is unknown or unavailable
 *   fails with `VideoUnavailable`; a track the video does not have fails with `PlatformFailure`,
 *   since the video itself plays and the track list the caller used is stale or not this video's.
 */
import type { FileSystem } from "@effect/platform"
import {
  type PlatformError,
  PlatformFailure,
  type VideoDetails,
  VideoPlatform,
  VideoUnavailable
} from "@verbatim/core"
import { Captions, Transcript } from "@verbatim/domain"
import { Effect, Layer } from "effect"
import { type Catalogue, type CatalogueVideo, trackKey } from "./catalogue.js"
import { type CatalogueInvalid, loadCatalogue } from "./load.js"
import { type CatalogueIndex, DemoCatalogue, indexCatalogue } from "./lookup.js"

type Answer<A> = Effect.Effect<A, PlatformError>

interface VideoAnswers {
  readonly details: Answer<VideoDetails>
  /** The segments of each track, by `trackKey`. */
  readonly tracks: ReadonlyMap<string, Answer<ReadonlyArray<Transcript.Segment>>>
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
    return { details: unavailable, tracks: new Map() }
  }
  return {
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

/** The `VideoPlatform` service over an indexed catalogue. */
export const make = (index: CatalogueIndex): VideoPlatform["Type"] => {
  const byId = new Map<string, VideoAnswers>(index.catalogue.videos.map((v) => [v.id, answers(index, v)]))
  const notFound = (id: string) =>
    Effect.fail(new VideoUnavailable({ videoId: id, reason: `video ${id} is not in the demo catalogue` }))
  return {
    video: (id) => byId.get(id)?.details ?? notFound(id),
    captions: (id, track) => {
      const video = byId.get(id)
      if (video === undefined) return notFound(id)
      const segments = video.tracks.get(trackKey(track))
      if (segments !== undefined) return segments
      return Effect.flatMap(video.details, () =>
        Effect.fail(
          new PlatformFailure({
            reason: `video ${id} has no ${track.kind} caption track in ${track.language}`
          })
        )
      )
    }
  }
}

/** The demo platform over an already decoded catalogue (tests, tools); also provides `DemoCatalogue`. */
export const fromCatalogue = (catalogue: Catalogue): Layer.Layer<VideoPlatform | DemoCatalogue> => {
  const index = indexCatalogue(catalogue)
  return Layer.merge(Layer.succeed(VideoPlatform, make(index)), Layer.succeed(DemoCatalogue, index))
}

/** The demo platform over the catalogue file at `path`, read and checked once when the layer builds. */
export const layer = (
  path: string
): Layer.Layer<VideoPlatform | DemoCatalogue, CatalogueInvalid, FileSystem.FileSystem> =>
  Layer.unwrapEffect(Effect.map(loadCatalogue(path), fromCatalogue))
