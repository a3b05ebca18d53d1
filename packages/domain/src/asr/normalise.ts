/**
 * ASR options as they will really apply. `options.ts` checks each field alone; this module applies
 * the spec's rules between fields (multichannel wins over speaker labels and identification,
 * speaker identification implies diarization, role identification needs known values, the exact
 * speaker count beats min/max, language-bound features, translation to the source language) and
 * says which add-ons are billable and which requested options were dropped, and why.
 *
 * Effective options are a fixed point: an option that does not apply is reset to its default, so
 * normalising them again changes nothing and notes nothing.
 */
import { Either, Schema } from "effect"
import { type LanguageCode, primary, samePrimary } from "../language.js"
import { AddOn, allAddOns } from "./add-on.js"
import { AsrOptions, defaults } from "./options.js"

/** The name of an ASR option, as the spec spells it inside `asr_options`. */
export const AsrOptionName = Schema.keyof(AsrOptions)
export type AsrOptionName = typeof AsrOptionName.Type

/** Options that contradict each other in a way the spec does not resolve. */
export class AsrOptionsError extends Schema.TaggedError<AsrOptionsError>()("AsrOptionsError", {
  field: AsrOptionName,
  reason: Schema.String
}) {
  override get message(): string {
    return `asr_options.${this.field}: ${this.reason}`
  }
}

/** A requested option that will not apply, and why. */
export const IgnoredOption = Schema.Struct({ option: AsrOptionName, reason: Schema.String })
export type IgnoredOption = typeof IgnoredOption.Type

export class EffectiveAsrOptions extends Schema.Class<EffectiveAsrOptions>("EffectiveAsrOptions")({
  /** The options that will apply; what does not apply is back at its default. */
  options: AsrOptions,
  /** The add-ons charged, unique, in the order of `allAddOns`. */
  billable: Schema.Array(AddOn),
  /** The requested options that were dropped, in the order of the option table. */
  ignored: Schema.Array(IgnoredOption)
}) {}

/** Languages medical mode supports (primary codes). */
export const medicalModeLanguages: ReadonlyArray<string> = ["en", "es", "de", "fr"]

/**
 * The add-ons a set of options asks for, taken at face value (no rule applied), in the order of
 * `allAddOns`. `multichannel` has no rate in the price table and adds nothing.
 */
export const addOnsOf = (options: AsrOptions): ReadonlyArray<AddOn> => {
  const wanted: Record<AddOn, boolean> = {
    diarization: options.speakerLabels || options.speakerId,
    sentiment: options.sentimentAnalysis,
    profanity: options.profanityFiltering,
    summarization: options.summarization,
    custom_formatting: options.customFormatting,
    translation: options.translateTo !== "none",
    pii_redaction: options.piiRedaction,
    topic_detection: options.topicDetection,
    content_moderation: options.contentModeration
  }
  return allAddOns.filter((addOn) => wanted[addOn])
}

const sameValue = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => x === b[i]) : a === b

const isLanguage = (language: "auto" | LanguageCode): language is LanguageCode => language !== "auto"

/** Why speaker identification does not apply, or undefined when it does (or was not asked for). */
const speakerIdSkipped = (o: AsrOptions): string | undefined =>
  !o.speakerId
    ? undefined
    : o.multichannel
      ? "multichannel disables speaker identification"
      : o.speakerIdType === "role" && o.speakerIdKnownValues.length === 0
        ? "role identification is skipped without at least one speakerIdKnownValues entry"
        : undefined

/**
 * Normalises decoded options (defaults applied). Fails only when speakersExpectedMin is greater
 * than speakersExpectedMax with no exact count, whatever else is set.
 */
