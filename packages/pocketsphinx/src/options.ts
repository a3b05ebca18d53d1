/**
 * What the local engine does with each ASR option. Pocketsphinx recognises US English words with
 * their times, and nothing else, so:
 *
 * - `language`: `auto` and any English code (`en`, `en-GB`...) are recognised as English and
 *   reported as asked (`auto` as `en`; nothing is detected); any other language is refused.
 * - Refused whenever they apply (the effective options differ from the default): `codeSwitching`,
 *   `medicalMode`, `translateTo`, `speakerLabels`, `speakerId`, `multichannel`,
 *   `speakersExpected`, `speakersExpectedMin`, `speakersExpectedMax`, `topicDetection`,
 *   `summarization`, `contentModeration`, `piiRedaction`, `profanityFiltering`,
 *   `sentimentAnalysis`, `customFormatting` (their sub-options only apply with them).
 * - Best effort, never refused:
 *   - `autoPunctuation` (default true): each segment ends with a full stop; no other punctuation.
 *     False: no punctuation at all.
 *   - `textFormatting` (default true): each segment starts with a capital and the pronoun "I" is
 *     written as such. False: the recogniser's lowercase words as they are. Numbers stay words.
 *   - `fillerWords` (default true): the filler words the recogniser hears ("uh", "um", "ah", "er",
 *     "hmm", "mm") are kept. False: they are removed.
 *   - `keyTerms`: the model's vocabulary is fixed (no biasing); a key term that is recognised is
 *     written as the request spells it (its capitals), a term outside the vocabulary is not heard.
 */
import { SpeechUnsupported } from "@verbatim/core"
import { type Asr, Language } from "@verbatim/domain"

export const engine = "pocketsphinx"

const speakers = "the local engine cannot tell speakers apart"

/**
 * What the engine cannot do, in the order of the option table: the option, whether the effective
 * options ask for it, and the reason a refusal gives.
 */
const unsupported: ReadonlyArray<
  readonly [
    option: Asr.AsrOptionName,
    asked: (o: Asr.AsrOptions) => boolean,
    reason: (o: Asr.AsrOptions) => string
  ]
> = [
  [
    "language",
    (o) => o.language !== "auto" && Language.primary(o.language).toLowerCase() !== "en",
    (o) => `the local engine recognises English only, not ${o.language}`
  ],
  [
    "codeSwitching",
    (o) => o.codeSwitching,
    () => "the local engine recognises one language, English, and cannot switch between languages"
  ],
  ["medicalMode", (o) => o.medicalMode, () => "the local engine has no medical vocabulary"],
  ["translateTo", (o) => o.translateTo !== "none", () => "the local engine does not translate"],
  ["speakerLabels", (o) => o.speakerLabels, () => speakers],
  ["speakerId", (o) => o.speakerId, () => "the local engine cannot identify speakers"],
  ["multichannel", (o) => o.multichannel, () => "the local engine mixes every channel into one"],
  ["speakersExpected", (o) => o.speakersExpected !== null, () => speakers],
  ["speakersExpectedMin", (o) => o.speakersExpectedMin !== null, () => speakers],
  ["speakersExpectedMax", (o) => o.speakersExpectedMax !== null, () => speakers],
  ["topicDetection", (o) => o.topicDetection, () => "the local engine does not detect topics"],
  ["summarization", (o) => o.summarization, () => "the local engine does not summarise"],
  ["contentModeration", (o) => o.contentModeration, () => "the local engine does not moderate content"],
  ["piiRedaction", (o) => o.piiRedaction, () => "the local engine does not redact personal information"],
  ["profanityFiltering", (o) => o.profanityFiltering, () => "the local engine does not filter profanity"],
  ["sentimentAnalysis", (o) => o.sentimentAnalysis, () => "the local engine does not analyse sentiment"],
  [
    "customFormatting",
    (o) => o.customFormatting,
    () => "the local engine does not format dates, phone numbers or email addresses"
  ]
]

/**
 * The refusal of the first option (in the order of the option table) the engine cannot honour, or
 * undefined when it can honour them all. Options that do not apply (back at their default after
 * normalisation) are never refused.
 */
export const refusal = (effective: Asr.EffectiveAsrOptions): SpeechUnsupported | undefined => {
  const found = unsupported.find(([, asked]) => asked(effective.options))
  return found === undefined
    ? undefined
    : new SpeechUnsupported({ engine, option: found[0], reason: found[2](effective.options) })
}

/** The language a recognition reports: the English code asked for, `en` for `auto`. */
export const reportedLanguage = (effective: Asr.EffectiveAsrOptions): Language.LanguageCode =>
  effective.options.language === "auto" ? ("en" as Language.LanguageCode) : effective.options.language
