/** Transcript exports: SRT, WebVTT, plain text, and their timecodes. */
export * from "./srt.js"
export * from "./timecode.js"
export * from "./txt.js"
export * from "./vtt.js"
