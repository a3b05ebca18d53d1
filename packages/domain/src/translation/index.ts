/** Translation of stored transcripts: chunks that fit an engine's limit and keep segment boundaries. */
export * from "./chunks.js"
