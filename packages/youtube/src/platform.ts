/**
 * The YouTube `VideoPlatform`: direct innertube calls over the injected `fetch`
 * (docs/decisions/youtube.md says why not youtubei.js).
 *
 * - `video(id)`: `/player` as the ANDROID client, whose playability status decides every refusal;
 *   with the API key of a watch page read once a session (which also passes the consent page and
 *   meets an IP block early), not for every video: a watch page is 1 MB.
 * - `captions(id, track)`: the track's timedtext URL as json3 (`tlang` for a translation), read by
 *   our own parser; an empty body means YouTube wants a proof-of-origin token.
 * - `playlist`, `uploads` (the channel's `UU…` playlist, newest first, dated from its Atom feed),
 *   `channel` (handles and legacy names through `navigation/resolve_url`).
 * - `audio(id)`: duration checked against the limit first, then yt-dlp when configured, else the
 *   best direct audio format.
 *
 * Answers are cached for every account alike (the data is public; ownership lives in the
 * database): details, caption texts and list pages, each cache bounded in size, with a time to
 * live; concurrent requests for one key share one fetch. Facts about a video (unavailable,
 * restricted, no such track) are kept for at most five minutes; the platform's own trouble
 * (blocks, timeouts, unreadable answers) is not kept at all.
 */
import {
  AudioUnavailable,
  CaptionTrackNotFound,
  type ChannelDetails,
  ChannelRestricted,
  CollectionNotFound,
  DurationLimitExceeded,
  PlatformBlocked,
  type PlatformError,
  PlatformFailure,
  type PlaylistPage,
  SharedCache,
  TranslationUnavailable,
  type UploadsPage,
  VideoPlatform
} from "@verbatim/core"
import { type Captions, type Ids, Language, Reference, type Transcript } from "@verbatim/domain"
import {
  Cache,
  Cause,
  Clock,
  type ConfigError,
  Duration,
  Effect,
  Either,
  Exit,
  Layer,
  Option,
  Ref,
  Schema,
  SynchronizedRef
} from "effect"
import { type AudioFormat, chooseAudio, directAudio, isDubbed, ytDlpAudio } from "./audio.js"
import {
  browseBody,
  browseUrl,
  channelAgeGate,
  channelHead,
  errorAlert,
  feedDates,
  feedUrl,
  type ListPage,
  listPage,
  listPaths,
  type PlaylistHead,
  playlistHead,
  resolveBody,
  resolvedChannel,
  resolveUrl,
  webHeaders
} from "./browse.js"
import { parseCaptions } from "./captions.js"
import { YouTubeConfig, type YouTubeSettings } from "./config.js"
import {
  captionUrl,
  parsePlayer,
  playability,
  playerRequest,
  playerUrl,
  readWatchPage,
  type VideoRecord,
  videoRecord,
  type WatchPage,
  wantsPoToken,
  watchUrl
} from "./player.js"
import { SegmentsJson, sharedLookup, VideoRecordJson } from "./shared.js"
import { makeTransport, type Reply } from "./transport.js"

const isLanguage = Schema.is(Language.LanguageCode)

/** How long the API key read from a watch page is used before a watch page is read again. */
export const sessionTtl = Duration.hours(1)

/** How long a fact about a video (unavailable, restricted, missing track) is kept at most. */
export const factTtl = Duration.minutes(5)

const facts = new Set<PlatformError["_tag"]>([
  "VideoUnavailable",
  "VideoRestricted",
  "CaptionTrackNotFound",
  "TranslationUnavailable",
  "CollectionNotFound",
  "ChannelRestricted"
])

/**
 * An answer the adapter cannot read (503 `platform_unreadable`): logged here, once, with the path
 * that failed, and never cached (YouTube may answer the next request in a shape the adapter reads).
 */
export const unreadable = (failure: PlatformFailure): Effect.Effect<never, PlatformFailure> =>
  Effect.logWarning("youtube: an answer the adapter cannot read").pipe(
    Effect.annotateLogs({ reason: failure.reason, path: failure.path ?? "(the body)" }),
    Effect.zipRight(Effect.fail(failure))
  )

