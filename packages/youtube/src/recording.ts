/**
 * Recording the answers the adapter gets from YouTube, so the replay set can be refreshed by anyone
 * with internet access (`pnpm --filter @verbatim/youtube record <url>...`, `scripts/record.ts`):
 *
 * - `recordingFetch` wraps a real `fetch` and keeps every exchange (the adapter's own requests, as
 *   it makes them);
 * - `scrub` removes what identifies the recorder before anything is written: cookies and visitor
 *   data, IP addresses, session and tracking tokens, and the signatures and proof-of-origin
 *   tokens of media URLs;
 * - `fileNameOf` names each answer by what it is (`player_<id>.json`, `browse_<id>.json`...), so
 *   the property tests read it like the other recordings, and `recordedFrom` replays a folder of
 *   them through `replayFetch`.
 *
 * Continuation tokens are kept: they carry the list and the position, not the recorder, and the
 * replay needs them to chain pages.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { collectPlaylist, collectUploads, VideoPlatform } from "@verbatim/core"
import { type Ids, Reference } from "@verbatim/domain"
import { Effect, Either, Layer } from "effect"
import { defaultSettings, type YouTubeSettings } from "./config.js"
import * as YouTubePlatform from "./platform.js"
import type { Answer, RecordedRequest, Recording } from "./testing.js"
import { type FetchLike, YouTubeFetch } from "./transport.js"

/** One request the adapter made and what YouTube answered, scrubbed. */
export interface Exchange {
  readonly method: string
  readonly url: string
  /** The request body (JSON for innertube calls), empty for a GET. */
  readonly body: string
  readonly status: number
  readonly contentType: string
  /** The file the answer's body is written to, in the recording's folder. */
  readonly file: string
}

const scrubbed = "SCRUBBED"

/** JSON (or ytcfg) keys whose string values identify the recorder or its session. */
const secretKeys = [
  "visitorData",
  "VISITOR_DATA",
  "VISITOR_INFO1_LIVE",
  "rolloutToken",
  "remoteHost",
  "INNERTUBE_API_KEY",
  "XSRF_TOKEN",
  "xsrf_token",
  "ID_TOKEN",
  "DELEGATED_SESSION_ID",
  "SESSION_INDEX",
  "datasyncId",
  "DATASYNC_ID",
  "poToken",
  "serializedExperimentIds",
  "serializedExperimentFlags",
  "clickTrackingParams",
  "trackingParams",
  "coldConfigData",
  "coldHashData",
  "hotHashData",
  "appInstallData",
  "cookie",
  "Cookie",
  "set-cookie",
  "Set-Cookie"
] as const

/** Query parameters of URLs that identify the recorder or sign its session. */
const secretParams = ["ip", "ei", "sig", "lsig", "signature", "pot", "pcm2", "cpn", "vprv", "rqh"] as const

