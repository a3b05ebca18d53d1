/** A small valid catalogue in its JSON form, fresh on each call, for tests that break one rule. */

export interface SegmentJson {
  text: string
  start: number
  end: number
}
export interface TrackJson {
  language: string
  kind: string
  name?: string
  segments: Array<SegmentJson>
}
export interface VideoJson {
  id: string
  title: string
  duration_seconds: number
  channel_id: string
  published_at: string
  original_language: string | null
  caption_tracks: Array<TrackJson>
  translation_languages: Array<string>
  unavailable?: string
  thumbnail_url?: string
}
export interface ChannelJson {
  id: string
  title: string
  handle: string
  subscriber_count: number
}
export interface PlaylistJson {
  id: string
  title: string
  channel_id: string | null
  video_ids: Array<string>
}
/** A catalogue file's JSON, mutable, for tests that break it. */
export interface CatalogueFile {
  channels: Array<ChannelJson>
  videos: Array<VideoJson>
  playlists: Array<PlaylistJson>
}

export const channelA = "UCaaaaaaaaaaaaaaaaaaaaaa"
export const channelB = "UCbbbbbbbbbbbbbbbbbbbbbb"

export const validJson = (): CatalogueFile => ({
  channels: [
    { id: channelA, title: "Channel A", handle: "channel-a", subscriber_count: 10 },
    { id: channelB, title: "Channel B", handle: "ChannelB", subscriber_count: 0 }
  ],
  videos: [
    {
      id: "aaaaaaaaaaa",
      title: "First",
      duration_seconds: 60,
      channel_id: channelA,
      published_at: "2024-01-01T10:00:00Z",
      original_language: "en",
      caption_tracks: [
        {
          language: "en",
          kind: "manual",
          name: "English",
          segments: [
            { text: "one", start: 0, end: 1000 },
            { text: "two", start: 1000, end: 2000 },
            { text: "three", start: 2500, end: 4000 }
          ]
        },
        { language: "en", kind: "auto", segments: [{ text: "one two three", start: 0, end: 4000 }] }
      ],
      translation_languages: ["de", "fr"],
      thumbnail_url: "https://example.com/a.jpg"
    },
    {
      id: "bbbbbbbbbbb",
      title: "Second",
      duration_seconds: 30,
      channel_id: channelB,
      published_at: "2024-02-01T10:00:00+01:00",
      original_language: null,
      caption_tracks: [],
      translation_languages: []
    },
    {
      id: "ccccccccccc",
      title: "Gone",
      duration_seconds: 5,
      channel_id: channelA,
      published_at: "2023-01-01T00:00:00.000Z",
      original_language: "en",
      caption_tracks: [],
      translation_languages: [],
      unavailable: "This video has been removed by the uploader."
    }
  ],
  playlists: [
    {
      id: "PLfirst",
      title: "Mix",
      channel_id: null,
      video_ids: ["aaaaaaaaaaa", "bbbbbbbbbbb", "aaaaaaaaaaa"]
    },
    { id: "PLsecond", title: "A's", channel_id: channelA, video_ids: [] }
  ]
})

/** The item at `i`, which the test knows is there. */
export const at = <A>(items: ReadonlyArray<A>, i: number): A => {
  const item = items[i]
  if (item === undefined) throw new Error(`fixture has no item ${i}`)
  return item
}
