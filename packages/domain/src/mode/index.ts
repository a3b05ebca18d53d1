/** Transcription modes: the mode literals, the account default, resolution and the ASR confirmation step. */
export * from "./account-default.js"
export * from "./confirmation.js"
export * from "./error.js"
export * from "./mode.js"
export * from "./resolve.js"
