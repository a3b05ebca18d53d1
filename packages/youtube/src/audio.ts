/**
 * The audio track of a video, for speech recognition: the best audio-only format of the original
 * audio track (never a dub when the original is listed) that the `/player` answer lists with a direct URL, downloaded in ranged chunks (googlevideo throttles one long
 * read), or, when the operator installs one, a `yt-dlp` binary writing the audio to its stdout.
 * Nothing here checks the duration: the platform does, before calling any of it.
 */
import { spawn } from "node:child_process"
import {
  AudioUnavailable,
  PlatformBlocked,
  type PlatformError,
  PlatformFailure,
  VideoRestricted,
  VideoUnavailable
} from "@verbatim/core"
import { bound, findSetpriv } from "@verbatim/processes"
import { Chunk, Deferred, Duration, Effect, Exit, Option, Redacted, Stream } from "effect"
import type { FormatJson } from "./player.js"
import type { Transport } from "./transport.js"

export interface AudioFormat {
  readonly url: string
  readonly mimeType: string
  readonly contentLength: number | null
  readonly durationMs: number | null
  readonly track: AudioTrack
}

/** Bytes asked for in one ranged request. */
export const chunkBytes = 10 * 1024 * 1024

const number = (value: string | undefined): number | null => {
  const n = Number(value)
  return value !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : null
}

/** What YouTube says of the audio track a format belongs to. */
export interface AudioTrack {
  /** The track's id (`en.4`), null on a video with one audio track. */
  readonly id: string | null
  /** The spoken language (`lang` of the xtags, else the id's prefix), when told. */
  readonly language: string | null
  readonly name: string | null
  /** `audioTrack.audioIsDefault`: the track a viewer hears unless they choose another. */
  readonly isDefault: boolean | null
  /** `acont` of the xtags (`original`, `dubbed`, `dubbed-auto`, `descriptive`, `secondary`), or the name's word. */
  readonly content: string | null
}

const varint = (bytes: Uint8Array, at: number): readonly [number, number] | null => {
  let value = 0
  for (let shift = 0, i = at; i < bytes.length && shift < 35; i++, shift += 7) {
    const byte = bytes[i] as number
    value += (byte & 0x7f) * 2 ** shift
    if ((byte & 0x80) === 0) return [value, i + 1]
  }
  return null
}

/** The length-delimited fields of a protobuf message, by field number; null if it is not one. */
const fields = (bytes: Uint8Array): ReadonlyArray<readonly [number, Uint8Array]> | null => {
  const out: Array<readonly [number, Uint8Array]> = []
  let at = 0
  while (at < bytes.length) {
    const tag = varint(bytes, at)
    if (tag === null) return null
    const [key, next] = tag
    const wire = key % 8
    if (wire === 0) {
      const skipped = varint(bytes, next)
      if (skipped === null) return null
      at = skipped[1]
    } else if (wire === 2) {
      const length = varint(bytes, next)
      if (length === null || length[1] + length[0] > bytes.length) return null
      out.push([Math.floor(key / 8), bytes.subarray(length[1], length[1] + length[0])])
      at = length[1] + length[0]
    } else if (wire === 1 || wire === 5) {
      at = next + (wire === 1 ? 8 : 4)
    } else return null
  }
  return at === bytes.length ? out : null
}

const utf8 = new TextDecoder("utf-8", { fatal: false })

/**
 * The xtags of a format as pairs: plain `acont=dubbed:lang=pa` (as the format URL's `xtags`
 * parameter carries them), or the `/player` field's base64 protobuf (repeated `{1: key, 2: value}`).
 * Anything else reads as no tags.
 */
