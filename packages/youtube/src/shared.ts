/**
 * What the adapter keeps in the fleet's `SharedCache` (when the runtime gives it one): a video's
 * record (its details, caption track URLs and audio formats) and caption texts, as JSON through
 * these schemas, so every server and worker reads what one of them fetched. Only successes are
 * shared; the facts a failure tells (a private video) stay in each process's own cache.
 *
 * A shared value that does not decode (written by another version) is fetched again and replaced.
 */
import type { SharedCache } from "@verbatim/core"
import { Captions, Ids, Language, Transcript } from "@verbatim/domain"
import { type Duration, Effect, Option, Schema } from "effect"
import { FormatJson, type VideoRecord } from "./player.js"

const VideoDetailsJson = Schema.Struct({
  id: Ids.VideoId,
  title: Schema.NullOr(Schema.String),
  durationSeconds: Schema.NullOr(Schema.Number),
  channelId: Schema.NullOr(Ids.ChannelId),
  channelTitle: Schema.NullOr(Schema.String),
  publishedAt: Schema.NullOr(Schema.DateTimeUtc),
  originalLanguage: Schema.NullOr(Language.LanguageCode),
  captionTracks: Schema.Array(Captions.CaptionTrack),
  translationLanguages: Schema.Array(Language.LanguageCode),
  audioDub: Schema.optionalWith(Schema.Struct({ language: Schema.NullOr(Language.LanguageCode) }), {
    exact: true
  })
})

/** A video's record as JSON text. */
export const VideoRecordJson: Schema.Schema<VideoRecord, string> = Schema.parseJson(
  Schema.Struct({
    details: VideoDetailsJson,
    tracks: Schema.Array(
      Schema.Struct({ track: Captions.CaptionTrack, baseUrl: Schema.String, translatable: Schema.Boolean })
    ),
    formats: Schema.Array(FormatJson)
  })
)

/** A caption text (its segments) as JSON text. */
export const SegmentsJson: Schema.Schema<ReadonlyArray<Transcript.Segment>, string> = Schema.parseJson(
  Schema.Array(Transcript.Segment)
)

/**
 * `lookup` through the shared cache, when there is one: a value found there is decoded and
 * answered; otherwise `lookup` runs and its success is kept for `ttl`.
 */
export const sharedLookup = <K, A, E, R>(
  cache: Option.Option<SharedCache["Type"]>,
  options: {
    readonly key: (key: K) => string
    readonly schema: Schema.Schema<A, string>
    readonly ttl: Duration.Duration
  },
  lookup: (key: K) => Effect.Effect<A, E, R>
): ((key: K) => Effect.Effect<A, E, R>) =>
  Option.match(cache, {
    onNone: () => lookup,
    onSome: (shared) => {
      const decode = Schema.decode(options.schema)
      const encode = Schema.encode(options.schema)
      return (key: K) => {
        const name = options.key(key)
        const fetchAndKeep = Effect.tap(lookup(key), (value) =>
          encode(value).pipe(
            Effect.flatMap((text) => shared.set(name, text, options.ttl)),
            Effect.catchAll((error) => Effect.logWarning(`youtube: could not share ${name}`, error))
          )
        )
        return Effect.flatMap(shared.get(name), (found) =>
          Option.match(found, {
            onNone: () => fetchAndKeep,
            onSome: (text) => Effect.catchAll(decode(text), () => fetchAndKeep)
          })
        )
      }
    }
  })
