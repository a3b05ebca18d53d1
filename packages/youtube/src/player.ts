/**
 * The watch page and the innertube `/player` answer of a video: what they say about the video,
 * and every way they say no. The watch page gives the API key and the consent interstitial;
 * `/player` (ANDROID client, whose caption URLs need no proof-of-origin token today) gives the
 * playability status, details, caption tracks and audio formats. The ANDROID answer carries no
 * publication date (`microformat`), so `publishedAt` is null unless a client's answer has one.
 *
 * Playability is read here, not trusted to a library: a bot check, an age gate or a members-only
 * video come back as an ordinary answer without captions, and must never read as "no captions".
 */
import {
  PlatformBlocked,
  type PlatformError,
  PlatformFailure,
  type VideoDetails,
  VideoLive,
  VideoRestricted,
  VideoUnavailable
} from "@verbatim/core"
import { Captions, Ids, Language } from "@verbatim/domain"
import { DateTime, Either, Option, ParseResult, Schema } from "effect"
import { chooseAudio, isDubbed } from "./audio.js"
import { decodeEntities } from "./text.js"

export const origin = "https://www.youtube.com"
export const watchUrl = (videoId: string): string => `${origin}/watch?v=${encodeURIComponent(videoId)}&hl=en`
export const playerUrl = (apiKey: string | null): string =>
  `${origin}/youtubei/v1/player?prettyPrint=false${apiKey === null ? "" : `&key=${encodeURIComponent(apiKey)}`}`

/** The client `/player` is asked as: its caption URLs answer without a proof-of-origin token. */
export const androidClient = {
  clientName: "ANDROID",
  clientVersion: "20.10.38",
  androidSdkVersion: 34
} as const

export const playerRequest = (videoId: string) => ({
  headers: {
    "content-type": "application/json",
    "user-agent": `com.google.android.youtube/${androidClient.clientVersion} (Linux; U; Android 14) gzip`,
    "x-youtube-client-name": "3",
    "x-youtube-client-version": androidClient.clientVersion
  },
  body: JSON.stringify({
    context: { client: { ...androidClient, hl: "en", gl: "US" } },
    videoId,
    contentCheckOk: true,
    racyCheckOk: true
  })
})

// ---------------------------------------------------------------------------------------------
// The watch page

export interface WatchPage {
  readonly apiKey: string | null
}

export type WatchPageRead =
  | { readonly _tag: "Page"; readonly page: WatchPage }
  /** The EU consent interstitial; `cookie` is the CONSENT value that passes it, when it has one. */
  | { readonly _tag: "Consent"; readonly cookie: string | null }

const consentForm = 'action="https://consent.youtube.com/s"'

/** Reads a watch page (the HTML of `/watch?v=`). */
export const readWatchPage = (html: string): WatchPageRead => {
  if (html.includes(consentForm)) {
    const value = /name="v" value="([^"]*)"/.exec(html)?.[1]
    return {
      _tag: "Consent",
      cookie: value === undefined || value === "" ? null : `YES+${decodeEntities(value)}`
    }
  }
  const apiKey = /"INNERTUBE_API_KEY":\s*"([A-Za-z0-9_-]+)"/.exec(html)?.[1] ?? null
  return { _tag: "Page", page: { apiKey } }
}

// ---------------------------------------------------------------------------------------------
// The /player answer

const Text = Schema.Struct({
  simpleText: Schema.optional(Schema.String),
  runs: Schema.optional(Schema.Array(Schema.Struct({ text: Schema.optional(Schema.String) })))
})
type Text = typeof Text.Type

export const textOf = (text: Text | undefined): string =>
  text === undefined ? "" : (text.simpleText ?? (text.runs ?? []).map((r) => r.text ?? "").join(""))

const Playability = Schema.Struct({
  status: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String),
  reasonTitle: Schema.optional(Schema.String),
  errorScreen: Schema.optional(
    Schema.Struct({
      playerErrorMessageRenderer: Schema.optional(
        Schema.Struct({ reason: Schema.optional(Text), subreason: Schema.optional(Text) })
      )
    })
  )
})

