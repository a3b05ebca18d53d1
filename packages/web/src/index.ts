/**
 * @verbatim/web: the web library served by the API server. Its pages (`src/ui`, Preact, bundled by
 * `scripts/bundle.mjs web` into `build/`) and the routes that serve them, sign people in with an API
 * key and keep their session in an HttpOnly cookie (`routes.ts`); the pages call the API's own
 * routes with that session.
 */
export * from "./assets.js"
export * from "./pages.js"
export * from "./routes.js"