const keyPattern = new RegExp(`("(?:${secretKeys.join("|")})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "g")
const paramPattern = new RegExp(`([?&](?:${secretParams.join("|")})=)[^&"'\\s<\\\\]*`, "g")
/** `\u0026ip=…` inside JSON strings of HTML pages. */
const escapedParamPattern = new RegExp(`(\\\\u0026(?:${secretParams.join("|")})=)[^&"'\\s<\\\\]*`, "g")
/** A cookie header line, should one be written into a text. */
const cookiePattern = /^((?:set-)?cookie:[ \t]*).*$/gim
const ipv4Pattern = /\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b/g
const ipv6Pattern = /\b(?:[0-9a-f]{1,4}:){4,7}[0-9a-f]{1,4}\b/gi
const encodedIpv6Pattern = /\b(?:[0-9a-f]{1,4}%3A){4,7}[0-9a-f]{1,4}\b/gi

/**
 * The text of an answer (or a request) without what identifies the recorder: the values of the
 * secret keys, the secret URL parameters, cookies, and every IPv4 or IPv6 address. Pure and
 * idempotent; valid JSON stays valid JSON.
 */
export const scrub = (text: string): string =>
  text
    .replace(keyPattern, `$1"${scrubbed}"`)
    .replace(paramPattern, `$1${scrubbed}`)
    .replace(escapedParamPattern, `$1${scrubbed}`)
    .replace(cookiePattern, `$1${scrubbed}`)
    .replace(encodedIpv6Pattern, "0%3A0%3A0%3A0%3A0")
    .replace(ipv6Pattern, "0:0:0:0:0")
    .replace(ipv4Pattern, "0.0.0.0")

const jsonField = (body: string, field: string): string | null => {
  try {
    const value: unknown = JSON.parse(body)
    if (typeof value === "object" && value !== null && field in value) {
      const found = (value as Record<string, unknown>)[field]
      return typeof found === "string" ? found : null
    }
  } catch {
    return null
  }
  return null
}

const safe = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60)

/**
 * The file an answer is written to, named by what it is (`n` tells apart answers that would share
 * a name, such as two continuation pages).
 */
export const fileNameOf = (request: { readonly url: string; readonly body: string }, n: number): string => {
  const url = new URL(request.url)
  const path = url.pathname
  if (path === "/youtubei/v1/player")
    return `player_${safe(jsonField(request.body, "videoId") ?? `${n}`)}.json`
  if (path === "/youtubei/v1/browse") {
    const id = jsonField(request.body, "browseId")
    return id === null ? `browse_continuation_${n}.json` : `browse_${safe(id)}.json`
  }
  if (path === "/youtubei/v1/navigation/resolve_url") return `resolve_url_${n}.json`
  if (path === "/watch") return `watch_${safe(url.searchParams.get("v") ?? `${n}`)}.html`
  if (path === "/api/timedtext") {
    const p = url.searchParams
    return `timedtext_${safe(p.get("v") ?? "")}_${safe(p.get("lang") ?? "")}_${p.get("kind") ?? "manual"}${p.has("tlang") ? `_tlang_${safe(p.get("tlang") ?? "")}` : ""}.json3`
  }
  if (path === "/feeds/videos.xml") return `feed_${safe(url.searchParams.get("channel_id") ?? `${n}`)}.xml`
  return `other_${n}.txt`
}

/**
 * A `fetch` that keeps every exchange it passes to `inner`, scrubbed. Media (googlevideo) is passed
 * through and not kept: the replay generates audio bytes.
 */
export const recordingFetch = (
  inner: FetchLike
): {
  readonly fetch: FetchLike
  readonly exchanges: () => ReadonlyArray<Exchange & { readonly text: string }>
} => {
  const kept: Array<Exchange & { readonly text: string }> = []
  const fetch: FetchLike = async (request) => {
    const body = request.method === "GET" ? "" : await request.clone().text()
    const response = await inner(request)
    if (new URL(request.url).hostname.endsWith(".googlevideo.com")) return response
    const text = await response.clone().text()
    const n = kept.length + 1
    const named = fileNameOf({ url: request.url, body }, n)
    const file = kept.some((e) => e.file === named) ? named.replace(/(\.[a-z0-9]+)$/, `_${n}$1`) : named
    kept.push({
      method: request.method,
      url: scrub(request.url),
      body: scrub(body),
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      file,
      text: scrub(text)
    })
    return response
  }
  return { fetch, exchanges: () => kept }
}

/** The part of a request a recording is matched on: method, path, and what names the answer. */
export const requestKey = (request: {
  readonly method: string
  readonly url: string
  readonly body: string
}) => {
  const url = new URL(request.url)
  const named = ["videoId", "browseId", "continuation", "url"]
    .map((field) => jsonField(request.body, field))
    .filter((value) => value !== null)
  const query = ["v", "lang", "kind", "tlang", "channel_id"]
    .map((name) => url.searchParams.get(name))
    .filter((value) => value !== null)
  return [request.method, url.hostname, url.pathname, ...named, ...query].join(" ")
}

/**
 * Recordings replaying a recorded folder: each request answered with the recorded answer of the
 * same key (`requestKey`); `read` gives a file's text.
 */
export const recordedFrom = (
  exchanges: ReadonlyArray<Exchange>,
  read: (file: string) => string
): ReadonlyArray<Recording> =>
  exchanges.map((exchange) => {
    const key = requestKey(exchange)
    return {
      match: (r: RecordedRequest) =>
        requestKey({ method: r.method, url: r.url.toString(), body: r.body }) === key,
      answer: (): Answer => ({
        status: exchange.status,
        headers: exchange.contentType === "" ? {} : { "content-type": exchange.contentType },
        body: read(exchange.file)
      })
    }
  })

/** What a URL given to the recorder names. */
export type Target =
  | { readonly _tag: "Video"; readonly id: Ids.VideoId }
  | { readonly _tag: "Playlist"; readonly id: Ids.PlaylistId }
  | { readonly _tag: "Channel"; readonly ref: Reference.ChannelRef }

/** A video (watch URL, youtu.be, id), else a playlist, else a channel (URL, @handle, id). */
export const targetOf = (input: string): Either.Either<Target, string> =>
  Either.orElse(
    Either.map(Reference.parseVideo(input), (id): Target => ({ _tag: "Video", id })),
    () =>
      Either.orElse(
        Either.map(Reference.parsePlaylist(input), (id): Target => ({ _tag: "Playlist", id })),
        () =>
          Either.mapBoth(Reference.parseChannel(input), {
            onLeft: () => `${input} is not a YouTube video, playlist or channel`,
            onRight: (ref): Target => ({ _tag: "Channel", ref })
          })
      )
  )

/** At most this many videos of a list are walked (its pages are recorded as they come). */
export const recordListLimit = 500

/**
 * What the adapter asks YouTube for a target: a video's details and each caption track's text; a
 * playlist's pages; a channel's page and its uploads' pages. A failure is logged and recorded too
 * (an answer YouTube refuses is a recording worth having).
 */
const askFor = (target: Target) =>
  Effect.gen(function* () {
    const platform = yield* VideoPlatform
    switch (target._tag) {
      case "Video": {
        const details = yield* platform.video(target.id)
        for (const track of details.captionTracks) {
          yield* Effect.ignore(platform.captions(target.id, track))
        }
        return
      }
      case "Playlist":
        yield* collectPlaylist(target.id, recordListLimit)
        return
      case "Channel": {
        const channel = yield* platform.channel(target.ref)
        yield* collectUploads(channel.id, recordListLimit)
        return
      }
    }
  }).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning("record: YouTube refused or failed; its answers are recorded as they are").pipe(
        Effect.annotateLogs({ failure: error._tag, reason: "reason" in error ? error.reason : "" })
      )
    )
  )

