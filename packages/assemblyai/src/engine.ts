/**
 * The AssemblyAI `SpeechToText`: upload the audio, create a transcript with every applicable
 * `asr_option` mapped (`request.ts`), poll it until it is `completed` or `error`, read it into a
 * `Recognition` (`recognition.ts`), and delete it at AssemblyAI whatever happened (success,
 * failure, time-out, interruption).
 *
 * `make(settings)` needs an `HttpClient`; `layer(settings)` and `layerConfig` provide the platform's
 * fetch client.
 */
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import {
  type AudioInput,
  type Recognition,
  SpeechFailed,
  SpeechToText,
  type SpeechToTextService,
  SpeechUnsupported
} from "@verbatim/core"
import { type Asr, Language } from "@verbatim/domain"
import { type ConfigError, Duration, Effect, Layer, Option, Schedule, Schema } from "effect"
import { engine, makeClient, toSpeechFailed } from "./client.js"
import { AssemblyAiConfig, type AssemblyAiSettings } from "./config.js"
import {
  assemblyAiCode,
  englishOnly,
  languageOf,
  piiLanguages,
  profanityLanguages,
  sixLanguages,
  speechUnderstandingLanguages,
  transcriptionLanguages,
  translationLanguages
} from "./languages.js"
import {
  applyMapping,
  durationOf,
  groupWords,
  intelligenceOf,
  segmentsOf,
  type Translation,
  wordsOf
} from "./recognition.js"
import { transcriptRequest } from "./request.js"
import type { Transcript } from "./responses.js"

export { engine }

/** What AssemblyAI heard, with what the port has no field for. */
export interface AssemblyAiRecognition extends Recognition {
  /** The translations asked for with `translateTo`. */
  readonly translations: ReadonlyArray<Translation>
  /** The model AssemblyAI used (`speech_model_used`), when it says. */
  readonly speechModel: string | null
}

export interface AssemblyAiSpeechToTextService extends SpeechToTextService {
  readonly transcribe: (
    audio: AudioInput,
    options: Asr.EffectiveAsrOptions
  ) => Effect.Effect<AssemblyAiRecognition, SpeechFailed | SpeechUnsupported>
}

const english = "English"
const six = "English, Spanish, French, German, Italian and Portuguese"

/** Features bound to languages: the option, whether it applies, where AssemblyAI has it, and its name. */
const languageBound = (
  o: Asr.AsrOptions
): ReadonlyArray<readonly [Asr.AsrOptionName, boolean, ReadonlySet<string>, string, string | null]> => [
  ["sentimentAnalysis", o.sentimentAnalysis, englishOnly, "sentiment analysis", english],
  ["summarization", o.summarization, englishOnly, "summarization", english],
  ["topicDetection", o.topicDetection, sixLanguages, "topic detection", six],
  ["contentModeration", o.contentModeration, sixLanguages, "content moderation", six],
  ["profanityFiltering", o.profanityFiltering, profanityLanguages, "profanity filtering", null],
  ["piiRedaction", o.piiRedaction, piiLanguages, "PII redaction", null],
  ["speakerId", o.speakerId, speechUnderstandingLanguages, "speaker identification", null],
  ["customFormatting", o.customFormatting, speechUnderstandingLanguages, "custom formatting", null]
]

/**
 * The refusal of options AssemblyAI cannot honour, or none: a language it does not transcribe, a
 * translation target it does not have, a feature it does not offer in the (known) language, and
 * summarization without punctuation or formatting (AssemblyAI's summary models need both).
 */
export const refusal = (effective: Asr.EffectiveAsrOptions): Option.Option<SpeechUnsupported> => {
  const o = effective.options
  const refuse = (option: Asr.AsrOptionName, reason: string) =>
    Option.some(new SpeechUnsupported({ engine, option, reason }))
  const code = o.language === "auto" ? undefined : assemblyAiCode(o.language)
  if (code !== undefined && !transcriptionLanguages.has(code)) {
    return refuse("language", `AssemblyAI does not transcribe the language ${o.language}`)
  }
  if (o.translateTo !== "none" && !translationLanguages.has(assemblyAiCode(o.translateTo))) {
    return refuse("translateTo", `AssemblyAI does not translate into ${o.translateTo}`)
  }
  if (o.summarization && (!o.autoPunctuation || !o.textFormatting)) {
    return refuse("summarization", "AssemblyAI summarizes only with autoPunctuation and textFormatting on")
  }
  if (code === undefined) return Option.none()
  for (const [option, applies, languages, feature, names] of languageBound(o)) {
    if (applies && !languages.has(code)) {
      return refuse(
        option,
        names === null
          ? `AssemblyAI offers no ${feature} in ${o.language}`
          : `AssemblyAI offers ${feature} in ${names} only, not in ${o.language}`
      )
    }
  }
  return Option.none()
}

const done = (t: Transcript) => t.status === "completed" || t.status === "error"

const decodeLanguage = Schema.decodeUnknownOption(Language.LanguageCode)