export const parseXtags = (value: unknown): ReadonlyMap<string, string> => {
  const tags = new Map<string, string>()
  if (typeof value !== "string" || value.trim() === "") return tags
  if (/^[\w-]+=[^:]*(:[\w-]+=[^:]*)*$/.test(value)) {
    for (const pair of value.split(":")) {
      const [key = "", tag = ""] = pair.split("=")
      tags.set(key, tag)
    }
    return tags
  }
  const bytes = new Uint8Array(Buffer.from(value, "base64"))
  for (const [field, body] of fields(bytes) ?? []) {
    if (field !== 1) continue
    const pair = fields(body) ?? []
    const key = pair.find(([n]) => n === 1)?.[1]
    const tag = pair.find(([n]) => n === 2)?.[1]
    if (key !== undefined) tags.set(utf8.decode(key), tag === undefined ? "" : utf8.decode(tag))
  }
  return tags
}

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}

const stringOf = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null

/** The audio track of a format, from `audioTrack`, the `xtags` field and the URL's `xtags`. */
export const audioTrackOf = (format: FormatJson): AudioTrack => {
  const track = record(format.audioTrack)
  let urlTags: unknown
  try {
    urlTags = format.url === undefined ? undefined : new URL(format.url).searchParams.get("xtags")
  } catch {
    urlTags = undefined
  }
  const tags = new Map([...parseXtags(urlTags), ...parseXtags(format.xtags)])
  const id = stringOf(track.id)
  const name = stringOf(track.displayName)
  const named =
    name === null ? null : (/\b(original|dubbed|descriptive)\b/i.exec(name)?.[1]?.toLowerCase() ?? null)
  return {
    id,
    language: stringOf(tags.get("lang")) ?? (id === null ? null : (stringOf(id.split(".")[0]) ?? null)),
    name,
    isDefault: typeof track.audioIsDefault === "boolean" ? track.audioIsDefault : null,
    content: stringOf(tags.get("acont"))?.toLowerCase() ?? named
  }
}

const isDub = (track: AudioTrack): boolean => track.content?.startsWith("dubbed") === true

const sameLanguage = (a: string | null, b: string | null) =>
  a !== null && b !== null && a.toLowerCase().split("-")[0] === b.toLowerCase().split("-")[0]

/**
 * How much a track is the one spoken in the video, best first: 0 the original (`acont=original`,
 * or the default track when nothing marks it dubbed or descriptive); 1 a format of no named track
 * (a video with one audio track); 2 a track in the video's original language that is not a dub; 3
 * any other track that is not a dub; 4 the default dub (what a viewer hears when only dubs are
 * listed); 5 any other dub.
 */
export const trackRank = (track: AudioTrack, originalLanguage: string | null): number => {
  if (isDub(track)) return track.isDefault === true ? 4 : 5
  if (track.content === "original") return 0
  if (track.isDefault === true && track.content !== "descriptive") return 0
  if (track.id === null && track.content === null && track.isDefault === null) return 1
  if (track.content !== "descriptive" && sameLanguage(track.language, originalLanguage)) return 2
  return 3
}

/**
 * The audio format to download: audio only, with a direct URL; from the track spoken in the video
 * (`trackRank`: the default original first, then the original language, then any, dubs last);
 * within it the format speech recognition decodes best: AAC in MP4 before WebM/Opus (every
 * recogniser reads it), the full dynamic range before a DRC copy, then the highest bitrate.
 * `ciphered` tells that audio formats exist but all need a signature decipher (the web player's
 * JavaScript), which the adapter does not run.
 */
