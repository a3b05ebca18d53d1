/**
 * @verbatim/youtube: the YouTube `VideoPlatform` (VERBATIM_PLATFORM=youtube).
 * `YouTubePlatform.layer(settings)` is the adapter, `YouTubeConfig` reads its settings from the
 * environment; the caption parsers and the transport's `YouTubeFetch` are exported beside them.
 * Tests replay recordings with `@verbatim/youtube/testing`.
 */
export * from "./captions.js"
export * from "./config.js"
export * as YouTubePlatform from "./platform.js"
export { type FetchFor, type FetchLike, nodeFetchFor, YouTubeFetch } from "./transport.js"
