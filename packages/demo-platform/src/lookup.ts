/**
 * A loaded catalogue with its indexes, built once: Map lookups by video, channel (id or handle)
 * and playlist, and each channel's videos newest first. The read helpers return the catalogue's
 * records as written: they apply no visibility rule (an `unavailable` video is still listed; the
 * caller decides what to show).
 */
import { Context, DateTime, Option } from "effect"
import type { Catalogue, CatalogueChannel, CataloguePlaylist, CatalogueVideo } from "./catalogue.js"

export interface CatalogueIndex {
  readonly catalogue: Catalogue
  readonly videos: ReadonlyMap<string, CatalogueVideo>
  readonly channels: ReadonlyMap<string, CatalogueChannel>
  /** Channels by lower-cased handle. */
  readonly handles: ReadonlyMap<string, CatalogueChannel>
  readonly playlists: ReadonlyMap<string, CataloguePlaylist>
  /** Each channel's videos, newest first (catalogue order among equal dates). */
  readonly channelVideos: ReadonlyMap<string, ReadonlyArray<CatalogueVideo>>
}

/** Builds the indexes of a decoded catalogue (ids are unique there, so no entry is shadowed). */
export const indexCatalogue = (catalogue: Catalogue): CatalogueIndex => {
  const byChannel = new Map<string, Array<CatalogueVideo>>(catalogue.channels.map((c) => [c.id, []]))
  for (const video of catalogue.videos) byChannel.get(video.channelId)?.push(video)
  for (const videos of byChannel.values()) {
    videos.sort((a, b) => DateTime.toEpochMillis(b.publishedAt) - DateTime.toEpochMillis(a.publishedAt))
  }
  return {
    catalogue,
    videos: new Map(catalogue.videos.map((v) => [v.id, v])),
    channels: new Map(catalogue.channels.map((c) => [c.id, c])),
    handles: new Map(catalogue.channels.map((c) => [c.handle.toLowerCase(), c])),
    playlists: new Map(catalogue.playlists.map((p) => [p.id, p])),
    channelVideos: byChannel
  }
}

/** The loaded demo catalogue, provided beside the `VideoPlatform` by `DemoPlatform.layer`. */
export class DemoCatalogue extends Context.Tag("@verbatim/demo-platform/DemoCatalogue")<
  DemoCatalogue,
  CatalogueIndex
>() {}

/** A video of the catalogue by id (ids are case-sensitive). */
export const video = (index: CatalogueIndex, id: string): Option.Option<CatalogueVideo> =>
  Option.fromNullable(index.videos.get(id))

/** A playlist by id. */
export const playlist = (index: CatalogueIndex, id: string): Option.Option<CataloguePlaylist> =>
  Option.fromNullable(index.playlists.get(id))

/** A playlist's videos in playlist order (repeats kept), or none for an unknown playlist. */
export const playlistVideos = (
  index: CatalogueIndex,
  id: string
): Option.Option<ReadonlyArray<CatalogueVideo>> =>
  Option.map(playlist(index, id), (p) =>
    p.videoIds.flatMap((videoId) => {
      const found = index.videos.get(videoId)
      return found === undefined ? [] : [found]
    })
  )

/**
 * A channel by id (`UC…`) or by handle, with or without the leading `@`, case-insensitively
 * (`@NorthwindTalks` finds the handle `northwindtalks`).
 */
export const channel = (index: CatalogueIndex, idOrHandle: string): Option.Option<CatalogueChannel> => {
  const byId = index.channels.get(idOrHandle)
  if (byId !== undefined) return Option.some(byId)
  const handle = idOrHandle.startsWith("@") ? idOrHandle.slice(1) : idOrHandle
  return Option.fromNullable(index.handles.get(handle.toLowerCase()))
}

/** A channel's videos, newest first; empty for an unknown channel. */
export const channelVideos = (index: CatalogueIndex, channelId: string): ReadonlyArray<CatalogueVideo> =>
  index.channelVideos.get(channelId) ?? []
