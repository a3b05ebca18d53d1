/**
 * A cache every process of the fleet reads: what a platform adapter fetched (a video's details, a
 * caption text) is kept once for all servers and workers, whatever account asked, so the same video
 * is fetched once per time to live. Values are text (the adapter encodes them with its schemas);
 * public platform data only: ownership and charging stay in the database.
 *
 * A cache never fails its caller: when it cannot answer (Redis down), `get` misses and `set` does
 * nothing, and the adapter fetches as it would without it. In memory for one process (bounded by
 * entries); in Redis for a fleet (bounded by entries and by the size of one value).
 */
import { Context, type Duration, type Effect, type Option } from "effect"

export class SharedCache extends Context.Tag("@verbatim/core/SharedCache")<
  SharedCache,
  {
    readonly get: (key: string) => Effect.Effect<Option.Option<string>>
    /** Keeps `value` under `key` for `ttl`; a value over the implementation's size bound is not kept. */
    readonly set: (key: string, value: string, ttl: Duration.Duration) => Effect.Effect<void>
  }
>() {}
