/**
 * The spec's credit rates ("Credit costs"): ASR base per 90 seconds, add-ons per hour, translation
 * per 2,500 characters, captions and themes per transcript.
 */
import { type AddOn, allAddOns } from "../asr/add-on.js"

export const secondsPerHour = 3600

/** ASR base: 1 credit per 90 seconds (40 per hour). */
export const secondsPerAsrCredit = 90

/** ASR add-on surcharges in credits per hour of audio, prorated by duration. */
export const addOnCreditsPerHour: { readonly [A in AddOn]: number } = {
  diarization: 6,
  sentiment: 6,
  profanity: 3,
  summarization: 8,
  custom_formatting: 8,
  translation: 16,
  pii_redaction: 22,
  topic_detection: 40,
  content_moderation: 40
}

/** Native captions: 1 credit per transcript served. */
export const captionCreditsPerTranscript = 1

/** Translation: 1 credit per 2,500 characters (rounded up). */
export const charactersPerTranslationCredit = 2500

/** Themes: 1 credit per transcript, charged once. */
export const themesCreditsPerTranscript = 1

/** The distinct add-ons, in the canonical order of `AddOn` (order and repeats of the input ignored). */
export const distinctAddOns = (addOns: ReadonlyArray<AddOn>): ReadonlyArray<AddOn> =>
  allAddOns.filter((addOn) => addOns.includes(addOn))

/** The summed hourly rate of the distinct add-ons. */
export const addOnRatePerHour = (addOns: ReadonlyArray<AddOn>): number =>
  distinctAddOns(addOns).reduce((total, addOn) => total + addOnCreditsPerHour[addOn], 0)
