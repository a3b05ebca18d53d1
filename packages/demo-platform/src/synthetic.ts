/**
 * A synthetic catalogue of any size, in the file format of `docs/demo-catalogue.md`: `count`
 * videos of one channel, each with one English manual track, and a playlist of all of them in
 * order. For tests and benchmarks that need thousands of videos (a 3,000-video batch).
 *
 * Video ids are `v` and ten digits (`v0000000042`), so `syntheticVideoId(i)` names the i-th.
 */

/** The id of the `index`-th video of a synthetic catalogue. */
export const syntheticVideoId = (index: number): string => `v${String(index).padStart(10, "0")}`

export const syntheticChannelId = "UCsyntheticsyntheticsynt"
export const syntheticPlaylistId = "PLsynthetic"

/** The catalogue file's JSON value (write it with `JSON.stringify`). */
export const syntheticCatalogue = (count: number) => {
  const start = Date.UTC(2025, 0, 1)
  const videos = Array.from({ length: count }, (_, index) => ({
    id: syntheticVideoId(index),
    title: `Synthetic video ${index}`,
    duration_seconds: 30 + (index % 600),
    channel_id: syntheticChannelId,
    published_at: new Date(start + index * 3_600_000).toISOString(),
    original_language: "en",
    caption_tracks: [
      {
        language: "en",
        kind: "manual",
        name: "English",
        segments: [
          { text: `This is synthetic video number ${index}.`, start: 0, end: 2_000 },
          { text: "It has two lines of captions.", start: 2_000, end: 4_000 }
        ]
      }
    ],
    translation_languages: []
  }))
  return {
    channels: [{ id: syntheticChannelId, title: "Synthetic", handle: "synthetic", subscriber_count: count }],
    videos,
    playlists: [
      {
        id: syntheticPlaylistId,
        title: "Every synthetic video",
        channel_id: syntheticChannelId,
        video_ids: videos.map((video) => video.id)
      }
    ]
  }
}
