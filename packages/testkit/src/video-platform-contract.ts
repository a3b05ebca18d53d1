/**
 * The contract of the `VideoPlatform` port, as one suite that every implementation runs (the demo
 * catalogue, the YouTube adapter on recorded responses): `videoPlatformContract(name, layer, cases)`,
 * like `describeEachDatabase` does for the repositories. The cases name what the implementation
 * holds (a captioned video, a playlist longer than one page...); the suite asserts the laws that
 * the use cases rely on, whatever the platform.
 */
import { layer } from "@effect/vitest"
import {
  collectPlaylist,
  collectUploads,
  type PlatformError,
  type VideoEntry,
  VideoPlatform
} from "@verbatim/core"
import { Captions, type Ids, type Language, Reference, type Transcript } from "@verbatim/domain"
import { Chunk, Effect, type Layer, Stream } from "effect"
import { expect } from "vitest"

export interface VideoPlatformCases {
  /** A video with caption tracks, at least one of them with text. */
  readonly captioned: Ids.VideoId
  /** A video that plays and has no caption track. */
  readonly uncaptioned: Ids.VideoId
  /** A video the platform answers `VideoUnavailable` for. */
  readonly unavailable: Ids.VideoId
  /** A playlist longer than one page, so that continuations are followed. */
  readonly playlist: Ids.PlaylistId
  readonly missingPlaylist: Ids.PlaylistId
  /** A channel with uploads, and its handle. */
  readonly channel: { readonly id: Ids.ChannelId; readonly handle: Ids.ChannelHandle }
  readonly missingHandle: Ids.ChannelHandle
  /** A video (longer than a second) and whether the platform serves its audio. */
  readonly audio: { readonly videoId: Ids.VideoId; readonly available: boolean }
}

