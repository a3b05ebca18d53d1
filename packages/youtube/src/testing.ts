/**
 * Replaying YouTube for tests (`@verbatim/youtube/testing`): a fake `fetch` that answers from
 * recordings, the recorded set of this package (`test/fixtures/`, real answers under their MIT
 * notice plus hand-made ones), and the adapter's layer over it. No request reaches the network:
 * a request no recording matches answers HTTP 501 and is listed in `unmatched`.
 *
 * ```ts
 * const replay = replayFetch(recordedYouTube())
 * const platform = replayLayer(replay)            // Layer<VideoPlatform>
 * ```
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { VideoPlatform } from "@verbatim/core"
import { Duration, Layer } from "effect"
import { defaultSettings, type YouTubeSettings } from "./config.js"
import * as YouTubePlatform from "./platform.js"
import { type FetchFor, type FetchLike, YouTubeFetch } from "./transport.js"

export { readRecording, scrub } from "./recording.js"

/** A request as a recording sees it. */
export interface RecordedRequest {
  readonly method: string
  readonly url: URL
  readonly body: string
  readonly headers: Headers
}

export interface Answer {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body: string | Uint8Array
}

/** One recorded answer, and the requests it answers. */
export interface Recording {
  readonly match: (request: RecordedRequest) => boolean
  readonly answer: (request: RecordedRequest) => Answer
}

export interface Replay {
  readonly fetch: FetchLike
  /** Every request, in order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The requests no recording matched (each answered HTTP 501). */
  readonly unmatched: ReadonlyArray<RecordedRequest>
}

/** A fake `fetch` answering each request with the first recording that matches it. */
export const replayFetch = (recordings: ReadonlyArray<Recording>): Replay => {
  const requests: Array<RecordedRequest> = []
  const unmatched: Array<RecordedRequest> = []
  const fetch: FetchLike = async (request) => {
    const seen: RecordedRequest = {
      method: request.method,
      url: new URL(request.url),
      body: request.method === "GET" ? "" : await request.text(),
      headers: request.headers
    }
    requests.push(seen)
    const recording = recordings.find((r) => r.match(seen))
    if (recording === undefined) {
      unmatched.push(seen)
      return new Response(`no recording for ${seen.method} ${seen.url.toString()}`, { status: 501 })
    }
    const answer = recording.answer(seen)
    return new Response(answer.body, { status: answer.status ?? 200, headers: answer.headers ?? {} })
  }
  return { fetch, requests, unmatched }
}

/**
 * A recording answering requests to `path` on www.youtube.com (and `when` they match), to put in
 * front of `recordedYouTube()`: `answering("/youtubei/v1/player", () => ({ status: 503, body: "" }))`.
 */
export const answering = (
  path: string,
  answer: (request: RecordedRequest) => Answer,
  when: (request: RecordedRequest) => boolean = () => true
): Recording => ({
  match: (r) => r.url.hostname === "www.youtube.com" && r.url.pathname === path && when(r),
  answer
})

/** The path of a fixture file of this package (`recorded/…` or `hand-made/…`). */
export const fixturePath = (name: string): string =>
  fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url))

const read = new Map<string, string>()

/** The text of a fixture file (read once). */
export const fixture = (name: string): string => {
  const known = read.get(name)
  if (known !== undefined) return known
  const text = readFileSync(fixturePath(name), "utf8")
  read.set(name, text)
  return text
}

/** Bytes standing in for an audio file: `length` bytes of a fixed pattern. */
export const syntheticAudio = (length: number): Uint8Array => {
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + 7) & 0xff
  return bytes
}

const json = (name: string, status = 200): Answer => ({
  status,
  headers: { "content-type": "application/json; charset=UTF-8" },
  body: fixture(name)
})
const html = (name: string, status = 200): Answer => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8" },
  body: fixture(name)
})

const isYouTube = (url: URL, path: string) => url.hostname === "www.youtube.com" && url.pathname === path

const jsonField = (body: string, field: string): string | undefined => {
  try {
    const value: unknown = JSON.parse(body)
    if (typeof value === "object" && value !== null && field in value) {
      const found = (value as Record<string, unknown>)[field]
      return typeof found === "string" ? found : undefined
    }
  } catch {
    return undefined
  }
  return undefined
}

/** The video ids of the recorded `/player` answers. */
export const recordedVideos = {
  /** "Surface Go Review - It's Awesome", 316 s: manual zh, cs, en, de, hi, ja, ko, es and auto en. */
  captioned: "GJLlxj_dtq8",
  /** The same video recorded with another user agent. */
  alteredUserAgent: "AlteredUA01",
  /** Manual and auto English, 1509 s. */
  twoTracks: "F1xioXWb8CY",
  /** Plays, no captions. */
  captionsDisabled: "dsMFmonKDD4",
  /** A past live stream (23169 s) without captions. */
  pastLiveStream: "Fjg5lYqvzUs",
  /** Age gate (LOGIN_REQUIRED). */
  ageRestricted: "Njp5uhTorCo",
  /** "Sign in to confirm you're not a bot" (LOGIN_REQUIRED). */
  botCheck: "BotCheck_01",
  /** "This video is unavailable" (ERROR); also every id without a recording. */
  unavailable: "Unavailable",
  /** A CUSTOM status with sub-reasons. */
  unplayable: "Unplayable1",
  /** Caption URLs with `exp=xpe`: they answer an empty body. */
  poTokenRequired: "PoToken_req",
  /** Hand-made: an English original (default) track and Punjabi, Indonesian and Spanish dubs at higher bitrates. */
  severalAudioTracks: "Dub0riginal",
  /** Hand-made: Indonesian and Spanish dubs only (automatic dubs), auto captions in English. */
  onlyDubs: "OnlyDubs_01",
  /** Hand-made: the answer YouTube gives for an id it does not know (no status, no details). */
  unknownId: "N0tAV1de0Id"
} as const

