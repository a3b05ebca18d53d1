/** Readers of caption files (SRT, WebVTT) into cues. */
export * from "./error.js"
export * from "./srt.js"
export * from "./vtt.js"
