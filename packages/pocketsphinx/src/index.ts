/**
 * @verbatim/pocketsphinx: the local `SpeechToText` of the embedded default, Debian's pocketsphinx
 * (English) with ffmpeg to read the input. `PocketsphinxSpeech.layerConfig` is the engine over
 * the environment's settings (`PocketsphinxConfig`), `PocketsphinxSpeech.layer(settings)` over
 * given ones; `detect` tells whether the engine is installed. What each ASR option does:
 * `options.ts`.
 */
export * from "./config.js"
export { Detection, debianPackages, detect, detectWith, installHint } from "./detect.js"
export * as PocketsphinxSpeech from "./engine.js"
export { refusal } from "./options.js"
