/**
 * ASR options (`asr_options`) exactly as the spec names them, with their defaults and the bounds
 * a single field can check. Rules that relate fields to each other (multichannel wins over
 * speaker labels, min/max ignored when the exact count is set, ...) live in `normalise.ts`.
 */
import { Schema } from "effect"
import { AsrLanguage, LanguageCode } from "../language.js"

export const maxKeyTerms = 200
export const maxWordsPerKeyTerm = 6
export const maxSpeakerIdKnownValues = 20
export const maxSpeakerIdKnownValueLength = 35
export const minSpeakers = 1
export const maxSpeakers = 20

const wordCount = (s: string): number =>
  s
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0).length

export const KeyTerm = Schema.String.pipe(
  Schema.filter((s) => {
    const n = wordCount(s)
    return (n >= 1 && n <= maxWordsPerKeyTerm) || `a key term has 1 to ${maxWordsPerKeyTerm} words`
  })
).annotations({ identifier: "KeyTerm", description: `A key term of 1 to ${maxWordsPerKeyTerm} words` })

export const SpeakerIdKnownValue = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(maxSpeakerIdKnownValueLength)
).annotations({
  identifier: "SpeakerIdKnownValue",
  description: `A speaker name or role of 1 to ${maxSpeakerIdKnownValueLength} characters`
})

export const SpeakerCount = Schema.Int.pipe(Schema.between(minSpeakers, maxSpeakers)).annotations({
  identifier: "SpeakerCount",
  description: `A speaker count from ${minSpeakers} to ${maxSpeakers}`
})

export const SpeakerIdType = Schema.Literal("name", "role")
export type SpeakerIdType = typeof SpeakerIdType.Type

export const CustomFormatDate = Schema.Literal(
  "mm/dd/yyyy",
  "dd/mm/yyyy",
  "yyyy-mm-dd",
  "mm-dd-yyyy",
  "dd.mm.yyyy"
)
export type CustomFormatDate = typeof CustomFormatDate.Type

export const CustomFormatPhone = Schema.Literal(
  "(xxx)xxx-xxxx",
  "xxx-xxx-xxxx",
  "xxx.xxx.xxxx",
  "+x(xxx)xxx-xxxx"
)
export type CustomFormatPhone = typeof CustomFormatPhone.Type

export const CustomFormatEmail = Schema.Literal("username@domain.com", "firstname.lastname@domain.com")
export type CustomFormatEmail = typeof CustomFormatEmail.Type

/** `translateTo`: a target language, or `none`. */
export const TranslateTo = Schema.Union(Schema.Literal("none"), LanguageCode)
export type TranslateTo = typeof TranslateTo.Type

const flag = (value: boolean) => Schema.optionalWith(Schema.Boolean, { default: () => value })
const nullableCount = Schema.optionalWith(Schema.NullOr(SpeakerCount), { default: () => null })

export class AsrOptions extends Schema.Class<AsrOptions>("AsrOptions")({
  language: Schema.optionalWith(AsrLanguage, { default: () => "auto" as const }),
  codeSwitching: flag(false),
  medicalMode: flag(false),
  keyTerms: Schema.optionalWith(Schema.Array(KeyTerm).pipe(Schema.maxItems(maxKeyTerms)), {
    default: () => []
  }),
  translateTo: Schema.optionalWith(TranslateTo, { default: () => "none" as const }),
  speakerLabels: flag(false),
  speakerId: flag(false),
  speakerIdType: Schema.optionalWith(SpeakerIdType, { default: () => "name" as const }),
  speakerIdKnownValues: Schema.optionalWith(
    Schema.Array(SpeakerIdKnownValue).pipe(Schema.maxItems(maxSpeakerIdKnownValues)),
    { default: () => [] }
  ),
  multichannel: flag(false),
  speakersExpected: nullableCount,
  speakersExpectedMin: nullableCount,
  speakersExpectedMax: nullableCount,
  topicDetection: flag(false),
  summarization: flag(false),
  contentModeration: flag(false),
  piiRedaction: flag(false),
  profanityFiltering: flag(false),
  sentimentAnalysis: flag(false),
  autoPunctuation: flag(true),
  textFormatting: flag(true),
  fillerWords: flag(true),
  customFormatting: flag(false),
  customFormatDate: Schema.optionalWith(CustomFormatDate, { default: () => "mm/dd/yyyy" as const }),
  customFormatPhone: Schema.optionalWith(CustomFormatPhone, { default: () => "(xxx)xxx-xxxx" as const }),
  customFormatEmail: Schema.optionalWith(CustomFormatEmail, { default: () => "username@domain.com" as const })
}) {}

/** The options with every default applied: what a request without `asr_options` means. */
export const defaults: AsrOptions = Schema.decodeUnknownSync(AsrOptions)({})
