/**
 * Playlists, channels and handles through innertube's WEB client: `browse` (a playlist as
 * `VL<id>`, a channel as its `UC…` id, its uploads as the playlist `UU…`), `browse` with a
 * continuation token for the next page, and `navigation/resolve_url` for @handles and legacy
 * `/c/` and `/user/` names. The channel's Atom feed dates its newest uploads.
 *
 * YouTube moves its renderers around often, so the readers walk the whole answer for the nodes
 * they know (`playlistVideoRenderer`, `videoRenderer`, `lockupViewModel`,
 * `continuationItemRenderer`...) instead of following one fixed path.
 */
import type { ChannelDetails, VideoEntry } from "@verbatim/core"
import { Ids } from "@verbatim/domain"
import { DateTime, Option, Schema } from "effect"
import { origin } from "./player.js"
import { decodeEntities } from "./text.js"

export const webClient = { clientName: "WEB", clientVersion: "2.20250610.00.00" } as const

export const browseUrl = `${origin}/youtubei/v1/browse?prettyPrint=false`
export const resolveUrl = `${origin}/youtubei/v1/navigation/resolve_url?prettyPrint=false`
export const feedUrl = (channelId: string): string => `${origin}/feeds/videos.xml?channel_id=${channelId}`

export const webHeaders: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  "x-youtube-client-name": "1",
  "x-youtube-client-version": webClient.clientVersion,
  origin
}

const context = { client: { ...webClient, hl: "en", gl: "US" } }

export const browseBody = (
  fields: { readonly browseId: string } | { readonly continuation: string }
): string => JSON.stringify({ context, ...fields })

export const resolveBody = (url: string): string => JSON.stringify({ context, url })

type Json = unknown
type JsonObject = { readonly [key: string]: Json }

const isObject = (value: Json): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const get = (value: Json, ...path: ReadonlyArray<string | number>): Json => {
  let node = value
  for (const key of path) {
    if (typeof key === "number") node = Array.isArray(node) ? node[key] : undefined
    else node = isObject(node) ? node[key] : undefined
  }
  return node
}

const str = (value: Json): string | null => (typeof value === "string" ? value : null)

/** The text of a `{simpleText}`, `{runs: [{text}]}` or `{content}` node. */
const text = (value: Json): string | null => {
  if (typeof value === "string") return value
  if (!isObject(value)) return null
  const simple = str(value.simpleText) ?? str(value.content)
  if (simple !== null) return simple
  const runs = value.runs
  return Array.isArray(runs) ? runs.map((r) => str(get(r, "text")) ?? "").join("") : null
}

/** Visits every object of `root` under a key, depth first, in document order. */
const walk = (root: Json, visit: (key: string, value: JsonObject) => boolean): void => {
  const stack: Array<Json> = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i])
    } else if (isObject(node)) {
      const keys = Object.keys(node)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string
        const child = node[key]
        // `visit` answers whether to look inside the node.
        if (!isObject(child) || visit(key, child)) stack.push(child)
      }
    }
  }
}

/** The first object under `key` anywhere in `root`. */
const find = (root: Json, key: string): JsonObject | null => {
  let found: JsonObject | null = null
  walk(root, (k, value) => {
    if (found !== null) return false
    if (k === key) found = value
    return found === null
  })
  return found
}

const isVideoId = Schema.is(Ids.VideoId)
const isChannelId = Schema.is(Ids.ChannelId)
const isHandle = Schema.is(Ids.ChannelHandle)

/** `1:02:03`, `5:16` or `42` as seconds. */
export const clockSeconds = (value: string | null): number | null => {
  if (value === null || !/^\d+(:\d{1,2}){0,2}$/.test(value.trim())) return null
  return value
    .trim()
    .split(":")
    .reduce((total, part) => total * 60 + Number(part), 0)
}

/** `1.23M subscribers`, `12K videos`, `1,234 videos`, `No videos` as a number. */
export const countOf = (value: string | null): number | null => {
  if (value === null) return null
  if (/^\s*no\b/i.test(value)) return 0
  const match = /([\d][\d,.]*)\s*([KMB])?/i.exec(value)
  if (match === null) return null
  const scale = { K: 1e3, M: 1e6, B: 1e9 }[(match[2] ?? "").toUpperCase() as "K" | "M" | "B"] ?? 1
  const n = Number((match[1] ?? "").replace(/,/g, ""))
  return Number.isFinite(n) ? Math.round(n * scale) : null
}

const lockupDuration = (lockup: JsonObject): number | null => {
  let seconds: number | null = null
  walk(lockup, (key, value) => {
    if (seconds === null && key === "thumbnailBadgeViewModel") seconds = clockSeconds(str(value.text))
    return seconds === null
  })
  return seconds
}

const videoEntry = (key: string, node: JsonObject): VideoEntry | null => {
  switch (key) {
    case "playlistVideoRenderer":
    case "videoRenderer":
    case "gridVideoRenderer":
    case "compactVideoRenderer": {
      const id = str(node.videoId)
      if (id === null || !isVideoId(id) || node.isPlayable === false) return null
      const length = str(node.lengthSeconds)
      return {
        id,
        title: text(node.title)?.trim() || null,
        durationSeconds:
          length !== null && /^\d+$/.test(length) ? Number(length) : clockSeconds(text(node.lengthText)),
        publishedAt: null
      }
    }
    case "lockupViewModel": {
      const id = str(node.contentId)
      if (id === null || !isVideoId(id) || str(node.contentType) !== "LOCKUP_CONTENT_TYPE_VIDEO") return null
      return {
        id,
        title: text(get(node, "metadata", "lockupMetadataViewModel", "title"))?.trim() || null,
        durationSeconds: lockupDuration(node),
        publishedAt: null
      }
    }
    default:
      return null
  }
}