const players: Readonly<Record<string, string>> = {
  [recordedVideos.captioned]: "recorded/youtube.innertube.json.static",
  [recordedVideos.alteredUserAgent]: "recorded/youtube_altered_user_agent.innertube.json.static",
  [recordedVideos.twoTracks]: "recorded/youtube_ww1_nl_en.innertube.json.static",
  [recordedVideos.captionsDisabled]: "recorded/youtube_transcripts_disabled.innertube.json.static",
  [recordedVideos.pastLiveStream]: "recorded/youtube_transcripts_disabled2.innertube.json.static",
  [recordedVideos.ageRestricted]: "recorded/youtube_age_restricted.innertube.json.static",
  [recordedVideos.botCheck]: "recorded/youtube_request_blocked.innertube.json.static",
  [recordedVideos.unavailable]: "recorded/youtube_video_unavailable.innertube.json.static",
  [recordedVideos.unplayable]: "recorded/youtube_unplayable.innertube.json.static",
  [recordedVideos.poTokenRequired]: "recorded/youtube_po_token_required.innertube.json.static",
  [recordedVideos.severalAudioTracks]: "hand-made/player_several_audio_tracks.hand-made.json",
  [recordedVideos.onlyDubs]: "hand-made/player_only_dubs.hand-made.json",
  [recordedVideos.unknownId]: "hand-made/player_unknown_id.hand-made.json"
}

/** The hand-made playlist, channels and handles. */
export const recordedCollections = {
  playlist: "PLhandMadeReplayList",
  channel: { id: "UCVYamHliCI9rw1tHR1xbkfw", handle: "Dave2D", legacyName: "Dave2D" },
  /**
   * 65 uploads over three Videos-tab pages (30, 30, 5); its pages carry the header's and the
   * engagement panels' continuation tokens after the grid's, and its contents come before its header.
   */
  longChannel: { id: "UCh4ndM4deL0ngCh4nnel0AA", uploads: 65, subscribers: 8840, videos: 258 },
  /** A channel YouTube shows only to signed-in adults (`channelAgeGateRenderer`). */
  ageGatedChannel: "UCh4ndM4deAgeG4tedCh4n00",
  missingHandle: "nobody-has-this-handle"
} as const

/** The browse answers of the hand-made channels and their uploads, by browse id or continuation token. */
const browseAnswers: Readonly<Record<string, string>> = {
  "hand-made-playlist-page-2": "hand-made/browse_playlist_page2.hand-made.json",
  "hand-made-uploads-page-2": "hand-made/browse_uploads_page2.hand-made.json",
  "hand-made-videos-tab-page-2": "hand-made/browse_videos_tab_page2.hand-made.json",
  "hand-made-videos-tab-page-3": "hand-made/browse_videos_tab_page3.hand-made.json",
  [`VL${recordedCollections.playlist}`]: "hand-made/browse_playlist_page1.hand-made.json",
  [recordedCollections.channel.id]: "hand-made/browse_channel_UCVYamHliCI9rw1tHR1xbkfw.hand-made.json",
  [`VLUU${recordedCollections.channel.id.slice(2)}`]: "hand-made/browse_uploads_page1.hand-made.json",
  [recordedCollections.longChannel.id]: "hand-made/browse_channel_contents_first.hand-made.json",
  [`VLUU${recordedCollections.longChannel.id.slice(2)}`]: "hand-made/browse_videos_tab_page1.hand-made.json",
  [recordedCollections.ageGatedChannel]: "hand-made/browse_channel_age_gated.hand-made.json",
  [`VLUU${recordedCollections.ageGatedChannel.slice(2)}`]: "hand-made/browse_channel_age_gated.hand-made.json"
}

const channelUrls = new Set(
  ["@dave2d", "c/dave2d", "user/dave2d", `channel/${recordedCollections.channel.id.toLowerCase()}`].map(
    (path) => `https://www.youtube.com/${path}`
  )
)

/** Captions of the captioned video that hand-made bodies answer: json3, srv3 and a translation. */
const captionBody = (url: URL): Answer => {
  const p = url.searchParams
  if (/[?&]exp=xpe(&|$)/.test(url.search)) return { body: "" }
  if (p.get("v") === recordedVideos.captioned && p.get("lang") === "en") {
    if (p.get("kind") === "asr")
      return { body: fixture("hand-made/captions_GJLlxj_dtq8_en_asr.hand-made.srv3.xml") }
    if (p.get("tlang") === "de")
      return { body: fixture("hand-made/captions_GJLlxj_dtq8_en_tlang_de.hand-made.json3") }
    if (p.get("tlang") === null) return { body: fixture("hand-made/captions_GJLlxj_dtq8_en.hand-made.json3") }
  }
  return { body: fixture("recorded/transcript.xml.static") }
}

