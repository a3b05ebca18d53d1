/**
 * @verbatim/assemblyai: the AssemblyAI `SpeechToText` engine (production speech recognition).
 * `AssemblyAiSpeechToText.layerConfig` reads its settings from the environment (`AssemblyAiConfig`),
 * `AssemblyAiSpeechToText.layer(settings)` and `make(settings)` take them directly. Tests run it
 * against the local stand-in of `@verbatim/assemblyai/testing`.
 */
export { type AssemblyAiClient, retryPolicy } from "./client.js"
export * from "./config.js"
export type { AssemblyAiRecognition, AssemblyAiSpeechToTextService } from "./engine.js"
export * as AssemblyAiSpeechToText from "./engine.js"
export * as AssemblyAiLanguages from "./languages.js"
export type { Translation } from "./recognition.js"
export { TranscriptRequest, transcriptRequest } from "./request.js"
