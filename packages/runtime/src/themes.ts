/**
 * Themes: the engine and the settings of theme detection, from the environment.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_THEMES_ENGINE | `auto` | `local`: wink-nlp on this machine (`@verbatim/themes-local`); `llm`: the OpenAI-compatible model of `VERBATIM_AI_*` (`@verbatim/llm`); `auto`: `llm` when `VERBATIM_AI_MODEL` is set, else `local` |
 * | VERBATIM_THEMES_WAIT_MS | 25000 | how long POST themes waits for detection before answering 202 |
 * | VERBATIM_THEMES_CONCURRENCY | 2 | detections one process runs at once |
 * | VERBATIM_THEMES_MAX_ATTEMPTS | 3 | claims of one detection before it is refunded |
 */
import {
  defaultThemesSettings,
  type ThemesEngine,
  ThemesSettings,
  type ThemesSettingsShape
} from "@verbatim/core"
import { LlmConfig } from "@verbatim/llm/config"
import * as LocalThemes from "@verbatim/themes-local"
import { Config, ConfigError, Effect, Layer, Option } from "effect"

export type ThemesEngineName = "auto" | "local" | "llm"

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a whole number of at least 1`, validation: (n) => n >= 1 }),
    Config.withDefault(fallback)
  )

export const ThemesSettingsConfig: Config.Config<ThemesSettingsShape> = Config.all({
  waitMs: positive("VERBATIM_THEMES_WAIT_MS", defaultThemesSettings.waitMs),
  concurrency: positive("VERBATIM_THEMES_CONCURRENCY", defaultThemesSettings.concurrency),
  maxAttempts: positive("VERBATIM_THEMES_MAX_ATTEMPTS", defaultThemesSettings.maxAttempts)
}).pipe(Config.map((read) => ({ ...defaultThemesSettings, ...read })))

export const ThemesEngineConfig: Config.Config<ThemesEngineName> = Config.literal(
  "auto",
  "local",
  "llm"
)("VERBATIM_THEMES_ENGINE").pipe(Config.withDefault("auto" as const))

/** The local engine (wink-nlp), the embedded default. */
export const localThemesEngine: Layer.Layer<ThemesEngine> = LocalThemes.layer()

/**
 * The engine of a name: `llm` on the model of `VERBATIM_AI_*` (a start without `VERBATIM_AI_MODEL`
 * fails naming it), `local`, or `auto`: the model when one is configured, else local.
 */
export const themesEngineFor = (
  name: ThemesEngineName
): Layer.Layer<ThemesEngine, ConfigError.ConfigError> =>
  name === "local"
    ? localThemesEngine
    : Layer.unwrapEffect(
        Effect.gen(function* () {
          const model = yield* LlmConfig
          if (Option.isSome(model)) {
            // Loaded only when a model is configured (its client is a large module).
            const { AiThemes, layer: llmLayer } = yield* Effect.promise(() => import("@verbatim/llm"))
            return AiThemes.layer.pipe(Layer.provide(llmLayer(model.value)))
          }
          if (name === "auto") return localThemesEngine
          return yield* Effect.fail(
            ConfigError.MissingData(
              ["VERBATIM_AI_MODEL"],
              "VERBATIM_THEMES_ENGINE=llm needs VERBATIM_AI_MODEL"
            )
          )
        })
      )

/** The themes engine and settings the environment chooses. */
export const ThemesFromConfig: Layer.Layer<ThemesEngine | ThemesSettings, ConfigError.ConfigError> =
  Layer.unwrapEffect(
    Config.all({ engine: ThemesEngineConfig, settings: ThemesSettingsConfig }).pipe(
      Config.map(({ engine, settings }) =>
        Layer.merge(themesEngineFor(engine), Layer.succeed(ThemesSettings, settings))
      )
    )
  )

/** Themes for tests: the local engine (or the one given) and fast polling. */
export const testThemes = (
  engine: Layer.Layer<ThemesEngine, unknown> = localThemesEngine,
  settings: Partial<ThemesSettingsShape> = {}
): Layer.Layer<ThemesEngine | ThemesSettings, unknown> =>
  Layer.merge(engine, Layer.succeed(ThemesSettings, { ...defaultThemesSettings, pollMs: 50, ...settings }))
