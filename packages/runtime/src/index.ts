/**
 * @verbatim/runtime: the config-chosen infrastructure of every Verbatim process (database, video
 * platform, queue, rate limiter, secrets, webhooks), the use cases and the worker on top, built once
 * for the server, the worker, the tests and the bench. The wiring for tests (a throw-away database,
 * fast work settings, test jobs) is the `@verbatim/runtime/testing` entry, so no process imports it.
 */
export * from "./address.js"
export * from "./failure.js"
export * from "./heartbeat.js"
export * from "./layers.js"
export * from "./media.js"
/** Core's `Secrets` port on `node:crypto` (randomness, API key hashes, webhook secrets). */
export * as NodeSecrets from "./node-secrets.js"
export * from "./secret-files.js"
export * from "./settings.js"
export * from "./settings-check.js"
export * from "./signals.js"
export * from "./themes.js"
export * from "./translation.js"
