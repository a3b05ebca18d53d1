/**
 * The video platform's last outcome, for `GET /health`: whether the last answer this process had
 * from the platform was an answer (`ok`, including a refusal about one video or an answer of a
 * shape nobody could read), a refusal of this server (`blocked`: bot check, IP block, consent page,
 * proof-of-origin token, a rate limit that outlasted the retries), or none at all (`unreachable`:
 * timeouts, network errors, 5xx after every retry). It is information: it never makes the server
 * unready, since everything that does not need the platform still works.
 *
 * Every process that runs use cases wraps its platform with `observedPlatform`, which also shares
 * its fetches (`sharedFetches`).
 */
import { Cause, Context, DateTime, Effect, Exit, Layer, Option, Ref, Stream } from "effect"
import { type PlatformError, VideoPlatform } from "../ports/video-platform.js"
import { type SharedFetchSettings, sharedFetches } from "./shared-fetches.js"

export type PlatformOutcome = "ok" | "blocked" | "unreachable"

export interface PlatformReport {
  readonly outcome: PlatformOutcome
  readonly at: DateTime.Utc
  /** Why it was blocked or unreachable. */
  readonly reason: string | null
}

/** What the last answer of the platform was, in this process. */
export class PlatformHealth extends Context.Tag("@verbatim/core/PlatformHealth")<
  PlatformHealth,
  {
    /** The last outcome; none before the platform was first asked. */
    readonly last: Effect.Effect<Option.Option<PlatformReport>>
    readonly record: (outcome: PlatformOutcome, reason: string | null) => Effect.Effect<void>
  }
>() {}

/** A fresh record, in memory (each build of the layer its own). */
export const platformHealthLayer = (): Layer.Layer<PlatformHealth> =>
  Layer.effect(
    PlatformHealth,
    Effect.map(Ref.make(Option.none<PlatformReport>()), (ref) =>
      PlatformHealth.of({
        last: Ref.get(ref),
        record: (outcome, reason) =>
          Effect.flatMap(DateTime.now, (at) => Ref.set(ref, Option.some({ outcome, at, reason })))
      })
    )
  )

/** The outcome a platform failure tells of: the platform's own trouble, or an answer. */
export const outcomeOf = (error: PlatformError): { outcome: PlatformOutcome; reason: string | null } => {
  switch (error._tag) {
    case "PlatformBlocked":
      return { outcome: "blocked", reason: `${error.kind}: ${error.reason}` }
    case "PlatformUnavailable":
      return { outcome: "unreachable", reason: error.reason }
    default:
      return { outcome: "ok", reason: null }
  }
}

/** The platform in context, the outcome of each of its answers kept in `PlatformHealth`. */
export const watchedPlatform: Layer.Layer<VideoPlatform, never, VideoPlatform | PlatformHealth> =
  Layer.effect(
    VideoPlatform,
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const health = yield* PlatformHealth
      const failed = (error: PlatformError) => {
        const { outcome, reason } = outcomeOf(error)
        return health.record(outcome, reason)
      }
      const watched = <A>(effect: Effect.Effect<A, PlatformError>) =>
        Effect.onExit(effect, (exit) =>
          Exit.match(exit, {
            onSuccess: () => health.record("ok", null),
            onFailure: (cause) =>
              Option.match(Cause.failureOption(cause), { onNone: () => Effect.void, onSome: failed })
          })
        )
      return VideoPlatform.of({
        video: (id) => watched(platform.video(id)),
        captions: (id, track, options) => watched(platform.captions(id, track, options)),
        playlist: (id, continuation) => watched(platform.playlist(id, continuation)),
        channel: (ref) => watched(platform.channel(ref)),
        uploads: (id, continuation) => watched(platform.uploads(id, continuation)),
        audio: (id, options) =>
          Effect.map(watched(platform.audio(id, options)), (audio) => ({
            ...audio,
            bytes: Stream.tapError(audio.bytes, failed)
          }))
      })
    })
  )

/**
 * The platform every process uses: its fetches shared (`sharedFetches`) and its outcomes watched
 * (`PlatformHealth`, which this layer provides too).
 */
export const observedPlatform = <E, R>(
  platform: Layer.Layer<VideoPlatform, E, R>,
  settings?: SharedFetchSettings
): Layer.Layer<VideoPlatform | PlatformHealth, E, R> => {
  const health = platformHealthLayer()
  return Layer.merge(
    sharedFetches(settings).pipe(
      Layer.provide(watchedPlatform),
      Layer.provide(Layer.merge(platform, health))
    ),
    health
  )
}
