/**
 * The audio track of a video, for speech recognition: the best audio-only format the `/player`
 * answer lists with a direct URL, downloaded in ranged chunks (googlevideo throttles one long
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
import { Chunk, Deferred, Duration, Effect, Exit, Option, Redacted, Stream } from "effect"
import type { FormatJson } from "./player.js"
import type { Transport } from "./transport.js"

export interface AudioFormat {
  readonly url: string
  readonly mimeType: string
  readonly contentLength: number | null
  readonly durationMs: number | null
}

/** Bytes asked for in one ranged request. */
export const chunkBytes = 10 * 1024 * 1024

const number = (value: string | undefined): number | null => {
  const n = Number(value)
  return value !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : null
}

/**
 * The audio format to download: audio only, with a direct URL; AAC in MP4 before WebM/Opus (every
 * recogniser reads it), then the highest bitrate. `ciphered` tells that audio formats exist but
 * all need a signature decipher (the web player's JavaScript), which the adapter does not run.
 */
export const chooseAudio = (
  formats: ReadonlyArray<FormatJson>
): { readonly format: Option.Option<AudioFormat>; readonly ciphered: boolean } => {
  const audio = formats.filter((f) => (f.mimeType ?? "").startsWith("audio/"))
  const direct = audio
    .filter((f): f is FormatJson & { readonly url: string } => typeof f.url === "string" && f.url.length > 0)
    .map((f, i) => ({ f, i }))
    .sort((a, b) => {
      const mp4 = (x: FormatJson) => ((x.mimeType ?? "").startsWith("audio/mp4") ? 0 : 1)
      return mp4(a.f) - mp4(b.f) || (b.f.bitrate ?? 0) - (a.f.bitrate ?? 0) || a.i - b.i
    })
  const best = direct[0]?.f
  return {
    format:
      best === undefined
        ? Option.none()
        : Option.some({
            url: best.url,
            mimeType: best.mimeType ?? "audio/mp4",
            contentLength: number(best.contentLength),
            durationMs: number(best.approxDurationMs)
          }),
    ciphered: best === undefined && audio.some((f) => f.signatureCipher !== undefined)
  }
}

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
  format: AudioFormat,
  timeout: Duration.Duration
): Stream.Stream<Uint8Array, PlatformError> => {
  const fetchRange = (from: number, to: number | null) => {
    const url = new URL(format.url)
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
      const exited = yield* Deferred.make<number, PlatformError>()
      // Listeners go on at once: the process may end before its output has been read.
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const process = spawn(binary, ytDlpArgs(videoId, proxy), { stdio: ["ignore", "pipe", "pipe"] })
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
            if (process.exitCode === null && process.signalCode === null) process.kill("SIGKILL")
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
