/**
 * @verbatim/runtime: the config-chosen infrastructure of every Verbatim process (database, video
 * platform, queue, rate limiter, secrets, webhooks), the use cases and the worker on top, built once
 * for the server, the worker, the tests and the bench.
 */
export * from "./address.js"
export * from "./failure.js"
export * from "./heartbeat.js"
export * from "./layers.js"
export * from "./media.js"
export * from "./secret-files.js"
export * from "./settings.js"
export * from "./signals.js"
export * from "./testing.js"
export * from "./themes.js"
export * from "./translation.js"
