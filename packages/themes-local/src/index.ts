/**
 * @verbatim/themes-local: core's `ThemesEngine` on the embedded default, with no model server:
 * wink-nlp noun phrases and lemmas, keywords clustered by co-occurrence across segments, an
 * extractive tldr (see `detect.ts`). Tuned for English; other languages get the same pipeline, with
 * the English model's tagging.
 */
import { ThemesEngine, ThemesEngineError } from "@verbatim/core"
import { Effect, Layer } from "effect"
import { defaultOptions, detect, type LocalThemesOptions, loadPipeline, type Pipeline } from "./detect.js"

export { defaultOptions, detect, type LocalThemesOptions } from "./detect.js"

export const engineName = "local"

/**
 * The local engine. The model and TextRank load at the first detection, not at the start, and are
 * then kept by the layer; a load that failed is tried again by the next detection.
 */
export const layer = (options: LocalThemesOptions = defaultOptions): Layer.Layer<ThemesEngine> =>
  Layer.sync(ThemesEngine, () => {
    let loading: Promise<Pipeline> | undefined
    const pipeline = (): Promise<Pipeline> => {
      loading ??= loadPipeline().catch((cause: unknown) => {
        loading = undefined
        throw cause
      })
      return loading
    }
    return ThemesEngine.of({
      name: engineName,
      detect: (input) =>
        Effect.tryPromise({
          try: pipeline,
          catch: (cause) =>
            new ThemesEngineError({ engine: engineName, reason: `the model did not load: ${cause}` })
        }).pipe(
          Effect.flatMap((loaded) =>
            Effect.try({
              try: () => detect(input, options, loaded),
              catch: (cause) => new ThemesEngineError({ engine: engineName, reason: String(cause) })
            })
          ),
          Effect.withSpan("verbatim.themes.local", {
            attributes: { "themes.segments": input.segments.length },
            captureStackTrace: false
          })
        )
    })
  })
