/** The contract's groups, each with its handlers. */
export * from "./credits.js"
export * from "./health.js"
export * from "./jobs.js"
export * from "./themes.js"
export * from "./transcribe.js"
export * from "./transcript-pages.js"
export * from "./transcripts.js"
export * from "./videos.js"
