/** Helpers of the adapter's tests: the platform over a replay, and how a failure reaches a caller. */
import { fromPlatformError, type PlatformError, VideoPlatform } from "@verbatim/core"
import { Captions, type Ids, type Language } from "@verbatim/domain"
import { Duration, Effect, type Layer, TestClock } from "effect"
import type { YouTubeSettings } from "../src/config.js"
import {
  type Answer,
  answering,
  type Recording,
  type Replay,
  recordedYouTube,
  replayFetch,
  replayLayer,
  testSettings
} from "../src/testing.js"

export const vid = (s: string) => s as Ids.VideoId
export const lang = (s: string) => s as Language.LanguageCode
export const track = (language: string, kind: "manual" | "auto") =>
  new Captions.CaptionTrack({ language: lang(language), kind, name: null })

/** A recording answering requests to `path` (of www.youtube.com) before the recorded set. */
export const at = (
  path: string,
  answer: (url: URL, body: string) => Answer,
  when: (url: URL, body: string) => boolean = () => true
): Recording =>
  answering(
    path,
    (r) => answer(r.url, r.body),
    (r) => when(r.url, r.body)
  )

/** A replay of `extra` recordings in front of the recorded set, and the platform over it. */
export const replaying = (
  extra: ReadonlyArray<Recording> = [],
  settings: Partial<YouTubeSettings> = {}
): { readonly replay: Replay; readonly layer: Layer.Layer<VideoPlatform> } => {
  const replay = replayFetch([...extra, ...recordedYouTube()])
  return { replay, layer: replayLayer(replay, { ...testSettings, ...settings }) }
}

/** Runs `f` with a fresh platform over `extra` recordings; answers the replay too. */
export const withPlatform = <A, E>(
  f: (platform: VideoPlatform["Type"], replay: Replay) => Effect.Effect<A, E>,
  extra: ReadonlyArray<Recording> = [],
  settings: Partial<YouTubeSettings> = {}
) => {
  const { replay, layer } = replaying(extra, settings)
  return Effect.provide(
    Effect.flatMap(VideoPlatform, (platform) => f(platform, replay)),
    layer
  )
}

/** `[tag, code, status]` of a failure as a caller sees it. */
export const answered = (error: PlatformError): readonly [string, string, number] => {
  const api = fromPlatformError(error)
  return [error._tag, api.code, api.status]
}

/** The requests of a replay to one path. */
export const requestsTo = (replay: Replay, path: string) =>
  replay.requests.filter((r) => r.url.pathname === path)

/**
 * Runs `effect` on the test clock while the clock moves on in 10 ms steps, for the adapter's waits
 * (between retries, for a request's time limit) among replayed answers that settle in real time.
 * Each step is uninterruptible: an adjust cut short may have taken a sleep off the clock unwoken.
 */
export const asTimePasses = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.raceFirst(effect, Effect.forever(Effect.uninterruptible(TestClock.adjust(Duration.millis(10)))))