/** What is wrong with a list of segments, one line each; empty when it obeys every law. */
export const segmentIssues = (segments: ReadonlyArray<Transcript.Segment>): ReadonlyArray<string> =>
  segments.flatMap((s, i) => {
    const issues: Array<string> = []
    if (!Number.isSafeInteger(s.start) || s.start < 0) issues.push(`[${i}] start ${s.start} is not whole ms`)
    if (!Number.isSafeInteger(s.end) || s.end < 0) issues.push(`[${i}] end ${s.end} is not whole ms`)
    if (s.end < s.start) issues.push(`[${i}] ends (${s.end}) before it starts (${s.start})`)
    const previous = segments[i - 1]
    if (previous !== undefined && s.start < previous.start)
      issues.push(`[${i}] starts before the segment above`)
    if (s.text.trim().length === 0) issues.push(`[${i}] is empty`)
    // Numeric references and the entities every caption format uses; an unknown name such as `&A;`
    // is text a speaker wrote (or a cue quoting one), kept as written.
    if (/&(#\d+|#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos|nbsp);/.test(s.text))
      issues.push(`[${i}] keeps an HTML entity: ${s.text}`)
    if (/<\/?[a-z][^>]*>/i.test(s.text)) issues.push(`[${i}] keeps markup: ${s.text}`)
    return issues
  })

/** What is wrong with the entries of a playlist or uploads page. */
export const entryIssues = (entries: ReadonlyArray<VideoEntry>): ReadonlyArray<string> =>
  entries.flatMap((e, i) => [
    ...(/^[A-Za-z0-9_-]{11}$/.test(e.id) ? [] : [`[${i}] id ${e.id} is not a video id`]),
    ...(e.durationSeconds === null || (Number.isSafeInteger(e.durationSeconds) && e.durationSeconds >= 0)
      ? []
      : [`[${i}] duration ${e.durationSeconds} is not whole seconds`]),
    ...(e.title === null || e.title.trim().length > 0 ? [] : [`[${i}] has a blank title`])
  ])

/** Languages to try where a test needs one the video does not have. */
const rareLanguages: ReadonlyArray<Language.LanguageCode> = [
  "zu",
  "xh",
  "yo",
  "eu",
  "cy",
  "mi",
  "sm",
  "to"
].map((code) => code as Language.LanguageCode)

const notIn = (languages: ReadonlyArray<string>): Language.LanguageCode => {
  const taken = new Set(languages.map((l) => l.toLowerCase().split("-")[0]))
  const free = rareLanguages.find((l) => !taken.has(l))
  return free ?? expect.unreachable("every rare language is taken; extend rareLanguages")
}

const tagOf = <A>(effect: Effect.Effect<A, PlatformError>) =>
  Effect.match(effect, { onFailure: (e) => e._tag, onSuccess: () => "success" })

/**
 * Describes the contract suite `VideoPlatform contract [<name>]` over the platform `platform`
 * builds (built once for the suite). Tests run on the test clock (one for the suite): the platforms
 * take their time (pacing, retries, caches) from Effect's `Clock` and answer in process.
 */
export const videoPlatformContract = <E>(
  name: string,
  platform: Layer.Layer<VideoPlatform, E>,
  cases: VideoPlatformCases
): void => {
  layer(platform, { timeout: "60 seconds" })(`VideoPlatform contract [${name}]`, (it) => {
    it.effect("details name the video and list each track once, with whole durations", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.captioned)
        expect(details.id).toBe(cases.captioned)
        expect(details.captionTracks.length).toBeGreaterThan(0)
        const keys = details.captionTracks.map((t) => `${t.kind}:${t.language.toLowerCase()}`)
        expect(new Set(keys).size).toBe(keys.length)
        if (details.durationSeconds !== null) {
          expect(Number.isSafeInteger(details.durationSeconds) && details.durationSeconds >= 0).toBe(true)
        }
        expect(yield* p.video(cases.captioned)).toEqual(details)
      })
    )

    it.effect("every listed track reads as sorted, whole-ms, non-empty segments without markup", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.captioned)
        let words = 0
        for (const track of details.captionTracks) {
          const segments = yield* p.captions(cases.captioned, track)
          expect(segmentIssues(segments), `${track.kind} ${track.language}`).toEqual([])
          words += segments.length
          expect(yield* p.captions(cases.captioned, track)).toEqual(segments)
        }
        expect(words).toBeGreaterThan(0)
      })
    )

    it.effect("a track matches on kind and its language's subtag in any case, whatever its name", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.captioned)
        for (const track of details.captionTracks) {
          const [primary, subtag] = track.language.split("-")
          const swapped =
            subtag === undefined
              ? ""
              : `-${subtag === subtag.toUpperCase() ? subtag.toLowerCase() : subtag.toUpperCase()}`
          const renamed = new Captions.CaptionTrack({
            language: `${primary}${swapped}` as Language.LanguageCode,
            kind: track.kind,
            name: "another name"
          })
          expect(yield* p.captions(cases.captioned, renamed)).toEqual(
            yield* p.captions(cases.captioned, track)
          )
        }
      })
    )

    it.effect("a track the video does not list fails with CaptionTrackNotFound", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.captioned)
        const language = notIn(details.captionTracks.map((t) => t.language))
        const error = yield* Effect.flip(
          p.captions(cases.captioned, new Captions.CaptionTrack({ language, kind: "manual", name: null }))
        )
        expect(error).toMatchObject({ _tag: "CaptionTrackNotFound", videoId: cases.captioned, language })
      })
    )

    it.effect("a translation the video does not offer fails with TranslationUnavailable", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.captioned)
        const [track] = details.captionTracks
        if (track === undefined) return expect.unreachable("the captioned case has tracks")
        const language = notIn([...details.translationLanguages, track.language])
        const error = yield* Effect.flip(p.captions(cases.captioned, track, { translateTo: language }))
        expect(error).toMatchObject({ _tag: "TranslationUnavailable", language })
      })
    )

    it.effect("a video without captions lists no track, and asking for one is CaptionTrackNotFound", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.uncaptioned)
        expect(details.captionTracks).toEqual([])
        const track = new Captions.CaptionTrack({
          language: "en" as Language.LanguageCode,
          kind: "auto",
          name: null
        })
        expect(yield* tagOf(p.captions(cases.uncaptioned, track))).toBe("CaptionTrackNotFound")
      })
    )

    it.effect("an unavailable video fails with VideoUnavailable for details, captions and audio", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const error = yield* Effect.flip(p.video(cases.unavailable))
        expect(error).toMatchObject({ _tag: "VideoUnavailable", videoId: cases.unavailable })
        const track = new Captions.CaptionTrack({
          language: "en" as Language.LanguageCode,
          kind: "manual",
          name: null
        })
        expect(yield* tagOf(p.captions(cases.unavailable, track))).toBe("VideoUnavailable")
        expect(yield* tagOf(p.audio(cases.unavailable, { maxDurationSeconds: 86_400 }))).toBe(
          "VideoUnavailable"
        )
      })
    )

    it.effect("a playlist's pages follow each other to the end, and collecting respects the limit", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const first = yield* p.playlist(cases.playlist)
        expect(first.id).toBe(cases.playlist)
        expect(first.continuation).not.toBeNull()
        const all: Array<VideoEntry> = [...first.videos]
        let continuation = first.continuation
        for (let pages = 1; continuation !== null; pages++) {
          expect(pages).toBeLessThan(50)
          const page = yield* p.playlist(cases.playlist, continuation)
          expect(page.id).toBe(cases.playlist)
          all.push(...page.videos)
          continuation = page.continuation
        }
        expect(entryIssues(all)).toEqual([])
        const ids = all.map((v) => v.id)
        const whole = yield* collectPlaylist(cases.playlist, ids.length)
        expect([whole.videos.map((v) => v.id), whole.truncated]).toEqual([ids, false])
        const more = yield* collectPlaylist(cases.playlist, ids.length + 5)
        expect([more.videos.length, more.truncated]).toEqual([ids.length, false])
        const one = yield* collectPlaylist(cases.playlist, 1)
        expect([one.videos.map((v) => v.id), one.truncated]).toEqual([ids.slice(0, 1), true])
      })
    )

    it.effect("a playlist that does not exist fails with CollectionNotFound", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const error = yield* Effect.flip(p.playlist(cases.missingPlaylist))
        expect(error).toMatchObject({ _tag: "CollectionNotFound", kind: "playlist" })
      })
    )

    it.effect("a channel resolves to the same id by id, by handle and by @HANDLE in another case", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const byId = yield* p.channel(Reference.channelById(cases.channel.id))
        expect(byId.id).toBe(cases.channel.id)
        expect(byId.title.trim().length).toBeGreaterThan(0)
        const byHandle = yield* p.channel(Reference.channelByHandle(cases.channel.handle))
        expect(byHandle.id).toBe(cases.channel.id)
        const upper = Reference.parseChannel(`@${cases.channel.handle.toUpperCase()}`)
        if (upper._tag === "Left") return expect.unreachable(upper.left.reason)
        expect((yield* p.channel(upper.right)).id).toBe(cases.channel.id)
      })
    )

    it.effect("a channel's uploads page to the end, and collecting respects the limit", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const first = yield* p.uploads(cases.channel.id)
        expect(first.channelId).toBe(cases.channel.id)
        const all: Array<VideoEntry> = [...first.videos]
        let continuation = first.continuation
        for (let pages = 1; continuation !== null; pages++) {
          expect(pages).toBeLessThan(50)
          const page = yield* p.uploads(cases.channel.id, continuation)
          all.push(...page.videos)
          continuation = page.continuation
        }
        expect(all.length).toBeGreaterThan(0)
        expect(entryIssues(all)).toEqual([])
        const whole = yield* collectUploads(cases.channel.id, all.length)
        expect([whole.videos.map((v) => v.id), whole.truncated]).toEqual([all.map((v) => v.id), false])
        const one = yield* collectUploads(cases.channel.id, 1)
        expect([one.videos.length, one.truncated]).toEqual([1, all.length > 1])
      })
    )

    it.effect("a handle that names no channel fails with CollectionNotFound", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const error = yield* Effect.flip(p.channel(Reference.channelByHandle(cases.missingHandle)))
        expect(error).toMatchObject({ _tag: "CollectionNotFound", kind: "channel" })
      })
    )

    it.effect("audio checks the duration limit before anything else, then streams or says why not", () =>
      Effect.gen(function* () {
        const p = yield* VideoPlatform
        const details = yield* p.video(cases.audio.videoId)
        const duration = details.durationSeconds ?? 0
        expect(duration).toBeGreaterThan(1)
        const tooLong = yield* Effect.flip(p.audio(cases.audio.videoId, { maxDurationSeconds: duration - 1 }))
        expect(tooLong).toMatchObject({
          _tag: "DurationLimitExceeded",
          videoId: cases.audio.videoId,
          durationSeconds: duration,
          limitSeconds: duration - 1
        })
        const within = p.audio(cases.audio.videoId, { maxDurationSeconds: duration })
        if (!cases.audio.available) {
          expect(yield* tagOf(within)).toBe("AudioUnavailable")
          return
        }
        const audio = yield* within
        expect(audio.videoId).toBe(cases.audio.videoId)
        expect(audio.mimeType.startsWith("audio/")).toBe(true)
        const bytes = Chunk.toReadonlyArray(yield* Stream.runCollect(audio.bytes))
        const size = bytes.reduce((n, chunk) => n + chunk.length, 0)
        expect(size).toBeGreaterThan(0)
        if (audio.contentLength !== null) expect(size).toBe(audio.contentLength)
      })
    )
  })
}
