/**
 * The opt-in live smoke test: the adapter against today's YouTube. Skipped unless
 * `VERBATIM_YOUTUBE_LIVE=1` (it needs internet access; the project's machines have none):
 *
 *   VERBATIM_YOUTUBE_LIVE=1 pnpm vitest run --project youtube test/live.test.ts
 *
 * Proxies and the other settings come from the environment (`YouTubeConfig`). A typed refusal
 * (say `PlatformBlocked` from a cloud address) fails the test with YouTube's reason.
 */
import { describe, expect, it } from "@effect/vitest"
import { collectUploads, VideoPlatform } from "@verbatim/core"
import { type Ids, Reference } from "@verbatim/domain"
import { segmentIssues } from "@verbatim/testkit"
import { Effect, Either, Layer } from "effect"
import * as YouTubePlatform from "../src/platform.js"

const live = process.env.VERBATIM_YOUTUBE_LIVE === "1"

/** "Me at the zoo" (2005), the first video on YouTube; YouTube's own channel. */
const video = "jNQXAC9IVRw" as Ids.VideoId
const youtubeChannel = "UCBR8-60-B28hp2BmDPdntcQ"

// Live clock: today's YouTube over the network.
describe.skipIf(!live)("YouTube, live", () => {
  const layer = Layer.orDie(YouTubePlatform.layerConfig)

  it.live(
    "reads a video's details and the text of its caption tracks",
    () =>
      Effect.gen(function* () {
        const platform = yield* VideoPlatform
        const details = yield* platform.video(video)
        expect(details.title).toBeTruthy()
        expect(details.durationSeconds).toBeGreaterThan(0)
        for (const track of details.captionTracks.slice(0, 2)) {
          const segments = yield* platform.captions(video, track)
          expect(segments.length).toBeGreaterThan(0)
          expect(segmentIssues(segments)).toEqual([])
        }
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live(
    "resolves a handle and lists the channel's newest uploads",
    () =>
      Effect.gen(function* () {
        const platform = yield* VideoPlatform
        const channel = yield* platform.channel(Either.getOrThrow(Reference.parseChannel("@YouTube")))
        expect(channel.id).toBe(youtubeChannel)
        const uploads = yield* collectUploads(channel.id, 40)
        expect(uploads.videos.length).toBeGreaterThan(0)
      }).pipe(Effect.provide(layer)),
    60_000
  )
})