const CaptionTrackJson = Schema.Struct({
  baseUrl: Schema.String,
  languageCode: Schema.String,
  kind: Schema.optional(Schema.String),
  name: Schema.optional(Text),
  vssId: Schema.optional(Schema.String),
  isTranslatable: Schema.optional(Schema.Boolean)
})

export const FormatJson = Schema.Struct({
  itag: Schema.optional(Schema.Number),
  url: Schema.optional(Schema.String),
  signatureCipher: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  bitrate: Schema.optional(Schema.Number),
  contentLength: Schema.optional(Schema.String),
  approxDurationMs: Schema.optional(Schema.String),
  /** `{id: "en.4", displayName, audioIsDefault}` on the formats of a video with several audio tracks. */
  audioTrack: Schema.optional(Schema.Unknown),
  /** Tags such as `acont=original` or `acont=dubbed-auto` and `lang=pa` (base64 protobuf or plain). */
  xtags: Schema.optional(Schema.Unknown),
  isDrc: Schema.optional(Schema.Unknown)
})
export type FormatJson = typeof FormatJson.Type

/** The parts of a `/player` answer the adapter reads; everything else is ignored. */
export const PlayerResponse = Schema.Struct({
  playabilityStatus: Schema.optional(Playability),
  videoDetails: Schema.optional(
    Schema.Struct({
      videoId: Schema.optional(Schema.String),
      title: Schema.optional(Schema.String),
      lengthSeconds: Schema.optional(Schema.String),
      channelId: Schema.optional(Schema.String),
      author: Schema.optional(Schema.String),
      isLive: Schema.optional(Schema.Boolean),
      isUpcoming: Schema.optional(Schema.Boolean),
      isPrivate: Schema.optional(Schema.Boolean)
    })
  ),
  captions: Schema.optional(
    Schema.Struct({
      playerCaptionsTracklistRenderer: Schema.optional(
        Schema.Struct({
          captionTracks: Schema.optional(Schema.Array(CaptionTrackJson)),
          translationLanguages: Schema.optional(Schema.Array(Schema.Struct({ languageCode: Schema.String })))
        })
      )
    })
  ),
  streamingData: Schema.optional(
    Schema.Struct({
      adaptiveFormats: Schema.optional(Schema.Array(FormatJson)),
      formats: Schema.optional(Schema.Array(FormatJson))
    })
  ),
  microformat: Schema.optional(
    Schema.Struct({
      playerMicroformatRenderer: Schema.optional(
        Schema.Struct({
          publishDate: Schema.optional(Schema.String),
          uploadDate: Schema.optional(Schema.String)
        })
      )
    })
  )
})
export type PlayerResponse = typeof PlayerResponse.Type

const decodePlayer = Schema.decodeUnknownEither(Schema.parseJson(PlayerResponse))

