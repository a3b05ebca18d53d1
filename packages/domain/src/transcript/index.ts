/** Transcripts: segments and words, text, paragraphs, cues, and the SRT, WebVTT and text formats. */
export * from "./cue.js"
export * from "./export/index.js"
export * from "./order.js"
export * from "./paragraphs.js"
export * from "./parse/index.js"
export * from "./segment.js"
export * from "./text.js"
export * from "./words.js"
