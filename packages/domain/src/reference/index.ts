/** References typed by people: video, playlist and channel ids and URLs, parsed and built. */
export * from "./channel.js"
export * from "./error.js"
export * from "./platform-url.js"
export * from "./playlist.js"
export * from "./video.js"