/** A schema path as the failure names it: `streamingData.adaptiveFormats[3].bitrate`. */
export const pathOf = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`))
    .join("")

/** Parses the body of a `/player` answer; a failure names the first path that did not read. */
export const parsePlayer = (body: string): Either.Either<PlayerResponse, PlatformFailure> =>
  Either.mapLeft(decodePlayer(body), (error) => {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
    const path = issue === undefined || issue.path.length === 0 ? "(the body)" : pathOf(issue.path)
    return new PlatformFailure({
      reason: `the /player answer is not what the adapter reads at ${path}: ${issue?.message ?? error.message.split("\n")[0]}`,
      path
    })
  })

const rules: ReadonlyArray<{
  readonly test: (status: string, text: string) => boolean
  readonly error: (videoId: string, reason: string) => PlatformError
}> = [
  {
    test: (_, text) => /not a bot|unusual traffic/.test(text),
    error: (_, reason) =>
      new PlatformBlocked({ kind: "bot_check", reason: `YouTube asks to sign in: ${reason}` })
  },
  {
    test: (status, text) =>
      status === "LIVE_STREAM_OFFLINE" ||
      /live event will begin|premieres? in|premiere will begin|scheduled for/.test(text),
    error: (videoId, reason) => new VideoLive({ videoId, state: "upcoming", reason })
  },
  {
    test: (_, text) => /\bprivate\b/.test(text),
    error: (videoId, reason) => new VideoRestricted({ videoId, restriction: "private", reason })
  },
  {
    test: (status, text) =>
      status === "AGE_CHECK_REQUIRED" ||
      status === "AGE_VERIFICATION_REQUIRED" ||
      status === "CONTENT_CHECK_REQUIRED" ||
      /confirm your age|age-restricted|age restricted|inappropriate for some users|age verification/.test(
        text
      ),
    error: (videoId, reason) => new VideoRestricted({ videoId, restriction: "age_restricted", reason })
  },
  {
    test: (_, text) => /youtube premium|premium members|requires payment|purchase|rent this/.test(text),
    error: (videoId, reason) => new VideoRestricted({ videoId, restriction: "premium", reason })
  },
  {
    test: (_, text) =>
      /members-only|members only|channel's members|join this channel|channel members/.test(text),
    error: (videoId, reason) => new VideoRestricted({ videoId, restriction: "members_only", reason })
  },
  {
    test: (_, text) =>
      /your country|in your region|your location|geo.?restrict|blocked it in your/.test(text),
    error: (videoId, reason) => new VideoRestricted({ videoId, restriction: "region_blocked", reason })
  },
  {
    test: (status) => status === "LOGIN_REQUIRED",
    error: (_, reason) =>
      new PlatformBlocked({
        kind: "other",
        reason: `YouTube wants a signed-in session for this video: ${reason}`
      })
  }
]

/**
 * Whether the video can be read: the `/player` playability status, and the live flags of an
 * otherwise playable video. Unknown statuses and reasons are `VideoUnavailable` with YouTube's own
 * words, so recordings never seen before still answer a documented code; so is an answer with
 * neither a status nor details (`{}`, YouTube's answer for an id it does not know).
 */
export const playability = (player: PlayerResponse, videoId: string): Either.Either<void, PlatformError> => {
  const status = player.playabilityStatus?.status ?? (player.videoDetails === undefined ? "MISSING" : "OK")
  if (status === "OK") {
    const details = player.videoDetails
    if (details?.isLive === true) {
      return Either.left(new VideoLive({ videoId, state: "live", reason: "the video is live now" }))
    }
    if (details?.isUpcoming === true) {
      return Either.left(
        new VideoLive({ videoId, state: "upcoming", reason: "the live stream has not started" })
      )
    }
    return Either.void
  }
  if (status === "MISSING") {
    // What YouTube answers for an id it does not know (malformed or never uploaded): `{}`.
    return Either.left(
      new VideoUnavailable({
        videoId,
        reason: "YouTube knows no such video (its answer has neither a playability status nor details)"
      })
    )
  }
  const screen = player.playabilityStatus?.errorScreen?.playerErrorMessageRenderer
  const main =
    player.playabilityStatus?.reason ?? (textOf(screen?.reason) || player.playabilityStatus?.reasonTitle)
  const sub = textOf(screen?.subreason).trim()
  const reason = `${main ?? `playability status ${status}`}${sub === "" ? "" : ` (${sub})`}`
  const text = `${reason} ${player.playabilityStatus?.reasonTitle ?? ""}`.toLowerCase().replace(/’/g, "'")
  const rule = rules.find((r) => r.test(status, text))
  return Either.left(
    rule === undefined ? new VideoUnavailable({ videoId, reason }) : rule.error(videoId, reason)
  )
}

/** A caption track with the URL of its text. */
export interface TrackSource {
  readonly track: Captions.CaptionTrack
  readonly baseUrl: string
  readonly translatable: boolean
}

/** Everything the adapter keeps about a playable video. */
export interface VideoRecord {
  readonly details: VideoDetails
  readonly tracks: ReadonlyArray<TrackSource>
  readonly formats: ReadonlyArray<FormatJson>
}

const isLanguage = Schema.is(Language.LanguageCode)
const isChannelId = Schema.is(Ids.ChannelId)

const publishedAt = (...candidates: ReadonlyArray<string | null | undefined>): DateTime.Utc | null => {
  for (const candidate of candidates) {
    if (candidate === null || candidate === undefined) continue
    const parsed = DateTime.make(candidate)
    if (Option.isSome(parsed)) return DateTime.toUtc(parsed.value)
  }
  return null
}

/**
 * The record of a playable video. Tracks in a language the domain cannot name (three-letter codes
 * such as `fil`) are left out, and so is a second track of the same kind and language.
 */
export const videoRecord = (player: PlayerResponse, videoId: Ids.VideoId): VideoRecord => {
  const list = player.captions?.playerCaptionsTracklistRenderer
  const seen = new Set<string>()
  const tracks = (list?.captionTracks ?? []).flatMap((t): ReadonlyArray<TrackSource> => {
    const language = t.languageCode
    const kind = t.kind === "asr" ? "auto" : "manual"
    const key = `${kind}:${language.toLowerCase()}`
    if (!isLanguage(language) || seen.has(key)) return []
    seen.add(key)
    const name = textOf(t.name).trim()
    return [
      {
        track: new Captions.CaptionTrack({ language, kind, name: name === "" ? null : name }, true),
        baseUrl: t.baseUrl,
        translatable: t.isTranslatable === true
      }
    ]
  })
  const translationLanguages = [
    ...new Set((list?.translationLanguages ?? []).map((l) => l.languageCode).filter(isLanguage))
  ]
  const video = player.videoDetails
  const length = Number(video?.lengthSeconds)
  const channelId = video?.channelId
  const micro = player.microformat?.playerMicroformatRenderer
  const formats = [...(player.streamingData?.adaptiveFormats ?? []), ...(player.streamingData?.formats ?? [])]
  const spoken = tracks.find((t) => t.track.kind === "auto")?.track.language ?? null
  return {
    details: {
      id: videoId,
      title: video?.title ?? null,
      durationSeconds:
        video?.lengthSeconds !== undefined && Number.isSafeInteger(length) && length >= 0 ? length : null,
      channelId: channelId !== undefined && isChannelId(channelId) ? channelId : null,
      channelTitle: video?.author ?? null,
      publishedAt: publishedAt(micro?.publishDate, micro?.uploadDate),
      originalLanguage: spoken,
      captionTracks: tracks.map((t) => t.track),
      translationLanguages,
      ...audioDubOf(formats, spoken)
    },
    tracks,
    formats
  }
}

/** `audioDub` of the details when the audio chosen for recognition is a dub (only dubs are listed). */
const audioDubOf = (
  formats: ReadonlyArray<FormatJson>,
  spoken: string | null
): { readonly audioDub?: { readonly language: Language.LanguageCode | null } } =>
  Option.match(chooseAudio(formats, spoken).format, {
    onNone: () => ({}),
    onSome: (format) =>
      isDubbed(format.track, spoken)
        ? { audioDub: { language: isLanguage(format.track.language) ? format.track.language : null } }
        : {}
  })

/**
 * The timedtext URL of a track's text: json3, and YouTube's own translation with `tlang`; null
 * when the track's `baseUrl` is not a URL.
 */
export const captionUrl = (baseUrl: string, translateTo: string | undefined): string | null => {
  if (!URL.canParse(baseUrl, origin)) return null
  const url = new URL(baseUrl, origin)
  url.searchParams.set("fmt", "json3")
  if (translateTo !== undefined) url.searchParams.set("tlang", translateTo)
  return url.toString()
}

/** Caption URLs with `exp=xpe` answer an empty body unless they carry a proof-of-origin token. */
export const wantsPoToken = (baseUrl: string): boolean => /[?&]exp=xpe(&|$)/.test(baseUrl)
