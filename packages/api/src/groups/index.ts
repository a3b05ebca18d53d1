/** The handlers of the contract's groups (`@verbatim/contract`), one module per group. */
export * from "./credits.js"
export * from "./health.js"
export * from "./jobs.js"
export * from "./themes.js"
export * from "./transcribe.js"
export * from "./transcript-pages.js"
export * from "./transcripts.js"
export * from "./videos.js"