export const make = (
  settings: AssemblyAiSettings
): Effect.Effect<AssemblyAiSpeechToTextService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = yield* makeClient(settings)

    const supports = Effect.fn("assemblyai.supports")(function* (options: Asr.EffectiveAsrOptions) {
      const refused = refusal(options)
      if (Option.isSome(refused)) return yield* Effect.fail(refused.value)
    })

    /**
     * Deletes the transcript at AssemblyAI; a failure is logged, never raised. It runs as a
     * finalizer (uninterruptible), so its region is made interruptible for its time limit to work.
     */
    const cleanup = (id: string) =>
      Effect.interruptible(client.remove(id)).pipe(
        Effect.timeoutFail({
          duration: Duration.times(settings.requestTimeout, 2),
          onTimeout: () => new SpeechFailed({ engine, reason: "no answer", retryable: true })
        }),
        Effect.tap(() => Effect.logDebug("assemblyai: transcript deleted").pipe(Effect.annotateLogs({ id }))),
        Effect.catchAll((e) =>
          Effect.logWarning("assemblyai: the transcript could not be deleted at AssemblyAI").pipe(
            Effect.annotateLogs({ id, reason: e.reason })
          )
        )
      )

    const poll = (id: string) =>
      client.get(id).pipe(
        Effect.repeat(
          Schedule.spaced(settings.pollInterval).pipe(
            Schedule.whileInput((t: Transcript) => !done(t)),
            Schedule.passthrough
          )
        )
      )

    /** The language of the speech: AssemblyAI's, or the one asked for when its code is not ours. */
    const languageFrom = (t: Transcript, asked: Asr.AsrOptions["language"]) =>
      Effect.gen(function* () {
        const reported = Option.fromNullable(t.language_code).pipe(
          Option.flatMap((code) => Option.fromNullable(languageOf(code))),
          Option.flatMap(decodeLanguage)
        )
        if (Option.isSome(reported)) return reported.value
        if (asked !== "auto") return asked
        yield* Effect.logWarning(
          "assemblyai: the detected language has no ISO 639-1 code; English is assumed"
        ).pipe(Effect.annotateLogs({ id: t.id, language_code: t.language_code ?? "none" }))
        return Language.LanguageCode.make("en")
      })

    const transcribe = Effect.fn("assemblyai.transcribe")(function* (
      audio: AudioInput,
      effective: Asr.EffectiveAsrOptions
    ) {
      yield* Effect.annotateCurrentSpan({ audio: audio.name })
      yield* supports(effective)
      const o = effective.options
      const work = Effect.gen(function* () {
        const audioUrl = yield* client.upload(audio)
        const body = transcriptRequest(effective, settings, audioUrl)
        const created = yield* Effect.acquireRelease(client.create(body), (t) => cleanup(t.id)).pipe(
          Effect.retry(client.policy),
          Effect.mapError((e) => toSpeechFailed(e, e._tag === "Transient" ? settings.retries : 0))
        )
        yield* Effect.annotateCurrentSpan({ transcript_id: created.id })
        const finished = done(created) ? created : yield* poll(created.id)
        if (finished.status === "error") {
          return yield* Effect.fail(
            new SpeechFailed({
              engine,
              reason: `AssemblyAI could not transcribe ${audio.name}: ${finished.error ?? "no reason given"}`,
              retryable: false
            })
          )
        }
        const formatting = finished.speech_understanding?.response?.custom_formatting
        const mapping = o.customFormatting ? (formatting?.mapping ?? {}) : {}
        const words = wordsOf(finished.words ?? [])
        const turns = o.speakerLabels || o.multichannel ? (finished.utterances ?? []) : []
        const timed =
          turns.length > 0 || words.length === 0
            ? turns
            : yield* client
                .sentences(finished.id)
                .pipe(
                  Effect.catchAll((e) =>
                    Effect.logWarning("assemblyai: no sentences; the words are grouped here").pipe(
                      Effect.annotateLogs({ id: finished.id, reason: e.reason }),
                      Effect.as([])
                    )
                  )
                )
        const grouped = timed.length > 0 ? segmentsOf(timed, mapping) : groupWords(words, mapping)
        const spoken = (finished.text ?? "").trim()
        const text = o.customFormatting
          ? formatting?.formatted_text?.trim() || applyMapping(spoken, mapping)
          : spoken
        const durationMs = durationOf(finished, grouped, words, audio.durationSeconds)
        const segments =
          grouped.length === 0 && text.length > 0
            ? segmentsOf([{ text, start: 0, end: durationMs }])
            : grouped
        const intelligence = yield* intelligenceOf(body, finished).pipe(
          Effect.mapError(
            (e) =>
              new SpeechFailed({
                engine,
                reason: `AssemblyAI's intelligence results could not be read: ${e.message}`,
                retryable: false
              })
          )
        )
        const translations = Object.entries(finished.translated_texts ?? {}).flatMap(([code, translated]) =>
          Option.match(Option.flatMap(Option.fromNullable(languageOf(code)), decodeLanguage), {
            onNone: () => [],
            onSome: (language) => [{ language, text: translated }]
          })
        )
        const recognition: AssemblyAiRecognition = {
          language: yield* languageFrom(finished, o.language),
          durationMs,
          text,
          segments,
          words,
          intelligence,
          translations,
          speechModel: finished.speech_model_used ?? null
        }
        yield* Effect.logDebug("assemblyai: transcribed").pipe(
          Effect.annotateLogs({
            id: finished.id,
            audio: audio.name,
            duration_ms: durationMs,
            model: recognition.speechModel ?? "unknown"
          })
        )
        return recognition
      })
      return yield* Effect.scoped(work).pipe(
        Effect.timeoutFail({
          duration: settings.timeout,
          onTimeout: () =>
            new SpeechFailed({
              engine,
              reason: `AssemblyAI did not finish ${audio.name} within ${Duration.format(settings.timeout)}`,
              retryable: true
            })
        })
      )
    })

    const service: AssemblyAiSpeechToTextService = { engine, supports, transcribe }
    return service
  })

/** The engine with these settings, over the platform's fetch client. */
export const layer = (settings: AssemblyAiSettings): Layer.Layer<SpeechToText> =>
  Layer.effect(SpeechToText, make(settings)).pipe(Layer.provide(FetchHttpClient.layer))

/** The engine with its settings read from the environment (`AssemblyAiConfig`). */
export const layerConfig: Layer.Layer<SpeechToText, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(AssemblyAiConfig, layer)
)