const readOrFail = <A>(read: Either.Either<A, PlatformFailure>): Effect.Effect<A, PlatformFailure> =>
  Either.match(read, { onLeft: unreadable, onRight: Effect.succeed })

const parseJson = (reply: Reply, what: string): Effect.Effect<unknown, PlatformFailure> =>
  readOrFail(
    Either.try({
      try: (): unknown => JSON.parse(reply.body),
      catch: () =>
        new PlatformFailure({
          reason: `${what} answered HTTP ${reply.status} with something that is not JSON (${JSON.stringify(reply.body.slice(0, 60))})`,
          path: "(the body)"
        })
    })
  )

/** Whether a browse answer shows a page at all (else it is not a browse answer the adapter knows). */
const showsAPage = (answer: unknown): boolean =>
  typeof answer === "object" &&
  answer !== null &&
  ["contents", "header", "metadata", "alerts", "onResponseReceivedActions"].some((key) => key in answer)

const refusedWith = (reply: Reply, what: string): PlatformError =>
  reply.status === 401 || reply.status === 403
    ? new PlatformBlocked({ kind: "other", reason: `${what} answered HTTP ${reply.status}` })
    : new PlatformFailure({ reason: `${what} answered HTTP ${reply.status}` })

/**
 * Logs the audio format chosen for speech recognition: its track, the track's language and kind,
 * and the video's original language; a warning when only dubs are listed.
 */
const logAudioChoice = (videoId: string, format: AudioFormat, original: string | null, dubbed: boolean) =>
  (dubbed ? Effect.logWarning : Effect.logInfo)(
    dubbed
      ? "youtube: audio chosen: only dubbed tracks are listed, recognition hears a dub"
      : "youtube: audio chosen"
  ).pipe(
    Effect.annotateLogs({
      video_id: videoId,
      track: format.track.id ?? "(the only track)",
      track_language: format.track.language ?? "(not told)",
      track_content: format.track.content ?? (format.track.isDefault === true ? "default" : "(not told)"),
      original_language: original ?? "(not told)",
      mime_type: format.mimeType
    })
  )

