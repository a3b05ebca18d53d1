import { NodeContext } from "@effect/platform-node"
import type { Ids } from "@verbatim/domain"
import { videoPlatformContract } from "@verbatim/testkit"
import { Layer } from "effect"
import * as DemoPlatform from "../src/platform.js"
import { shippedCataloguePath } from "../src/shipped.js"

// Two videos a page, so that the shipped playlists and channels span several pages.
videoPlatformContract(
  "demo catalogue",
  DemoPlatform.layer(shippedCataloguePath, { pageSize: 2 }).pipe(Layer.provide(NodeContext.layer)),
  {
    captioned: "Rt7mN0pWzYe" as Ids.VideoId,
    uncaptioned: "Pz8QeL1uWfH" as Ids.VideoId,
    unavailable: "Jm6VcX0bQpZ" as Ids.VideoId,
    playlist: "PLnw4Tq8Zr2mBestOf2024" as Ids.PlaylistId,
    missingPlaylist: "PLnothingHere" as Ids.PlaylistId,
    channel: {
      id: "UCn7Wq2LxT9bKd3Rv8MpZs1A" as Ids.ChannelId,
      handle: "northwindtalks" as Ids.ChannelHandle
    },
    missingHandle: "nobody-here" as Ids.ChannelHandle,
    audio: { videoId: "Wv5SpkDmo1A" as Ids.VideoId, available: true }
  }
)