export const chooseAudio = (
  formats: ReadonlyArray<FormatJson>,
  originalLanguage: string | null = null
): { readonly format: Option.Option<AudioFormat>; readonly ciphered: boolean } => {
  const audio = formats.filter((f) => (f.mimeType ?? "").startsWith("audio/"))
  const mp4 = (x: FormatJson) => ((x.mimeType ?? "").startsWith("audio/mp4") ? 0 : 1)
  const drc = (x: FormatJson) => (x.isDrc === true ? 1 : 0)
  const direct = audio
    .filter((f): f is FormatJson & { readonly url: string } => typeof f.url === "string" && f.url.length > 0)
    .map((f, i) => ({ f, i, rank: trackRank(audioTrackOf(f), originalLanguage) }))
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        mp4(a.f) - mp4(b.f) ||
        drc(a.f) - drc(b.f) ||
        (b.f.bitrate ?? 0) - (a.f.bitrate ?? 0) ||
        a.i - b.i
    )
  const best = direct[0]?.f
  return {
    format:
      best === undefined
        ? Option.none()
        : Option.some({
            url: best.url,
            mimeType: best.mimeType ?? "audio/mp4",
            contentLength: number(best.contentLength),
            durationMs: number(best.approxDurationMs),
            track: audioTrackOf(best)
          }),
    ciphered: best === undefined && audio.some((f) => f.signatureCipher !== undefined)
  }
}

/** Whether the chosen track is a dub: what a listener hears is not what was spoken. */
export const isDubbed = (track: AudioTrack, originalLanguage: string | null): boolean =>
  trackRank(track, originalLanguage) >= 4

const refused = (videoId: string, status: number): PlatformError =>
  status === 403 || status === 429
    ? new PlatformBlocked({
        kind: status === 429 ? "rate_limited" : "other",
        reason: `the media server refused the audio of ${videoId} (HTTP ${status})`
      })
    : new AudioUnavailable({ videoId, reason: `the media server answered HTTP ${status}` })