/** The YouTube platform over the settings, using the `fetch` that `YouTubeFetch` provides. */
export const make = (settings: YouTubeSettings) =>
  Effect.gen(function* () {
    const transport = yield* makeTransport(settings)
    const shared = yield* Effect.serviceOption(SharedCache)
    const consentCookie = yield* Ref.make<string | null>(null)
    const session = yield* SynchronizedRef.make<{
      readonly apiKey: string | null
      readonly at: number
    } | null>(null)
    /** The consent cookie, once a consent page was accepted, for every request to youtube.com. */
    const cookies = Effect.map(
      Ref.get(consentCookie),
      (c): Readonly<Record<string, string>> => (c === null ? {} : { cookie: `CONSENT=${c}` })
    )
    const ttl = settings.cacheTtl
    const timeToLive = (exit: Exit.Exit<unknown, PlatformError>) =>
      Exit.isSuccess(exit)
        ? ttl
        : Option.match(Cause.failureOption(exit.cause), {
            onNone: () => Duration.zero,
            onSome: (error) => (facts.has(error._tag) ? Duration.min(ttl, factTtl) : Duration.zero)
          })
    /** A cache of `lookup`; a failure that is not a fact is dropped at once (a zero TTL lasts a millisecond). */
    const cache = <K, A>(lookup: (key: K) => Effect.Effect<A, PlatformError>) =>
      Effect.map(Cache.makeWith({ capacity: settings.cacheCapacity, lookup, timeToLive }), (made) => ({
        get: (key: K): Effect.Effect<A, PlatformError> =>
          Effect.tapError(made.get(key), (error) =>
            facts.has(error._tag) ? Effect.void : made.invalidate(key)
          )
      }))

    /** The watch page, past the consent interstitial (whose cookie is kept for later requests). */
    const watchPage = (videoId: Ids.VideoId) =>
      Effect.gen(function* () {
        const get = (cookie: string | null) =>
          transport.send({
            method: "GET",
            url: watchUrl(videoId),
            headers: cookie === null ? {} : { cookie: `CONSENT=${cookie}` }
          })
        let reply = yield* get(yield* Ref.get(consentCookie))
        let read = readWatchPage(reply.body)
        if (read._tag === "Consent") {
          const cookie = read.cookie
          if (cookie === null) {
            return yield* new PlatformBlocked({
              kind: "consent",
              reason: "YouTube shows its consent page, and the page lacks the value that accepts it"
            })
          }
          yield* Ref.set(consentCookie, cookie)
          reply = yield* get(cookie)
          read = readWatchPage(reply.body)
          if (read._tag === "Consent") {
            return yield* new PlatformBlocked({
              kind: "consent",
              reason: "YouTube shows its consent page again after the consent cookie was sent"
            })
          }
        }
        if (reply.status === 401 || reply.status === 403) return yield* refusedWith(reply, "the watch page")
        // Any other answer still lets /player speak for the video (a missing key is optional).
        return read.page
      })

    /**
     * The session's API key: read from a watch page (the first video's) when there is none, when it
     * is older than `sessionTtl`, or after `/player` refused it. One reader at a time; the others wait
     * for its key.
     */
    const apiKey = (videoId: Ids.VideoId) =>
      SynchronizedRef.modifyEffect(session, (current) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (current !== null && now - current.at < Duration.toMillis(sessionTtl)) {
            return [current.apiKey, current] as const
          }
          const page: WatchPage = yield* watchPage(videoId)
          return [page.apiKey, { apiKey: page.apiKey, at: now }] as const
        })
      )

    const askPlayer = (videoId: Ids.VideoId, retried: boolean): Effect.Effect<VideoRecord, PlatformError> =>
      Effect.gen(function* () {
        const key = yield* apiKey(videoId)
        const request = playerRequest(videoId)
        const reply = yield* transport.send({
          method: "POST",
          url: playerUrl(key),
          headers: { ...request.headers, ...(yield* cookies) },
          body: request.body
        })
        if (reply.status >= 400 && reply.status < 500 && key !== null && !retried) {
          // The key may have gone stale: read a watch page again, once.
          yield* SynchronizedRef.set(session, null)
          return yield* askPlayer(videoId, true)
        }
        if (reply.status >= 400) return yield* refusedWith(reply, "/player")
        if (readWatchPage(reply.body)._tag === "Consent") {
          return yield* new PlatformBlocked({
            kind: "consent",
            reason: "/player answered with the consent page"
          })
        }
        const player = yield* readOrFail(parsePlayer(reply.body))
        yield* playability(player, videoId)
        return videoRecord(player, videoId)
      })

    const fetchVideo = (videoId: Ids.VideoId): Effect.Effect<VideoRecord, PlatformError> =>
      transport
        .rotating(askPlayer(videoId, false))
        .pipe(
          Effect.withSpan("youtube.video", { attributes: { video_id: videoId }, captureStackTrace: false })
        )

    const videos = yield* cache(
      sharedLookup(
        shared,
        { key: (id: Ids.VideoId) => `youtube:video:${id}`, schema: VideoRecordJson, ttl },
        fetchVideo
      )
    )

    const captionKey = (id: string, track: Captions.CaptionTrack, translateTo: string | undefined) =>
      [id, track.kind, track.language.toLowerCase(), translateTo?.toLowerCase() ?? ""].join("\u0000")

    const fetchCaptions = (key: string): Effect.Effect<ReadonlyArray<Transcript.Segment>, PlatformError> => {
      const [id = "", kind = "", language = "", translateTo = ""] = key.split("\u0000")
      return Effect.gen(function* () {
        const record = yield* videos.get(id as Ids.VideoId)
        const source = record.tracks.find(
          (t) => t.track.kind === kind && t.track.language.toLowerCase() === language
        )
        if (source === undefined) return yield* new CaptionTrackNotFound({ videoId: id, language, kind })
        const target =
          translateTo === ""
            ? undefined
            : record.details.translationLanguages.find((l) => l.toLowerCase() === translateTo)
        if (translateTo !== "" && (target === undefined || !source.translatable)) {
          return yield* new TranslationUnavailable({ videoId: id, language: translateTo })
        }
        if (wantsPoToken(source.baseUrl)) {
          return yield* new PlatformBlocked({
            kind: "po_token_required",
            reason: `the caption URLs of ${id} want a proof-of-origin token (exp=xpe); their texts answer empty without one`
          })
        }
        const url = captionUrl(source.baseUrl, target)
        if (url === null) {
          return yield* unreadable(
            new PlatformFailure({
              reason: `the ${kind} ${language} caption track of ${id} has a baseUrl that is not a URL`,
              path: "captions.playerCaptionsTracklistRenderer.captionTracks[].baseUrl"
            })
          )
        }
        const reply = yield* transport.rotating(
          transport.send({ method: "GET", url, headers: yield* cookies })
        )
        if (reply.status === 404) return yield* new CaptionTrackNotFound({ videoId: id, language, kind })
        if (reply.status >= 400) return yield* refusedWith(reply, "the caption URL")
        return yield* Either.mapLeft(
          parseCaptions(reply.body, { rolling: kind === "auto" && target === undefined }),
          (problem): PlatformError =>
            problem._tag === "Empty"
              ? new PlatformBlocked({
                  kind: "po_token_required",
                  reason: `the ${kind} ${language} captions of ${id} answered an empty body: YouTube wants a proof-of-origin token`
                })
              : new PlatformFailure({
                  reason: `the ${kind} ${language} captions of ${id}: ${problem.reason}`
                })
        )
      }).pipe(Effect.withSpan("youtube.captions", { attributes: { key }, captureStackTrace: false }))
    }

    const captionTexts = yield* cache(
      sharedLookup(
        shared,
        {
          key: (key: string) => `youtube:captions:${key.replaceAll("\u0000", ":")}`,
          schema: SegmentsJson,
          ttl
        },
        fetchCaptions
      )
    )

    /** A browse request; HTTP 400 and 404 mean there is no such list (`missing`). */
    const browse = (
      fields: { readonly browseId: string } | { readonly continuation: string },
      missing: PlatformError
    ) =>
      transport
        .rotating(
          Effect.flatMap(cookies, (cookie) =>
            transport.send({
              method: "POST",
              url: browseUrl,
              headers: { ...webHeaders, ...cookie },
              body: browseBody(fields)
            })
          )
        )
        .pipe(
          Effect.flatMap((reply) =>
            reply.status === 400 || reply.status === 404
              ? Effect.fail(missing)
              : reply.status >= 400
                ? Effect.fail(refusedWith(reply, "browse"))
                : parseJson(reply, "browse")
          )
        )

    const ageGated = (channelId: Ids.ChannelId) =>
      new ChannelRestricted({
        channelId,
        restriction: "age_restricted",
        reason: "YouTube shows this channel only to signed-in adults (an age gate)"
      })

    /**
     * The first page of a playlist (its head and videos), or CollectionNotFound; the uploads of an
     * age-gated channel (`channel`) fail with ChannelRestricted.
     */
    const firstListPage = (
      browseId: string,
      notFound: (reason: string) => CollectionNotFound,
      channel?: Ids.ChannelId
    ) =>
      Effect.gen(function* () {
        const answer = yield* browse({ browseId }, notFound("YouTube does not know it"))
        if (channel !== undefined && channelAgeGate(answer) !== null) return yield* ageGated(channel)
        const head = playlistHead(answer)
        const alert = errorAlert(answer)
        const page = listPage(answer)
        if (page === null && alert === null && head.title === null) {
          return yield* unreadable(
            new PlatformFailure({
              reason: `the browse answer of ${browseId} has no list, no title and no error alert`,
              path: listPaths.first
            })
          )
        }
        const videos = page?.videos ?? []
        if (videos.length === 0 && (alert !== null || head.title === null)) {
          return yield* notFound(alert ?? "YouTube shows no list")
        }
        return { head, videos, continuation: page?.continuation ?? null }
      })

    const nextListPage = (continuation: string) =>
      browse(
        { continuation },
        new PlatformFailure({ reason: "YouTube refused a continuation token of its own" })
      ).pipe(
        Effect.flatMap((answer) => {
          const page = listPage(answer)
          return page !== null
            ? Effect.succeed(page)
            : unreadable(
                new PlatformFailure({
                  reason: "a continuation answer appends no items",
                  path: listPaths.next
                })
              )
        })
      )

    const playlistNotFound = (id: string) => (reason: string) =>
      new CollectionNotFound({ kind: "playlist", id, reason })

    const heads = yield* cache((id: Ids.PlaylistId) =>
      firstListPage(`VL${id}`, playlistNotFound(id)).pipe(
        Effect.withSpan("youtube.playlist", { attributes: { playlist_id: id }, captureStackTrace: false })
      )
    )

    const pageOf = (id: Ids.PlaylistId, head: PlaylistHead, page: ListPage): PlaylistPage => ({
      id,
      ...head,
      videos: page.videos,
      continuation: page.continuation
    })

    const continuations = yield* cache((token: string) => nextListPage(token))

    const resolved = yield* cache((url: string) =>
      Effect.gen(function* () {
        const reply = yield* transport.rotating(
          transport.send({
            method: "POST",
            url: resolveUrl,
            headers: { ...webHeaders, ...(yield* cookies) },
            body: resolveBody(url)
          })
        )
        const missing = new CollectionNotFound({
          kind: "channel",
          id: url,
          reason: "YouTube does not know it"
        })
        if (reply.status === 400 || reply.status === 404) return yield* missing
        if (reply.status >= 400) return yield* refusedWith(reply, "resolve_url")
        const id = resolvedChannel(yield* parseJson(reply, "resolve_url"))
        if (id === null) {
          return yield* new CollectionNotFound({
            kind: "channel",
            id: url,
            reason: "the URL does not lead to a channel"
          })
        }
        return id
      }).pipe(Effect.withSpan("youtube.resolve", { attributes: { url }, captureStackTrace: false }))
    )

    const channels = yield* cache((id: Ids.ChannelId) =>
      Effect.gen(function* () {
        const notFound = (reason: string) => new CollectionNotFound({ kind: "channel", id, reason })
        const answer = yield* browse({ browseId: id }, notFound("YouTube does not know it"))
        if (channelAgeGate(answer) !== null) return yield* ageGated(id)
        const alert = errorAlert(answer)
        const head = channelHead(answer, id)
        if (head === null && alert === null && !showsAPage(answer)) {
          return yield* unreadable(
            new PlatformFailure({
              reason: `the browse answer of channel ${id} shows no page`,
              path: "metadata.channelMetadataRenderer"
            })
          )
        }
        if (head === null) return yield* notFound(alert ?? "YouTube shows no channel page")
        return { id, ...head } satisfies ChannelDetails
      }).pipe(
        Effect.withSpan("youtube.channel", { attributes: { channel_id: id }, captureStackTrace: false })
      )
    )

    const firstUploads = yield* cache((id: Ids.ChannelId) =>
      Effect.gen(function* () {
        const page = yield* firstListPage(
          `VLUU${id.slice(2)}`,
          (reason) => new CollectionNotFound({ kind: "channel", id, reason }),
          id
        )
        // The Atom feed dates the newest uploads; without it they stay undated.
        const dates = yield* transport.send({ method: "GET", url: feedUrl(id) }).pipe(
          Effect.map((reply) => (reply.status === 200 ? feedDates(reply.body) : new Map())),
          Effect.catchAll((error) =>
            Effect.logDebug("youtube: the channel feed could not be read").pipe(
              Effect.annotateLogs({ channel_id: id, reason: error.reason }),
              Effect.as(new Map())
            )
          )
        )
        return {
          channelId: id,
          videos: page.videos.map((v) => ({ ...v, publishedAt: dates.get(v.id) ?? v.publishedAt })),
          continuation: page.continuation
        } satisfies UploadsPage
      }).pipe(
        Effect.withSpan("youtube.uploads", { attributes: { channel_id: id }, captureStackTrace: false })
      )
    )

    return VideoPlatform.of({
      video: (id) => Effect.map(videos.get(id), (record) => record.details),

      captions: (id, track, options = {}) => captionTexts.get(captionKey(id, track, options.translateTo)),

      playlist: (id, continuation) =>
        Effect.gen(function* () {
          const first = yield* heads.get(id)
          if (continuation === undefined) return pageOf(id, first.head, first)
          return pageOf(id, first.head, yield* continuations.get(continuation))
        }),

      channel: (ref) =>
        Effect.gen(function* () {
          const id = ref._tag === "Id" ? ref.id : yield* resolved.get(Reference.channelUrl(ref).toLowerCase())
          return yield* channels.get(id)
        }).pipe(
          Effect.mapError((error) =>
            error._tag === "CollectionNotFound" && ref._tag !== "Id"
              ? new CollectionNotFound({
                  kind: "channel",
                  id: Reference.formatChannel(ref),
                  reason: error.reason
                })
              : error
          )
        ),

      uploads: (id, continuation) =>
        continuation === undefined
          ? firstUploads.get(id)
          : Effect.map(continuations.get(continuation), (page) => ({
              channelId: id,
              videos: page.videos,
              continuation: page.continuation
            })),

      audio: (id, { maxDurationSeconds }) =>
        Effect.gen(function* () {
          const record = yield* videos.get(id)
          const original = record.details.originalLanguage
          const chosen = chooseAudio(record.formats, original)
          const heard = Option.map(chosen.format, (f) => ({
            language: isLanguage(f.track.language) ? f.track.language : null,
            dubbed: isDubbed(f.track, original)
          }))
          yield* Option.match(chosen.format, {
            onNone: () => Effect.void,
            onSome: (f) =>
              logAudioChoice(
                id,
                f,
                original,
                Option.exists(heard, (h) => h.dubbed)
              )
          })
          const seconds =
            record.details.durationSeconds ??
            Option.match(chosen.format, {
              onNone: () => null,
              onSome: (f) => (f.durationMs === null ? null : Math.ceil(f.durationMs / 1000))
            })
          if (seconds === null) {
            return yield* new AudioUnavailable({
              videoId: id,
              reason: "YouTube does not tell the video's duration"
            })
          }
          if (seconds > maxDurationSeconds) {
            return yield* new DurationLimitExceeded({
              videoId: id,
              durationSeconds: seconds,
              limitSeconds: maxDurationSeconds
            })
          }
          if (Option.isSome(settings.ytDlpPath)) {
            const proxy = yield* transport.proxy
            return {
              videoId: id,
              durationSeconds: seconds,
              mimeType: Option.match(chosen.format, { onNone: () => "audio/mp4", onSome: (f) => f.mimeType }),
              contentLength: null,
              bytes: ytDlpAudio(settings.ytDlpPath.value, id, proxy, settings.audioTimeout)
            }
          }
          if (Option.isNone(chosen.format)) {
            return yield* new AudioUnavailable({
              videoId: id,
              reason: chosen.ciphered
                ? "its audio formats need the web player's signature decipher; install yt-dlp and set VERBATIM_YTDLP_PATH"
                : "YouTube lists no audio format for it"
            })
          }
          const format = chosen.format.value
          return {
            videoId: id,
            durationSeconds: seconds,
            mimeType: format.mimeType,
            contentLength: format.contentLength,
            ...Option.match(heard, { onNone: () => ({}), onSome: (h) => ({ heard: h }) }),
            bytes: directAudio(transport, id, format, settings.audioTimeout)
          }
        })
    })
  })

/** The YouTube platform over the given settings (read them with `YouTubeConfig`). */
export const layer = (settings: YouTubeSettings): Layer.Layer<VideoPlatform> =>
  Layer.effect(VideoPlatform, make(settings))

/** The YouTube platform over the settings of the environment (`YouTubeConfig`). */
export const layerConfig: Layer.Layer<VideoPlatform, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(YouTubeConfig, layer)
)
