import type { Ids } from "@verbatim/domain"
import { videoPlatformContract } from "@verbatim/testkit"
import {
  recordedCollections,
  recordedVideos,
  recordedYouTube,
  replayFetch,
  replayLayer
} from "../src/testing.js"

videoPlatformContract("youtube, replayed", replayLayer(replayFetch(recordedYouTube())), {
  captioned: recordedVideos.captioned as Ids.VideoId,
  uncaptioned: recordedVideos.captionsDisabled as Ids.VideoId,
  unavailable: recordedVideos.unavailable as Ids.VideoId,
  playlist: recordedCollections.playlist as Ids.PlaylistId,
  missingPlaylist: "PLnoSuchPlaylistAnywhere" as Ids.PlaylistId,
  channel: {
    id: recordedCollections.channel.id as Ids.ChannelId,
    handle: recordedCollections.channel.handle as Ids.ChannelHandle
  },
  missingHandle: recordedCollections.missingHandle as Ids.ChannelHandle,
  audio: { videoId: recordedVideos.captioned as Ids.VideoId, available: true }
})
