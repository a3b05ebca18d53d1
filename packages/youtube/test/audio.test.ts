/**
 * Audio for speech recognition: the duration limit before any download, the best direct format in
 * ranged chunks, refusals of the media server, ciphered formats, and yt-dlp when installed.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Option, Redacted, Stream } from "effect"
import { chooseAudio, chunkBytes, directAudio, ytDlpArgs } from "../src/audio.js"
import { recordedVideos, recordedYouTube, replayFetch, syntheticAudio, testSettings } from "../src/testing.js"
import { makeTransport, YouTubeFetch } from "../src/transport.js"
import { answered, at, vid, withPlatform } from "./support.js"

const collect = <E>(stream: Stream.Stream<Uint8Array, E>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => {
    const all = Chunk.toReadonlyArray(chunks)
    const bytes = new Uint8Array(all.reduce((n, c) => n + c.length, 0))
    let at = 0
    for (const c of all) {
      bytes.set(c, at)
      at += c.length
    }
    return bytes
  })

const googlevideo = (r: { readonly url: URL }) => r.url.hostname.endsWith(".googlevideo.com")

describe("audio of a recorded video", () => {
  it.effect("checks the duration before anything is downloaded", () =>
    withPlatform((platform, replay) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          platform.audio(vid(recordedVideos.captioned), { maxDurationSeconds: 315 })
        )
        expect(answered(error)).toEqual(["DurationLimitExceeded", "video_too_long", 400])
        expect(error).toMatchObject({ durationSeconds: 316, limitSeconds: 315 })
        const audio = yield* platform.audio(vid(recordedVideos.captioned), { maxDurationSeconds: 316 })
        // Opening the stream downloads nothing either: only running it does.
        expect(replay.requests.filter(googlevideo)).toEqual([])
        expect(audio.mimeType).toBe('audio/mp4; codecs="mp4a.40.2"')
        expect(audio.contentLength).toBe(5116319)
        const bytes = yield* collect(audio.bytes)
        expect(Buffer.from(bytes).equals(syntheticAudio(5116319))).toBe(true)
        const ranges = replay.requests.filter(googlevideo).map((r) => r.url.searchParams.get("range"))
        expect(ranges).toEqual(["0-5116318"])
        expect(replay.requests.filter(googlevideo)[0]?.url.searchParams.get("itag")).toBe("140")
      })
    )
  )

  it.effect(
    "the media server's refusal is platform_blocked; ciphered formats without yt-dlp are no_audio",
    () =>
      Effect.gen(function* () {
        const refused = yield* withPlatform(
          (platform) =>
            platform
              .audio(vid(recordedVideos.captioned), { maxDurationSeconds: 3600 })
              .pipe(Effect.flatMap((audio) => Effect.flip(Stream.runDrain(audio.bytes)))),
          [{ match: googlevideo, answer: () => ({ status: 403, body: "Forbidden" }) }]
        )
        expect(answered(refused)).toEqual(["PlatformBlocked", "platform_blocked", 503])
        const ciphered = JSON.stringify({
          playabilityStatus: { status: "OK" },
          videoDetails: { videoId: "GJLlxj_dtq8", lengthSeconds: "60" },
          streamingData: {
            adaptiveFormats: [
              { itag: 140, mimeType: "audio/mp4", signatureCipher: "s=abc&sp=sig&url=https%3A%2F%2F" }
            ]
          }
        })
        const error = yield* withPlatform(
          (platform) => Effect.flip(platform.audio(vid("GJLlxj_dtq8"), { maxDurationSeconds: 3600 })),
          [at("/youtubei/v1/player", () => ({ body: ciphered }))]
        )
        expect(answered(error)).toEqual(["AudioUnavailable", "no_audio", 404])
        expect(error).toMatchObject({ reason: expect.stringContaining("VERBATIM_YTDLP_PATH") })
      })
  )

  it.effect("downloads a long format in ranged chunks", () =>
    Effect.gen(function* () {
      const length = 2 * chunkBytes + 1234
      const replay = replayFetch(recordedYouTube())
      const transport = yield* makeTransport(testSettings).pipe(
        Effect.provideService(YouTubeFetch, YouTubeFetch.everywhere(replay.fetch))
      )
      const bytes = yield* collect(
        directAudio(
          transport,
          "GJLlxj_dtq8",
          {
            url: `https://rr1---sn-test.googlevideo.com/videoplayback?itag=140&clen=${length}`,
            contentLength: length
          },
          Duration.seconds(10)
        )
      )
      expect(bytes.length).toBe(length)
      expect(Buffer.from(bytes).equals(syntheticAudio(length))).toBe(true)
      expect(replay.requests.map((r) => r.url.searchParams.get("range"))).toEqual([
        `0-${chunkBytes - 1}`,
        `${chunkBytes}-${2 * chunkBytes - 1}`,
        `${2 * chunkBytes}-${length - 1}`
      ])
    })
  )
})

describe("choosing the audio format", () => {
  it("takes AAC in MP4 before Opus, then the highest bitrate, and only formats with a direct URL", () => {
    const chosen = chooseAudio([
      { itag: 251, mimeType: 'audio/webm; codecs="opus"', bitrate: 160000, url: "https://x/251" },
      { itag: 139, mimeType: "audio/mp4", bitrate: 48000, url: "https://x/139" },
      { itag: 140, mimeType: "audio/mp4", bitrate: 128000, url: "https://x/140", contentLength: "42" },
      { itag: 141, mimeType: "audio/mp4", bitrate: 256000, signatureCipher: "s=1" },
      { itag: 18, mimeType: "video/mp4", bitrate: 500000, url: "https://x/18" }
    ])
    expect(Option.map(chosen.format, (f) => [f.url, f.contentLength])).toEqual(
      Option.some(["https://x/140", 42])
    )
    expect(chosen.ciphered).toBe(false)
    const none = chooseAudio([{ itag: 18, mimeType: "video/mp4", url: "https://x/18" }])
    expect([Option.isNone(none.format), none.ciphered]).toEqual([true, false])
  })
})

// Live clock: the yt-dlp stand-in runs as a child process.
describe("yt-dlp, when the operator installs one", () => {
  const script = (body: string) => {
    const dir = mkdtempSync(join(tmpdir(), "verbatim-ytdlp-"))
    const path = join(dir, "yt-dlp")
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/args"\n${body}\n`)
    chmodSync(path, 0o755)
    return { path, args: () => readFileSync(join(dir, "args"), "utf8").trim().split("\n") }
  }

  it.live("streams what yt-dlp writes, through the proxy in use, after the duration check", () =>
    Effect.gen(function* () {
      const fake = script("printf 'AUDIO-BYTES'")
      const proxy = Redacted.make("http://user:secret@proxy.example:3128")
      const bytes = yield* withPlatform(
        (platform) =>
          Effect.gen(function* () {
            const tooLong = yield* Effect.flip(
              platform.audio(vid(recordedVideos.captioned), { maxDurationSeconds: 1 })
            )
            expect(tooLong._tag).toBe("DurationLimitExceeded")
            const audio = yield* platform.audio(vid(recordedVideos.captioned), { maxDurationSeconds: 3600 })
            expect(audio.contentLength).toBeNull()
            return yield* collect(audio.bytes)
          }),
        [],
        { ytDlpPath: Option.some(fake.path), proxies: [proxy] }
      )
      expect(new TextDecoder().decode(bytes)).toBe("AUDIO-BYTES")
      expect(fake.args()).toEqual([...ytDlpArgs(recordedVideos.captioned, proxy)])
      expect(fake.args()).toContain("http://user:secret@proxy.example:3128")
    })
  )

  it.live("reads yt-dlp's failure, and a binary that cannot run, as typed errors", () =>
    Effect.gen(function* () {
      const run = (path: string) =>
        withPlatform(
          (platform) =>
            platform
              .audio(vid(recordedVideos.captioned), { maxDurationSeconds: 3600 })
              .pipe(Effect.flatMap((audio) => Effect.flip(Stream.runDrain(audio.bytes)))),
          [],
          { ytDlpPath: Option.some(path) }
        )
      const bot = yield* run(
        script('echo "ERROR: [youtube] GJLlxj_dtq8: Sign in to confirm you’re not a bot" >&2; exit 1').path
      )
      expect(bot).toMatchObject({ _tag: "PlatformBlocked", kind: "bot_check" })
      const other = yield* run(script("echo 'ERROR: something odd' >&2; exit 2").path)
      expect(answered(other)).toEqual(["AudioUnavailable", "no_audio", 404])
      expect(other).toMatchObject({ reason: "yt-dlp exited with code 2: ERROR: something odd" })
      const missing = yield* run("/nonexistent/yt-dlp")
      expect(missing).toMatchObject({
        _tag: "AudioUnavailable",
        reason: expect.stringContaining("cannot run yt-dlp")
      })
    })
  )
})
