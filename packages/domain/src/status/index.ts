/** Statuses of every resource and the state machines that move them. */
export * from "./batch.js"
export * from "./collection.js"
export * from "./job.js"
export * from "./machine.js"
export * from "./stored-transcript.js"
export * from "./themes.js"
export * from "./upload.js"