/** Serves `bytes` by the `range=a-b` query parameter googlevideo URLs take. */
const ranged = (bytes: Uint8Array, url: URL): Answer => {
  const range = /^(\d+)-(\d+)$/.exec(url.searchParams.get("range") ?? "")
  if (range === null) return { headers: { "content-type": "audio/mp4" }, body: bytes }
  const from = Number(range[1])
  const to = Math.min(Number(range[2]), bytes.length - 1)
  return { headers: { "content-type": "audio/mp4" }, body: bytes.slice(from, to + 1) }
}

const audioBytes = new Map<number, Uint8Array>()

/**
 * Every recording of this package, answering as YouTube would:
 *
 * - the watch page of any video (`youtube.html.static`: the API key; its publish date only applies
 *   to `GJLlxj_dtq8`);
 * - `/player` by the posted `videoId` (`recordedVideos`; any other id is unavailable);
 * - timedtext: hand-made json3/srv3 bodies for the English tracks of `GJLlxj_dtq8`, the recorded
 *   legacy `<transcript>` for every other track, an empty body for `exp=xpe` URLs;
 * - googlevideo audio: `syntheticAudio` of the length the URL's `clen` names, by `range`;
 * - `browse`, `navigation/resolve_url` and the Atom feed of `recordedCollections` (hand-made).
 */
export const recordedYouTube = (): ReadonlyArray<Recording> => [
  {
    match: (r) => r.method === "GET" && isYouTube(r.url, "/watch"),
    answer: () => html("recorded/youtube.html.static")
  },
  {
    match: (r) => r.method === "POST" && isYouTube(r.url, "/youtubei/v1/player"),
    answer: (r) =>
      json(
        players[jsonField(r.body, "videoId") ?? ""] ??
          "recorded/youtube_video_unavailable.innertube.json.static"
      )
  },
  {
    match: (r) => r.method === "GET" && isYouTube(r.url, "/api/timedtext"),
    answer: (r) => captionBody(r.url)
  },
  {
    match: (r) => r.method === "GET" && r.url.hostname.endsWith(".googlevideo.com"),
    answer: (r) => {
      const length = Number(r.url.searchParams.get("clen") ?? "4096")
      const bytes = audioBytes.get(length) ?? syntheticAudio(length)
      audioBytes.set(length, bytes)
      return ranged(bytes, r.url)
    }
  },
  {
    match: (r) => r.method === "POST" && isYouTube(r.url, "/youtubei/v1/browse"),
    answer: (r) =>
      json(
        browseAnswers[jsonField(r.body, "continuation") ?? jsonField(r.body, "browseId") ?? ""] ??
          "hand-made/browse_playlist_missing.hand-made.json"
      )
  },
  {
    match: (r) => r.method === "POST" && isYouTube(r.url, "/youtubei/v1/navigation/resolve_url"),
    answer: (r) =>
      channelUrls.has((jsonField(r.body, "url") ?? "").toLowerCase())
        ? json("hand-made/resolve_url_dave2d.hand-made.json")
        : json("hand-made/resolve_url_not_found.hand-made.json", 404)
  },
  {
    match: (r) =>
      r.method === "GET" &&
      isYouTube(r.url, "/feeds/videos.xml") &&
      r.url.searchParams.get("channel_id") === recordedCollections.channel.id,
    answer: () => ({
      headers: { "content-type": "text/xml; charset=UTF-8" },
      body: fixture("hand-made/feed_UCVYamHliCI9rw1tHR1xbkfw.hand-made.xml")
    })
  }
]

/** The recorded answers of the error pages, to put in front of `recordedYouTube()`. */
export const errorPages = {
  /** Google's "unusual traffic" reCAPTCHA page. */
  tooManyRequests: (status = 429): Answer => html("recorded/youtube_too_many_requests.html.static", status),
  consent: (): Answer => html("recorded/youtube_consent_page.html.static"),
  consentInvalid: (): Answer => html("recorded/youtube_consent_page_invalid.html.static")
}

/** Settings for tests: no pacing, quick retries, the defaults otherwise. */
export const testSettings: YouTubeSettings = {
  ...defaultSettings,
  minInterval: Duration.zero,
  retryBase: Duration.millis(1),
  requestTimeout: Duration.seconds(5)
}

/** The YouTube adapter answering from `replay` (every route: direct and proxies alike). */
export const replayLayer = (
  replay: Replay | FetchFor,
  settings: YouTubeSettings = testSettings
): Layer.Layer<VideoPlatform> =>
  YouTubePlatform.layer(settings).pipe(
    Layer.provide(
      Layer.succeed(
        YouTubeFetch,
        typeof replay === "function" ? replay : YouTubeFetch.everywhere(replay.fetch)
      )
    )
  )
