/**
 * The model as one small service, `Llm`: structured generation checked against a `Schema`, with
 * the settings' time limit and retries, every failure one typed `LlmError`. Built on
 * `@effect/ai`'s `LanguageModel` over `@effect/ai-openai` (OpenAI's `/v1/responses`, so any server
 * that speaks it: OpenAI, Ollama >= 0.13.3, the stand-in of `@verbatim/llm/testing`).
 *
 * ```ts
 * const llm = yield* Llm
 * const reply = yield* llm.generateObject({ name: "Themes", schema: Themes, system, prompt })
 * // Layer: Llm.layer(settings) or Llm.layerConfig (fails at start when VERBATIM_AI_MODEL is unset)
 * ```
 *
 * Adapters of core ports (the AI `Translator`, an LLM themes engine) depend on `Llm`, never on
 * `@effect/ai` directly, so the retry and error policy is one.
 */
import { LanguageModel } from "@effect/ai"
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import {
  Config,
  ConfigError,
  Context,
  Duration,
  Effect,
  Either,
  Layer,
  Option,
  Schedule,
  Schema
} from "effect"
import { LlmConfig, type LlmSettings } from "./config.js"

/** The model could not give an answer that fits; `retryable` when another attempt may succeed. */
export class LlmError extends Schema.TaggedError<LlmError>()("LlmError", {
  reason: Schema.String,
  retryable: Schema.Boolean,
  /** The HTTP status of the model server's answer, when there was one. */
  status: Schema.NullOr(Schema.Number)
}) {}

export interface GenerateObject<A, I extends Record<string, unknown>> {
  /** A name for the structured output (some servers pass it to the model). */
  readonly name: string
  readonly schema: Schema.Schema<A, I>
  /** Instructions to the model (the system message). */
  readonly system: string
  /** The user message: the material to work on. */
  readonly prompt: string
}

export class Llm extends Context.Tag("@verbatim/llm/Llm")<
  Llm,
  {
    readonly settings: LlmSettings
    /**
     * One structured answer, decoded with `schema`. A transport failure, a 429 or 5xx, a time-out
     * or a reply that does not decode is retried `settings.retries` times with a short backoff;
     * what still fails is an `LlmError`.
     */
    readonly generateObject: <A, I extends Record<string, unknown>>(
      request: GenerateObject<A, I>
    ) => Effect.Effect<A, LlmError>
  }
>() {}

const fromAiError = (
  error: { readonly _tag: string; readonly message: string } & Record<string, unknown>
) => {
  if (error._tag === "HttpResponseError") {
    const response = error.response as { readonly status?: number } | undefined
    const status = typeof response?.status === "number" ? response.status : null
    const reason = error.reason as string
    return new LlmError({
      reason: `the model server answered ${status ?? "?"} (${reason}): ${error.message}`,
      retryable:
        reason !== "StatusCode" || status === null || status === 408 || status === 429 || status >= 500,
      status
    })
  }
  return new LlmError({
    reason: `${error._tag}: ${error.message}`,
    retryable: error._tag !== "MalformedInput",
    status: null
  })
}

/** `Llm` over a `LanguageModel` already in context (any provider `@effect/ai` supports). */
export const make = (settings: LlmSettings): Effect.Effect<Llm["Type"], never, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const retry = Schedule.exponential(Duration.millis(200), 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(settings.retries))
    )
    const generateObject = <A, I extends Record<string, unknown>>(request: GenerateObject<A, I>) =>
      model
        .generateObject({
          objectName: request.name,
          schema: request.schema,
          prompt: [
            { role: "system", content: request.system },
            { role: "user", content: request.prompt }
          ]
        })
        .pipe(
          Effect.map((response) => response.value),
          Effect.mapError((error) => fromAiError(error as never)),
          Effect.timeoutFail({
            duration: settings.timeout,
            onTimeout: () =>
              new LlmError({
                reason: `the model did not answer within ${Duration.format(settings.timeout)}`,
                retryable: true,
                status: null
              })
          }),
          Effect.tapError((error) =>
            Effect.logWarning("model request failed", { reason: error.reason, retryable: error.retryable })
          ),
          Effect.retry({ schedule: retry, while: (error) => error.retryable }),
          Effect.withSpan("Llm.generateObject", {
            attributes: { "llm.model": settings.model, "llm.object": request.name },
            captureStackTrace: false
          })
        )
    return Llm.of({ settings, generateObject })
  })

/** The OpenAI-compatible `LanguageModel` for these settings, over the given `HttpClient`. */
export const languageModel = (
  settings: LlmSettings
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  OpenAiLanguageModel.layer({ model: settings.model }).pipe(
    Layer.provide(
      OpenAiClient.layer({
        apiUrl: settings.baseUrl,
        apiKey: Option.getOrUndefined(settings.apiKey)
      })
    )
  )

/** `Llm` for these settings, over the platform's `fetch`. */
export const layer = (settings: LlmSettings): Layer.Layer<Llm> =>
  Layer.effect(Llm, make(settings)).pipe(
    Layer.provide(languageModel(settings)),
    Layer.provide(FetchHttpClient.layer)
  )

/** `Llm` from the environment; fails at start when `VERBATIM_AI_MODEL` is unset. */
export const layerConfig: Layer.Layer<Llm, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(
    LlmConfig.pipe(
      Config.mapOrFail(
        Option.match({
          onNone: () =>
            Either.left(ConfigError.MissingData(["VERBATIM_AI_MODEL"], "VERBATIM_AI_MODEL names no model")),
          onSome: Either.right
        })
      )
    ),
    layer
  )
)
