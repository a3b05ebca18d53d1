/**
 * One fetch per video at a time, whatever the requests that need it: concurrent requests for the
 * same video's details, or the same caption track, share one call to the platform, and a video's
 * details are kept for a short while after they arrive (a batch that names a video twice, or two
 * batches that name it, read its page once). Failures are never kept: the next request asks again.
 *
 * Every process that runs use cases (server, worker, MCP) wraps its platform with this layer.
 */
import type { Captions, Ids, Language, Transcript } from "@verbatim/domain"
import { Cache, Data, Duration, Effect, Exit, Layer } from "effect"
import { type PlatformError, type VideoDetails, VideoPlatform } from "../ports/video-platform.js"

export interface SharedFetchSettings {
  /** How long a video's details are kept after they arrive. */
  readonly detailsFor: Duration.DurationInput
  /** At most this many videos' details are kept. */
  readonly capacity: number
}

export const defaultSharedFetchSettings: SharedFetchSettings = {
  detailsFor: Duration.seconds(60),
  capacity: 10_000
}

class CaptionKey extends Data.Class<{
  readonly id: Ids.VideoId
  readonly track: Captions.CaptionTrack
  readonly translateTo: Language.LanguageCode | undefined
}> {}

/** The platform in context, its video and caption fetches shared. */
export const sharedFetches = (
  settings: SharedFetchSettings = defaultSharedFetchSettings
): Layer.Layer<VideoPlatform, never, VideoPlatform> =>
  Layer.effect(
    VideoPlatform,
    Effect.gen(function* () {
      const platform = yield* VideoPlatform
      const kept = Duration.decode(settings.detailsFor)
      const details = yield* Cache.makeWith({
        capacity: settings.capacity,
        lookup: (id: Ids.VideoId): Effect.Effect<VideoDetails, PlatformError> => platform.video(id),
        timeToLive: Exit.match({ onFailure: () => Duration.zero, onSuccess: () => kept })
      })
      // Caption texts are large: shared while in flight only.
      const captions = yield* Cache.make({
        capacity: settings.capacity,
        lookup: (key: CaptionKey): Effect.Effect<ReadonlyArray<Transcript.Segment>, PlatformError> =>
          platform.captions(
            key.id,
            key.track,
            key.translateTo === undefined ? undefined : { translateTo: key.translateTo }
          ),
        timeToLive: Duration.zero
      })
      return VideoPlatform.of({
        ...platform,
        // A failure is dropped at once (a zero time to live still lasts the millisecond it ends in).
        video: (id) => details.get(id).pipe(Effect.tapError(() => details.invalidate(id))),
        captions: (id, track, options) =>
          Effect.suspend(() => {
            const key = new CaptionKey({ id, track, translateTo: options?.translateTo })
            return captions.get(key).pipe(Effect.ensuring(captions.invalidate(key)))
          })
      })
    })
  )