/** Runs the adapter over `fetch` for every target, and answers the exchanges, scrubbed. */
export const recordTargets = (
  targets: ReadonlyArray<Target>,
  fetch: FetchLike,
  settings: YouTubeSettings = defaultSettings
) =>
  Effect.suspend(() => {
    const recorder = recordingFetch(fetch)
    const platform = YouTubePlatform.layer(settings).pipe(
      Layer.provide(Layer.succeed(YouTubeFetch, YouTubeFetch.everywhere(recorder.fetch)))
    )
    return Effect.forEach(targets, askFor, { discard: true }).pipe(
      Effect.provide(platform),
      Effect.map(() => recorder.exchanges())
    )
  })

/** Writes the answers into `dir`, one file each, and `manifest.json` listing the exchanges. */
export const writeRecording = (dir: string, exchanges: ReadonlyArray<Exchange & { readonly text: string }>) =>
  Effect.sync(() => {
    mkdirSync(dir, { recursive: true })
    for (const exchange of exchanges) writeFileSync(join(dir, exchange.file), exchange.text)
    const manifest: ReadonlyArray<Exchange> = exchanges.map(({ text: _, ...exchange }) => exchange)
    writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  })

/** The recordings of a folder `writeRecording` wrote, to put in front of `recordedYouTube()`. */
export const readRecording = (dir: string): ReadonlyArray<Recording> => {
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as ReadonlyArray<Exchange>
  return recordedFrom(manifest, (file) => readFileSync(join(dir, file), "utf8"))
}