export const normalise = (requested: AsrOptions): Either.Either<EffectiveAsrOptions, AsrOptionsError> => {
  const { speakersExpected: exact, speakersExpectedMax: max, speakersExpectedMin: min } = requested
  if (exact === null && min !== null && max !== null && min > max) {
    return Either.left(
      new AsrOptionsError({
        field: "speakersExpectedMin",
        reason: `speakersExpectedMin (${min}) is greater than speakersExpectedMax (${max})`
      })
    )
  }

  const ignored: Array<IgnoredOption> = []
  /** The applied value of an option, noting it when it differs from the requested one. */
  const keep = <K extends AsrOptionName>(
    option: K,
    applied: AsrOptions[K],
    reason: string
  ): AsrOptions[K] => {
    if (!sameValue(requested[option], applied)) ignored.push({ option, reason })
    return applied
  }

  const language = requested.language
  const skipped = speakerIdSkipped(requested)
  const speakerId = keep(
    "speakerId",
    requested.speakerId && skipped === undefined,
    skipped ?? "not requested"
  )
  // speakerId implies diarization; multichannel wins over both. Only a dropped request is noted.
  const diarization = !requested.multichannel && (requested.speakerLabels || speakerId)
  if (requested.speakerLabels && !diarization) {
    ignored.push({ option: "speakerLabels", reason: "multichannel disables speakerLabels" })
  }
  const withoutSpeakerId = skipped ?? "applies only with speakerId"
  const withoutDiarization = "applies only with diarization (speakerLabels or speakerId)"
  const exactWins = "ignored when speakersExpected is set"

  const customFormatOnly = "applies only with customFormatting"
  const options = new AsrOptions(
    {
      language,
      codeSwitching: keep(
        "codeSwitching",
        language === "auto" && requested.codeSwitching,
        "applies only when language is auto"
      ),
      medicalMode: keep(
        "medicalMode",
        requested.medicalMode && (!isLanguage(language) || medicalModeLanguages.includes(primary(language))),
        "medical mode supports English, Spanish, German and French only"
      ),
      keyTerms: keep(
        "keyTerms",
        isLanguage(language) && primary(language) !== "en" ? [] : requested.keyTerms,
        "key terms apply to English audio only"
      ),
      translateTo: keep(
        "translateTo",
        isLanguage(language) &&
          requested.translateTo !== "none" &&
          samePrimary(language, requested.translateTo)
          ? "none"
          : requested.translateTo,
        "the audio is already in the target language"
      ),
      speakerLabels: diarization,
      speakerId,
      speakerIdType: keep(
        "speakerIdType",
        speakerId ? requested.speakerIdType : defaults.speakerIdType,
        withoutSpeakerId
      ),
      speakerIdKnownValues: keep(
        "speakerIdKnownValues",
        speakerId ? requested.speakerIdKnownValues : defaults.speakerIdKnownValues,
        withoutSpeakerId
      ),
      multichannel: requested.multichannel,
      speakersExpected: keep("speakersExpected", diarization ? exact : null, withoutDiarization),
      speakersExpectedMin: keep(
        "speakersExpectedMin",
        diarization && exact === null ? min : null,
        diarization ? exactWins : withoutDiarization
      ),
      speakersExpectedMax: keep(
        "speakersExpectedMax",
        diarization && exact === null ? max : null,
        diarization ? exactWins : withoutDiarization
      ),
      topicDetection: requested.topicDetection,
      summarization: requested.summarization,
      contentModeration: requested.contentModeration,
      piiRedaction: requested.piiRedaction,
      profanityFiltering: requested.profanityFiltering,
      sentimentAnalysis: requested.sentimentAnalysis,
      autoPunctuation: requested.autoPunctuation,
      textFormatting: requested.textFormatting,
      fillerWords: requested.fillerWords,
      customFormatting: requested.customFormatting,
      customFormatDate: keep(
        "customFormatDate",
        requested.customFormatting ? requested.customFormatDate : defaults.customFormatDate,
        customFormatOnly
      ),
      customFormatPhone: keep(
        "customFormatPhone",
        requested.customFormatting ? requested.customFormatPhone : defaults.customFormatPhone,
        customFormatOnly
      ),
      customFormatEmail: keep(
        "customFormatEmail",
        requested.customFormatting ? requested.customFormatEmail : defaults.customFormatEmail,
        customFormatOnly
      )
    },
    true
  )
  const order = Object.keys(AsrOptions.fields)
  const sorted = [...ignored].sort((a, b) => order.indexOf(a.option) - order.indexOf(b.option))
  return Either.right(
    new EffectiveAsrOptions({ options, billable: addOnsOf(options), ignored: sorted }, true)
  )
}
