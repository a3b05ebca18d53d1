/**
 * `@verbatim/apertium`: local machine translation on Debian's Apertium language pairs (the
 * embedded default's `Translator`), and how to find which pairs are installed.
 */
export * from "./config.js"
export * as ApertiumTranslator from "./engine.js"
export { installHint } from "./engine.js"
export * from "./pairs.js"
