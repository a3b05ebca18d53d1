import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as AsrOptions from "../../src/asr/options.js"
import * as L from "../../src/plan/limits.js"
import { planLimits } from "../../src/plan/plan-limits.js"

const accepts = <A, I>(schema: Schema.Schema<A, I>, value: unknown): boolean =>
  Either.isRight(Schema.decodeUnknownEither(schema)(value))

describe("limits", () => {
  it("carry the spec's numbers", () => {
    expect(L.pageLimit).toEqual({ min: 1, max: 100, default: 50 })
    expect(L.page).toEqual({ min: 1, max: 10_000_000, default: 1 })
    expect(L.recommendationsLimit).toEqual({ min: 1, max: 30, default: 6 })
    expect(L.recommendationsChannels).toEqual({ min: 1, max: 10, default: 3 })
    expect(L.playlistResolveLimit).toEqual({ min: 1, max: 100, default: 100 })
    expect(L.channelHistoryLimit).toEqual({ min: 1, max: 100, default: 50 })
    expect(L.maxUploadSizeBytes).toBe(2147483648)
    expect(L.maxUploadDurationSeconds).toBe(28800)
    expect(L.maxBatchSize).toBe(3000)
    expect(L.maxBatchSize).toBe(planLimits.business.batchSize)
    expect(L.finishedBatchFetchesPerWindow).toBe(60)
    expect(L.finishedBatchFetchWindowMs).toBe(86_400_000)
    expect(L.maxAsrDurationMinutes).toBe(480)
    expect(L.maxAsrDurationSeconds).toBe(28800)
    expect(L.themesPostWaitMs).toBe(25_000)
    expect(L.batchResponseWithinMs).toBe(2000)
  })

  it("re-export the ASR option bounds rather than repeat them", () => {
    expect(L.maxKeyTerms).toBe(AsrOptions.maxKeyTerms)
    expect(L.maxKeyTerms).toBe(200)
    expect(L.maxWordsPerKeyTerm).toBe(6)
    expect(L.maxSpeakerIdKnownValues).toBe(20)
    expect(L.maxSpeakerIdKnownValueLength).toBe(35)
    expect([L.minSpeakers, L.maxSpeakers]).toEqual([1, 20])
  })

  it("bounded schemas accept their inclusive range and nothing else", () => {
    const cases = [
      [L.PageLimit, L.pageLimit],
      [L.RecommendationsLimit, L.recommendationsLimit],
      [L.RecommendationsChannels, L.recommendationsChannels],
      [L.PlaylistResolveLimit, L.playlistResolveLimit],
      [L.ChannelHistoryLimit, L.channelHistoryLimit]
    ] as const
    for (const [schema, bounds] of cases) {
      expect(accepts(schema, bounds.min)).toBe(true)
      expect(accepts(schema, bounds.max)).toBe(true)
      expect(accepts(schema, bounds.default)).toBe(true)
      expect(accepts(schema, bounds.min - 1)).toBe(false)
      expect(accepts(schema, bounds.max + 1)).toBe(false)
      expect(accepts(schema, bounds.min + 0.5)).toBe(false)
      expect(L.withinBounds(bounds, bounds.max)).toBe(true)
      expect(L.withinBounds(bounds, bounds.max + 1)).toBe(false)
    }
    expect(accepts(L.Page, 1)).toBe(true)
    expect(accepts(L.Page, 0)).toBe(false)
    expect(accepts(L.ChannelResolveRequestLimit, 1)).toBe(true)
    expect(accepts(L.ChannelResolveRequestLimit, 0)).toBe(false)
  })

  it("upload limits are inclusive and the type must be audio/ or video/", () => {
    expect(L.isUploadMimeType("audio/mpeg")).toBe(true)
    expect(L.isUploadMimeType("video/mp4")).toBe(true)
    expect(L.isUploadMimeType("Video/MP4")).toBe(true)
    expect(L.isUploadMimeType("image/png")).toBe(false)
    expect(L.isUploadMimeType("application/audio")).toBe(false)
    expect(L.uploadSizeAllowed(2147483648)).toBe(true)
    expect(L.uploadSizeAllowed(2147483649)).toBe(false)
    expect(L.uploadDurationAllowed(28800)).toBe(true)
    expect(L.uploadDurationAllowed(28801)).toBe(false)
    expect(L.uploadDurationAllowed(-1)).toBe(false)
    expect(L.uploadDurationAllowed(0)).toBe(false)
    expect(L.uploadSizeAllowed(0)).toBe(false)
    expect(L.uploadSizeAllowed(1)).toBe(true)
  })
})
