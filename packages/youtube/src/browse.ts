/**
 * Playlists, channels and handles through innertube's WEB client: `browse` (a playlist as
 * `VL<id>`, a channel as its `UC…` id, its uploads as the playlist `UU…`), `browse` with a
 * continuation token for the next page, and `navigation/resolve_url` for @handles and legacy
 * `/c/` and `/user/` names. The channel's Atom feed dates its newest uploads.
 *
 * YouTube nests several nodes of one kind in one answer (continuation tokens in the grid and in
 * the header's engagement panels, metadata rows under every video and in the header), in an order
 * nobody promised; so each value is read from the place it belongs (the shown tab's list and its
 * own continuation item, the header's metadata rows), never as "the first (or last) X anywhere".
 * Inside those places the readers accept the renderers YouTube uses or used (`playlistVideoRenderer`,
 * `videoRenderer`, `lockupViewModel`...), and ignore every item they do not know.
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

const array = (value: Json): ReadonlyArray<Json> => (Array.isArray(value) ? value : [])

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

/** The clock badge of a lockup's thumbnail (`12:01`), from its overlays' badges. */
const lockupDuration = (lockup: JsonObject): number | null => {
  const overlays = array(get(lockup, "contentImage", "thumbnailViewModel", "overlays"))
  for (const overlay of overlays) {
    const badges = [
      ...array(get(overlay, "thumbnailOverlayBadgeViewModel", "thumbnailBadges")),
      ...array(get(overlay, "thumbnailBottomOverlayViewModel", "badges"))
    ]
    for (const badge of badges) {
      const seconds = clockSeconds(str(get(badge, "thumbnailBadgeViewModel", "text")))
      if (seconds !== null) return seconds
    }
  }
  return null
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

const videoKeys = [
  "playlistVideoRenderer",
  "videoRenderer",
  "gridVideoRenderer",
  "compactVideoRenderer",
  "lockupViewModel"
] as const

/**
 * The video renderer of an item of a list (`{videoRenderer}`, or wrapped as the Videos tab wraps
 * it, `{richItemRenderer: {content: {videoRenderer}}}`), whatever it holds; null for any other item.
 */
const videoItem = (item: Json): { readonly key: string; readonly node: JsonObject } | null => {
  if (!isObject(item)) return null
  for (const key of videoKeys) {
    const node = item[key]
    if (isObject(node)) return { key, node }
  }
  const wrapped = get(item, "richItemRenderer", "content")
  return isObject(wrapped) ? videoItem(wrapped) : null
}

/** The token of a list's `continuationItemRenderer` item (the "load more" at its end), if it is one. */
const continuationOf = (item: Json): string | null => {
  const renderer = get(item, "continuationItemRenderer")
  if (!isObject(renderer)) return null
  return (
    str(get(renderer, "continuationEndpoint", "continuationCommand", "token")) ??
    str(get(renderer, "button", "buttonRenderer", "command", "continuationCommand", "token")) ??
    str(find(renderer, "continuationCommand")?.token)
  )
}

/** Where in a browse answer the adapter looked, for the failure that says it found nothing there. */
export const listPaths = {
  first: "contents.twoColumnBrowseResultsRenderer.tabs[].tabRenderer.content",
  next: "onResponseReceivedActions[].appendContinuationItemsAction.continuationItems"
} as const

/** The content of the tab a first page shows: the selected tab, else the first tab with content. */
const tabContent = (answer: Json): Json => {
  const tabs = array(
    get(answer, "contents", "twoColumnBrowseResultsRenderer", "tabs") ??
      get(answer, "contents", "singleColumnBrowseResultsRenderer", "tabs")
  ).map((tab) => get(tab, "tabRenderer") ?? get(tab, "expandableTabRenderer"))
  const shown = tabs.find((tab) => get(tab, "selected") === true && isObject(get(tab, "content")))
  return get(shown ?? tabs.find((tab) => isObject(get(tab, "content"))), "content")
}

/**
 * The item lists of a tab's content, in the places YouTube puts them: the Videos tab's grid
 * (`richGridRenderer.contents`), a playlist's `playlistVideoListRenderer.contents` or an older
 * `gridRenderer.items` inside the sections of a `sectionListRenderer`, the sections' own items, and
 * the section list itself (whose last item may be the continuation of the sections).
 */
const contentLists = (content: Json): ReadonlyArray<ReadonlyArray<Json>> => {
  const lists: Array<ReadonlyArray<Json>> = []
  const add = (value: Json) => {
    if (Array.isArray(value)) lists.push(value)
  }
  add(get(content, "richGridRenderer", "contents"))
  add(get(content, "playlistVideoListRenderer", "contents"))
  const sections = get(content, "sectionListRenderer", "contents")
  for (const section of array(sections)) {
    const items = get(section, "itemSectionRenderer", "contents")
    for (const item of array(items)) {
      add(get(item, "playlistVideoListRenderer", "contents"))
      add(get(item, "gridRenderer", "items"))
      add(get(item, "richGridRenderer", "contents"))
    }
    add(items)
  }
  add(sections)
  return lists
}

/** The item lists of a continuation answer: what each action appends or reloads. */
const continuationLists = (answer: Json): ReadonlyArray<ReadonlyArray<Json>> => {
  const lists: Array<ReadonlyArray<Json>> = []
  const actions = [
    ...array(get(answer, "onResponseReceivedActions")),
    ...array(get(answer, "onResponseReceivedEndpoints"))
  ]
  for (const action of actions) {
    for (const value of [
      get(action, "appendContinuationItemsAction", "continuationItems"),
      get(action, "reloadContinuationItemsCommand", "continuationItems")
    ]) {
      if (Array.isArray(value)) lists.push(value)
    }
  }
  const older = get(answer, "continuationContents")
  for (const value of [
    get(older, "playlistVideoListContinuation", "contents"),
    get(older, "richGridContinuation", "contents"),
    get(older, "gridContinuation", "items")
  ]) {
    if (Array.isArray(value)) lists.push(value)
  }
  return lists
}

/**
 * Every array under `root` holding a video item, in document order: the reading of last resort,
 * for a container YouTube renamed (the items themselves keep their names longer).
 */
const anyLists = (root: Json): ReadonlyArray<ReadonlyArray<Json>> => {
  const lists: Array<ReadonlyArray<Json>> = []
  const visit = (node: Json): void => {
    if (Array.isArray(node)) {
      if (node.some((item) => videoItem(item) !== null)) lists.push(node)
      else for (const item of node) visit(item)
    } else if (isObject(node)) {
      for (const key of Object.keys(node)) visit(node[key])
    }
  }
  visit(root)
  return lists
}

export interface ListPage {
  readonly videos: ReadonlyArray<VideoEntry>
  readonly continuation: string | null
}

/**
 * The videos of the lists that hold videos and the token of their own continuation item: never a
 * token found elsewhere (the header's engagement panels carry tokens of their own, after the grid).
 * Without a list holding videos, the token of the first list that ends in one.
 */
const readLists = (lists: ReadonlyArray<ReadonlyArray<Json>>): ListPage => {
  const holding = lists.filter((list) => list.some((item) => videoItem(item) !== null))
  const videos: Array<VideoEntry> = []
  let continuation: string | null = null
  for (const list of holding) {
    for (const item of list) {
      const video = videoItem(item)
      const entry = video === null ? null : videoEntry(video.key, video.node)
      if (entry !== null) videos.push(entry)
      continuation = continuationOf(item) ?? continuation
    }
  }
  if (continuation === null && holding.length === 0) {
    for (const list of lists) {
      continuation = list.map(continuationOf).find((token) => token !== null) ?? null
      if (continuation !== null) break
    }
  }
  return { videos, continuation }
}

/**
 * The videos of a browse answer (a first page or a continuation) and the token of the next page,
 * read from the places they belong: the shown tab's list on a first page, the appended items on a
 * continuation. `null` when the answer is neither (the adapter cannot read it).
 */
export const listPage = (answer: Json): ListPage | null => {
  const appended = continuationLists(answer)
  if (appended.length > 0) return readLists(appended)
  const content = tabContent(answer)
  if (content === undefined) return null
  const lists = contentLists(content)
  const page = readLists(lists)
  return page.videos.length > 0 || page.continuation !== null ? page : readLists(anyLists(content))
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

/**
 * The title, owner and size of a playlist, from the first page of its browse answer: its header
 * (`playlistHeaderRenderer`, or the page header view model of newer pages), its metadata, and the
 * sidebar's primary and owner boxes.
 */
export const playlistHead = (answer: Json): PlaylistHead => {
  const header = get(answer, "header", "playlistHeaderRenderer")
  const page = get(answer, "header", "pageHeaderRenderer")
  const rows = get(page, "content", "pageHeaderViewModel", "metadata", "contentMetadataViewModel")
  const metadata = get(answer, "metadata", "playlistMetadataRenderer")
  const sidebar = array(get(answer, "sidebar", "playlistSidebarRenderer", "items"))
  const primary = sidebar.map((item) => get(item, "playlistSidebarPrimaryInfoRenderer")).find(isObject)
  const owner = sidebar
    .map((item) => get(item, "playlistSidebarSecondaryInfoRenderer", "videoOwner", "videoOwnerRenderer"))
    .find(isObject)
  const ownerRun = get(header, "ownerText", "runs", 0) ?? get(owner, "title", "runs", 0)
  const ownerId =
    str(get(ownerRun, "navigationEndpoint", "browseEndpoint", "browseId")) ??
    str(get(find(rows, "browseEndpoint"), "browseId"))
  const parts = metadataParts(rows)
  return {
    title: str(get(metadata, "title")) ?? text(get(header, "title")) ?? str(get(page, "pageTitle")) ?? null,
    channelId: ownerId !== null && isChannelId(ownerId) ? ownerId : null,
    channelTitle: text(get(ownerRun, "text")) ?? null,
    videoCount: countOf(
      text(get(header, "numVideosText")) ??
        text(get(primary, "stats", 0)) ??
        parts.find((p) => /\bvideos?\b/i.test(p)) ??
        null
    )
  }
}

/** The text of every part of a `contentMetadataViewModel`'s rows, in order. */
const metadataParts = (model: Json): ReadonlyArray<string> =>
  array(get(model, "metadataRows")).flatMap((row) =>
    array(get(row, "metadataParts")).flatMap((part) => {
      const value = text(get(part, "text"))
      return value === null ? [] : [value]
    })
  )

/**
 * The parts of a channel's page: title, handle and counts, each from the place it belongs: the
 * title from `metadata.channelMetadataRenderer`, the handle and counts from the header (the page
 * header view model's metadata rows, or the older `c4TabbedHeaderRenderer`), never from the
 * videos of `contents`, whose rows ("28 views • 13 days ago") come first in the document.
 */
export const channelHead = (answer: Json, requested: Ids.ChannelId): Omit<ChannelDetails, "id"> | null => {
  const metadata = get(answer, "metadata", "channelMetadataRenderer")
  const header = get(answer, "header")
  const c4 = get(header, "c4TabbedHeaderRenderer")
  const page = get(header, "pageHeaderRenderer")
  const model = get(page, "content", "pageHeaderViewModel")
  const title =
    str(get(metadata, "title")) ??
    text(get(c4, "title")) ??
    str(get(page, "pageTitle")) ??
    text(get(model, "title", "dynamicTextViewModel", "text")) ??
    null
  if (title === null || title.trim() === "") return null
  const parts = metadataParts(get(model, "metadata", "contentMetadataViewModel"))
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

/**
 * The age gate of a channel's page (`channelAgeGateRenderer` in its contents: YouTube shows the
 * channel only to signed-in adults), with the channel's title when it gives one.
 */
export const channelAgeGate = (answer: Json): { readonly title: string | null } | null => {
  const gate = find(get(answer, "contents"), "channelAgeGateRenderer")
  return gate === null ? null : { title: text(gate.channelTitle) }
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
