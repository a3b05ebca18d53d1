/**
 * @verbatim/themes-local: core's `ThemesEngine` on the embedded default, with no model server:
 * wink-nlp noun phrases and lemmas, keywords clustered by co-occurrence across segments, an
 * extractive tldr (see `detect.ts`). Tuned for English; other languages get the same pipeline, with
 * the English model's tagging.
 */
import { ThemesEngine, ThemesEngineError } from "@verbatim/core"
import { Effect, Layer } from "effect"
import { defaultOptions, detect, type LocalThemesOptions, pipeline } from "./detect.js"

export { defaultOptions, detect, type LocalThemesOptions } from "./detect.js"

export const engineName = "local"

/** The local engine; the model loads when the layer is built. */
export const layer = (options: LocalThemesOptions = defaultOptions): Layer.Layer<ThemesEngine> =>
  Layer.effect(
    ThemesEngine,
    Effect.sync(() => {
      const nlp = pipeline()
      return ThemesEngine.of({
        name: engineName,
        detect: (input) =>
          Effect.try({
            try: () => detect(input, options, nlp),
            catch: (cause) => new ThemesEngineError({ engine: engineName, reason: String(cause) })
          }).pipe(
            Effect.withSpan("verbatim.themes.local", {
              attributes: { "themes.segments": input.segments.length },
              captureStackTrace: false
            })
          )
      })
    })
  )
