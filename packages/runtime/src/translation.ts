/**
 * Machine translation (the `Translator` port of POST /transcripts/{video_id}/translate), chosen by
 * settings:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | VERBATIM_TRANSLATION | auto | `auto`: the model when VERBATIM_AI_MODEL is set, else Apertium where a pair is installed, else none; or `ai`, `apertium`, `none` |
 * | VERBATIM_AI_* | see `@verbatim/llm` | the OpenAI-compatible model: base URL, model, key, limits |
 * | VERBATIM_APERTIUM_* | see `@verbatim/apertium` | the local engine's binary, time limit and concurrency |
 *
 * The platform's own caption translation needs no engine: the translate use case reads it from the
 * video platform.
 */
import { ApertiumConfig, ApertiumTranslator, installHint } from "@verbatim/apertium"
import { TranslationUnsupported, Translator } from "@verbatim/core"
import { LlmConfig } from "@verbatim/llm/config"
import { Config, ConfigError, Effect, Layer, Option } from "effect"

export type TranslationEngineName = "auto" | "ai" | "apertium" | "none"

export const TranslationEngineConfig: Config.Config<TranslationEngineName> = Config.literal(
  "auto",
  "ai",
  "apertium",
  "none"
)("VERBATIM_TRANSLATION").pipe(Config.withDefault("auto" as const))

/** How to get machine translation going, said by every refusal of the `none` engine. */
export const translationHint = `set VERBATIM_AI_MODEL (with VERBATIM_AI_BASE_URL and VERBATIM_AI_API_KEY) for an OpenAI-compatible model, or ${installHint}`

/** No engine: every pair is refused (400 `unsupported_language`, naming the reason). */
export const noTranslator = (reason: string): Layer.Layer<Translator> =>
  Layer.succeed(
    Translator,
    Translator.of({
      engine: "none",
      supports: (source, target) =>
        Effect.fail(new TranslationUnsupported({ engine: "none", source, target, reason })),
      translate: (input) =>
        Effect.fail(
          new TranslationUnsupported({ engine: "none", source: input.source, target: input.target, reason })
        )
    })
  )

/** The engine the settings choose (`auto`: the model when configured, else Apertium where installed). */
export const translationFor = (
  engine: TranslationEngineName
): Layer.Layer<Translator, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const model = yield* LlmConfig
      const choice = engine === "auto" ? (Option.isSome(model) ? "ai" : "apertium") : engine
      switch (choice) {
        case "none":
          return noTranslator(
            `machine translation is switched off (VERBATIM_TRANSLATION=none); ${translationHint}`
          )
        case "ai": {
          if (Option.isNone(model)) {
            return yield* Effect.fail(
              ConfigError.MissingData(
                ["VERBATIM_AI_MODEL"],
                "VERBATIM_TRANSLATION=ai needs VERBATIM_AI_MODEL"
              )
            )
          }
          // Loaded only when a model is configured (its client is a large module).
          const { AiTranslator, layer: llmLayer } = yield* Effect.promise(() => import("@verbatim/llm"))
          return AiTranslator.layer.pipe(Layer.provide(llmLayer(model.value)))
        }
        case "apertium": {
          const settings = yield* ApertiumConfig
          const modes = yield* ApertiumTranslator.installedModes(settings)
          if (modes.length > 0 || engine === "apertium") return ApertiumTranslator.layer(settings, modes)
          const reason = `no machine translation engine is configured or installed: ${translationHint}`
          yield* Effect.logInfo(`machine translation is off: ${reason}`)
          return noTranslator(reason)
        }
      }
    })
  )