const readBytes = (videoId: string, response: Response) =>
  Effect.tryPromise({
    try: async () => new Uint8Array(await response.arrayBuffer()),
    catch: (cause) =>
      new PlatformFailure({
        reason: `reading the audio of ${videoId} failed: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  })

/** The bytes of a direct audio format, in ranged requests of `chunkBytes`. */
export const directAudio = (
  transport: Transport,
  videoId: string,
  format: Pick<AudioFormat, "url" | "contentLength">,
  timeout: Duration.Duration
): Stream.Stream<Uint8Array, PlatformError> => {
  const fetchRange = (from: number, to: number | null) => {
    const url = URL.canParse(format.url) ? new URL(format.url) : null
    if (url === null) {
      return Effect.fail(
        new PlatformFailure({
          reason: `the audio URL of ${videoId} is not a URL`,
          path: "streamingData.*.url"
        })
      )
    }
    if (to !== null) url.searchParams.set("range", `${from}-${to}`)
    return transport.open({ method: "GET", url: url.toString() }).pipe(
      Effect.flatMap((response) =>
        response.status >= 400 ? Effect.fail(refused(videoId, response.status)) : readBytes(videoId, response)
      ),
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          new PlatformFailure({
            reason: `the audio of ${videoId} took longer than ${Duration.format(timeout)}`
          })
      })
    )
  }
  const length = format.contentLength
  if (length === null) return Stream.fromEffect(fetchRange(0, null))
  return Stream.paginateChunkEffect(0, (from) =>
    fetchRange(from, Math.min(from + chunkBytes, length) - 1).pipe(
      Effect.map((bytes) => {
        const next = from + bytes.length
        return [
          Chunk.of(bytes),
          bytes.length > 0 && next < length ? Option.some(next) : Option.none()
        ] as const
      })
    )
  )
}

/** What yt-dlp's last words mean. */
export const ytDlpFailure = (videoId: string, stderr: string, code: number): PlatformError => {
  const text = stderr.toLowerCase().replace(/’/g, "'")
  const last = stderr.trim().split("\n").pop()?.slice(0, 300) ?? ""
  if (/not a bot|sign in to confirm you/.test(text))
    return new PlatformBlocked({ kind: "bot_check", reason: last })
  if (/http error 429|too many requests/.test(text))
    return new PlatformBlocked({ kind: "rate_limited", reason: last })
  if (/private video|video is private/.test(text)) {
    return new VideoRestricted({ videoId, restriction: "private", reason: last })
  }
  if (/confirm your age|age-restricted|inappropriate for some users/.test(text)) {
    return new VideoRestricted({ videoId, restriction: "age_restricted", reason: last })
  }
  if (/members-only|channel's members|join this channel/.test(text)) {
    return new VideoRestricted({ videoId, restriction: "members_only", reason: last })
  }
  if (/your country|geo.?restrict/.test(text)) {
    return new VideoRestricted({ videoId, restriction: "region_blocked", reason: last })
  }
  if (/video unavailable|this video is unavailable|has been removed/.test(text)) {
    return new VideoUnavailable({ videoId, reason: last })
  }
  // 127: the bound wrapper's shell could not start the binary (missing, not executable).
  if (code === 127) return new AudioUnavailable({ videoId, reason: `cannot run yt-dlp: ${last}` })
  return new AudioUnavailable({ videoId, reason: `yt-dlp exited with code ${code}: ${last}` })
}

/** The arguments yt-dlp is run with: best audio (m4a first) to stdout, through the proxy if any. */
export const ytDlpArgs = (
  videoId: string,
  proxy: Redacted.Redacted<string> | null
): ReadonlyArray<string> => [
  "--no-playlist",
  "--no-progress",
  "--quiet",
  "--no-warnings",
  "-f",
  "bestaudio[ext=m4a]/bestaudio",
  "-o",
  "-",
  ...(proxy === null ? [] : ["--proxy", Redacted.value(proxy)]),
  "--",
  `https://www.youtube.com/watch?v=${videoId}`
]

const stderrLimit = 16 * 1024

/** The audio yt-dlp writes to its stdout; its exit code and stderr say how it ended. */
export const ytDlpAudio = (
  binary: string,
  videoId: string,
  proxy: Redacted.Redacted<string> | null,
  timeout: Duration.Duration
): Stream.Stream<Uint8Array, PlatformError> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const setpriv = findSetpriv()
      const exited = yield* Deferred.make<number, PlatformError>()
      // Listeners go on at once: the process may end before its output has been read.
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => {
          // Bound to this process: yt-dlp (and the ffmpeg it may start) dies with it, even on SIGKILL.
          const [command, ...args] = bound(setpriv, binary, ytDlpArgs(videoId, proxy))
          const process = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
          process.once("error", (error) =>
            Deferred.unsafeDone(
              exited,
              Exit.fail(
                new AudioUnavailable({ videoId, reason: `cannot run yt-dlp (${binary}): ${error.message}` })
              )
            )
          )
          process.once("close", (code) => Deferred.unsafeDone(exited, Exit.succeed(code ?? -1)))
          return process
        }),
        (process) =>
          Effect.sync(() => {
            // The bound wrapper answers SIGTERM by killing yt-dlp's whole process group.
            if (process.exitCode === null && process.signalCode === null) {
              process.kill(setpriv === undefined ? "SIGKILL" : "SIGTERM")
            }
          })
      )
      let stderr = ""
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (data: string) => {
        if (stderr.length < stderrLimit) stderr += data
      })
      const ended = Deferred.await(exited)
      const bytes = Stream.fromAsyncIterable(
        child.stdout as AsyncIterable<Uint8Array>,
        (cause) =>
          new PlatformFailure({
            reason: `reading yt-dlp's output failed: ${cause instanceof Error ? cause.message : String(cause)}`
          })
      )
      const outcome = Stream.fromEffect(ended).pipe(
        Stream.flatMap((code) =>
          code === 0 ? Stream.empty : Stream.fail(ytDlpFailure(videoId, stderr, code))
        )
      )
      return Stream.concat(bytes, outcome).pipe(
        Stream.timeoutFail(
          () =>
            new PlatformFailure({
              reason: `yt-dlp took longer than ${Duration.format(timeout)} for ${videoId}`
            }),
          timeout
        )
      )
    })
  )