const videoKeys = new Set([
  "playlistVideoRenderer",
  "videoRenderer",
  "gridVideoRenderer",
  "compactVideoRenderer",
  "lockupViewModel"
])

/** The videos of a browse answer (first page or continuation) and the token of the next page. */
export const listPage = (
  answer: Json
): { videos: ReadonlyArray<VideoEntry>; continuation: string | null } => {
  const videos: Array<VideoEntry> = []
  let continuation: string | null = null
  walk(answer, (key, value) => {
    if (videoKeys.has(key)) {
      const entry = videoEntry(key, value)
      if (entry !== null) videos.push(entry)
      return false
    }
    if (key === "continuationItemRenderer") {
      const token = str(find(value, "continuationCommand")?.token)
      if (token !== null) continuation = token
      return false
    }
    return true
  })
  return { videos, continuation }
}

/** An error alert of a browse answer ("The playlist does not exist."), if it has one. */
export const errorAlert = (answer: Json): string | null => {
  const alerts = get(answer, "alerts")
  if (!Array.isArray(alerts)) return null
  for (const alert of alerts) {
    const renderer = get(alert, "alertRenderer") ?? get(alert, "alertWithButtonRenderer")
    if (str(get(renderer, "type")) === "ERROR")
      return text(get(renderer, "text")) ?? "YouTube reports an error"
  }
  return null
}

export interface PlaylistHead {
  readonly title: string | null
  readonly channelId: Ids.ChannelId | null
  readonly channelTitle: string | null
  readonly videoCount: number | null
}

/** The title, owner and size of a playlist, from the first page of its browse answer. */
export const playlistHead = (answer: Json): PlaylistHead => {
  const header = find(answer, "playlistHeaderRenderer")
  const metadata = find(answer, "playlistMetadataRenderer")
  const primary = find(answer, "playlistSidebarPrimaryInfoRenderer")
  const owner = find(answer, "videoOwnerRenderer")
  const ownerRun = get(header, "ownerText", "runs", 0) ?? get(owner, "title", "runs", 0)
  const ownerId = str(get(ownerRun, "navigationEndpoint", "browseEndpoint", "browseId"))
  const stats = get(primary, "stats", 0)
  return {
    title:
      str(get(metadata, "title")) ??
      text(get(header, "title")) ??
      str(get(find(answer, "pageHeaderRenderer"), "pageTitle")) ??
      null,
    channelId: ownerId !== null && isChannelId(ownerId) ? ownerId : null,
    channelTitle: text(get(ownerRun, "text")) ?? null,
    videoCount: countOf(text(get(header, "numVideosText")) ?? text(stats))
  }
}

/** The parts of a channel's page: title, id, handle and counts. */
export const channelHead = (answer: Json, requested: Ids.ChannelId): Omit<ChannelDetails, "id"> | null => {
  const metadata = find(answer, "channelMetadataRenderer")
  const c4 = find(answer, "c4TabbedHeaderRenderer")
  const title = str(get(metadata, "title")) ?? text(get(c4, "title")) ?? null
  if (title === null || title.trim() === "") return null
  const parts: Array<string> = []
  const rows = find(answer, "contentMetadataViewModel")
  walk(rows, (key, value) => {
    if (key === "text") {
      const part = text(value)
      if (part !== null) parts.push(part)
      return false
    }
    return true
  })
  const vanity = str(get(metadata, "vanityChannelUrl")) ?? ""
  const handleText =
    text(get(c4, "channelHandleText")) ??
    parts.find((p) => p.trim().startsWith("@")) ??
    /\/@([A-Za-z0-9._-]+)/.exec(vanity)?.[0]?.slice(1) ??
    null
  const handle = handleText?.trim().replace(/^\/?@/, "") ?? null
  const subscribers = text(get(c4, "subscriberCountText")) ?? parts.find((p) => /subscriber/i.test(p)) ?? null
  const videos = text(get(c4, "videosCountText")) ?? parts.find((p) => /\bvideos?\b/i.test(p)) ?? null
  const externalId = str(get(metadata, "externalId"))
  if (externalId !== null && externalId !== requested) return null
  return {
    title: decodeEntities(title.trim()),
    handle: handle !== null && isHandle(handle) ? handle : null,
    subscriberCount: countOf(subscribers),
    videoCount: countOf(videos)
  }
}

/** The channel id a `resolve_url` answer points at, if it points at a channel. */
export const resolvedChannel = (answer: Json): Ids.ChannelId | null => {
  const id = str(get(answer, "endpoint", "browseEndpoint", "browseId"))
  return id !== null && isChannelId(id) ? id : null
}

/** The publication dates of a channel's Atom feed (its newest uploads), by video id. */
export const feedDates = (xml: string): ReadonlyMap<string, DateTime.Utc> => {
  const dates = new Map<string, DateTime.Utc>()
  for (const entry of xml.matchAll(/<entry\b[\s\S]*?<\/entry>/g)) {
    const id = /<yt:videoId>([^<]+)<\/yt:videoId>/.exec(entry[0])?.[1]?.trim()
    const published = /<published>([^<]+)<\/published>/.exec(entry[0])?.[1]?.trim()
    if (id === undefined || published === undefined) continue
    const date = DateTime.make(published)
    if (Option.isSome(date)) dates.set(id, DateTime.toUtc(date.value))
  }
  return dates
}
