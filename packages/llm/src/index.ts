/**
 * `@verbatim/llm`: an OpenAI-compatible language model for Verbatim's adapters.
 *
 * - `LlmConfig` / `LlmSettings`: `VERBATIM_AI_MODEL`, `VERBATIM_AI_BASE_URL`, `VERBATIM_AI_API_KEY`
 *   (`Redacted`) and limits (see config.ts).
 * - `Llm`: `generateObject({ name, schema, system, prompt })` with time limit and retries; every
 *   failure is an `LlmError`. Layers: `layer(settings)`, `layerConfig`.
 * - `@verbatim/llm/testing`: a local stand-in Responses API server for tests.
 */
export * from "./config.js"
export * from "./model.js"
export * as AiThemes from "./themes.js"
export * as AiTranslator from "./translator.js"
