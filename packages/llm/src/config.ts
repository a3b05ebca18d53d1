/**
 * The language model's settings, all from environment variables. The model is optional: without
 * `VERBATIM_AI_MODEL` no model is configured (`LlmConfig` is `Option.none()`), and the features
 * that need one fall back or refuse (see docs/decisions/translation.md). A bad value stops the start with a
 * message naming the variable.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_AI_MODEL | unset | the model name sent to the server (`gpt-4.1-mini`, `llama3.2`, ...); unset: no model |
 * | VERBATIM_AI_BASE_URL | https://api.openai.com/v1 | where `/responses` lives (`http://127.0.0.1:11434/v1` for Ollama) |
 * | VERBATIM_AI_API_KEY | unset | sent as `Authorization: Bearer <key>`; a local server may need none |
 * | VERBATIM_AI_MAX_INPUT_CHARS | 6000 | the most characters of source text one request carries (long work is split) |
 * | VERBATIM_AI_TIMEOUT_MS | 120000 | time limit of one request |
 * | VERBATIM_AI_RETRIES | 2 | retries of a failed request (network error, 429, 5xx, time-out, a reply that does not decode) |
 * | VERBATIM_AI_CONCURRENCY | 2 | requests one piece of work may have in flight at once |
 */
import { Config, Duration, Option, Redacted } from "effect"

export interface LlmSettings {
  /** Where the Responses API lives, without the trailing `/responses`. */
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** The most characters of source text one request carries. */
  readonly maxInputCharacters: number
  readonly timeout: Duration.Duration
  readonly retries: number
  readonly concurrency: number
}

export const defaultBaseUrl = "https://api.openai.com/v1"

const positive = (name: string, fallback: number, min = 1) =>
  Config.integer(name).pipe(
    Config.validate({
      message: `${name} must be a whole number of at least ${min}`,
      validation: (n) => n >= min
    }),
    Config.withDefault(fallback)
  )

/** Settings with defaults for everything but the model (tests and the stand-in use this). */
export const settings = (
  options: Pick<LlmSettings, "baseUrl" | "model"> & Partial<Omit<LlmSettings, "baseUrl" | "model">>
): LlmSettings => ({
  apiKey: Option.none(),
  maxInputCharacters: 6000,
  timeout: Duration.minutes(2),
  retries: 2,
  concurrency: 2,
  ...options,
  baseUrl: options.baseUrl.replace(/\/+$/, "")
})

const BaseUrlConfig = Config.string("VERBATIM_AI_BASE_URL").pipe(
  Config.validate({
    message: "VERBATIM_AI_BASE_URL must be an http or https URL",
    validation: (url) => /^https?:\/\/[^\s]+$/.test(url)
  }),
  Config.withDefault(defaultBaseUrl)
)

/** The configured model, or `none` when `VERBATIM_AI_MODEL` is unset or empty. */
export const LlmConfig: Config.Config<Option.Option<LlmSettings>> = Config.all({
  model: Config.option(Config.string("VERBATIM_AI_MODEL")),
  baseUrl: BaseUrlConfig,
  apiKey: Config.option(Config.redacted("VERBATIM_AI_API_KEY")),
  maxInputCharacters: positive("VERBATIM_AI_MAX_INPUT_CHARS", 6000, 200),
  timeoutMs: positive("VERBATIM_AI_TIMEOUT_MS", 120_000),
  retries: positive("VERBATIM_AI_RETRIES", 2, 0),
  concurrency: positive("VERBATIM_AI_CONCURRENCY", 2)
}).pipe(
  Config.map(({ model, timeoutMs, apiKey, ...rest }) =>
    Option.map(
      Option.filter(model, (m) => m.trim().length > 0),
      (m): LlmSettings =>
        settings({
          ...rest,
          model: m.trim(),
          apiKey: Option.filter(apiKey, (key) => Redacted.value(key).length > 0),
          timeout: Duration.millis(timeoutMs)
        })
    )
  )
)
