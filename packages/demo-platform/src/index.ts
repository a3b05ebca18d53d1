/**
 * @verbatim/demo-platform: a `VideoPlatform` read from a catalogue file of videos, caption tracks,
 * channels and playlists (VERBATIM_PLATFORM=demo). `DemoPlatform.layer(path)` is the adapter;
 * the catalogue format, its loader and its read helpers are exported beside it.
 */
export * from "./catalogue.js"
export * from "./load.js"
export * from "./lookup.js"
export * as DemoPlatform from "./platform.js"
export * from "./shipped.js"
export * from "./synthetic.js"
