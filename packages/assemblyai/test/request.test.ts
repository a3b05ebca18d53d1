import { describe, expect, it } from "@effect/vitest"
import { Asr, type Language } from "@verbatim/domain"
import type { RawAsrOptions } from "@verbatim/testkit"
import { Arbitrary, Either, FastCheck as fc, ParseResult } from "effect"
import { defaultSettings } from "../src/config.js"
import { assemblyAiCode, englishOnly, languageOf } from "../src/languages.js"
import { hasFillerWords, TranscriptRequest, transcriptRequest } from "../src/request.js"
import { options } from "./support.js"

const url = "https://cdn.example/upload/1"
const body = (raw: RawAsrOptions) => transcriptRequest(options(raw), defaultSettings, url)

/** What every body says with the default options. */
const defaults = {
  audio_url: url,
  language_detection: true,
  speaker_labels: false,
  multichannel: false,
  iab_categories: false,
  summarization: false,
  content_safety: false,
  redact_pii: false,
  filter_profanity: false,
  sentiment_analysis: false,
  punctuate: true,
  format_text: true,
  disfluencies: true
}

const table: ReadonlyArray<readonly [string, RawAsrOptions, Record<string, unknown>, ReadonlyArray<string>]> =
  [
    [
      "defaults",
      {},
      defaults,
      ["language_code", "speech_understanding", "domain", "keyterms_prompt", "speech_models"]
    ],
    [
      "language",
      { language: "de" },
      { language_code: "de", language_detection: false },
      ["language_detection_options"]
    ],
    ["language with a region", { language: "en-US" }, { language_code: "en_us" }, []],
    ["British English", { language: "en-GB" }, { language_code: "en_uk" }, []],
    ["Brazilian Portuguese", { language: "pt-BR" }, { language_code: "pt" }, []],
    ["Norwegian Bokmål", { language: "nb" }, { language_code: "no" }, []],
    [
      "code switching",
      { codeSwitching: true },
      { language_detection: true, language_detection_options: { code_switching: true } },
      ["language_code"]
    ],
    [
      "code switching with a language (ignored)",
      { language: "es", codeSwitching: true },
      { language_code: "es" },
      ["language_detection_options"]
    ],
    ["medical mode", { language: "en", medicalMode: true }, { domain: "medical-v1" }, []],
    [
      "key terms",
      { keyTerms: ["Verbatim", "speech to text"] },
      { keyterms_prompt: ["Verbatim", "speech to text"] },
      []
    ],
    [
      "speaker labels",
      { speakerLabels: true },
      { speaker_labels: true },
      ["speakers_expected", "speaker_options"]
    ],
    [
      "speakers expected",
      { speakerLabels: true, speakersExpected: 3 },
      { speaker_labels: true, speakers_expected: 3 },
      ["speaker_options"]
    ],
    [
      "speaker range",
      { speakerLabels: true, speakersExpectedMin: 2, speakersExpectedMax: 5 },
      { speaker_options: { min_speakers_expected: 2, max_speakers_expected: 5 } },
      ["speakers_expected"]
    ],
    [
      "speaker minimum only",
      { speakerLabels: true, speakersExpectedMin: 2 },
      { speaker_options: { min_speakers_expected: 2 } },
      []
    ],
    [
      "speaker count without diarization (ignored)",
      { speakersExpected: 2 },
      { speaker_labels: false },
      ["speakers_expected"]
    ],
    [
      "multichannel",
      { multichannel: true, speakerLabels: true },
      { multichannel: true, speaker_labels: false },
      []
    ],
    [
      "topic detection",
      { topicDetection: true },
      { iab_categories: true, auto_highlights: true, entity_detection: true },
      []
    ],
    [
      "summarization",
      { summarization: true },
      { summarization: true, summary_model: "informative", summary_type: "paragraph" },
      []
    ],
    [
      "summarization of a conversation",
      { summarization: true, speakerLabels: true },
      { summary_model: "conversational" },
      []
    ],
    ["content moderation", { contentModeration: true }, { content_safety: true }, []],
    [
      "PII redaction",
      { piiRedaction: true },
      { redact_pii: true, redact_pii_policies: [...defaultSettings.piiPolicies], redact_pii_sub: "hash" },
      []
    ],
    ["profanity filtering", { profanityFiltering: true }, { filter_profanity: true }, []],
    ["sentiment analysis", { sentimentAnalysis: true }, { sentiment_analysis: true }, []],
    ["no punctuation", { autoPunctuation: false }, { punctuate: false }, []],
    ["no formatting", { textFormatting: false }, { format_text: false }, []],
    ["no filler words", { fillerWords: false }, { disfluencies: false }, []],
    ["filler words in English", { language: "en", fillerWords: true }, { disfluencies: true }, []],
    [
      "filler words where AssemblyAI has none",
      { language: "fr", fillerWords: true },
      { disfluencies: false },
      []
    ],
    [
      "translation",
      { translateTo: "es" },
      { speech_understanding: { request: { translation: { target_languages: ["es"] } } } },
      []
    ],
    [
      "speaker identification by name",
      { speakerId: true, speakerIdKnownValues: ["Ada", "Grace"] },
      {
        speaker_labels: true,
        speech_understanding: {
          request: { speaker_identification: { speaker_type: "name", known_values: ["Ada", "Grace"] } }
        }
      },
      []
    ],
    [
      "speaker identification by role",
      { speakerId: true, speakerIdType: "role", speakerIdKnownValues: ["host"] },
      {
        speech_understanding: {
          request: { speaker_identification: { speaker_type: "role", known_values: ["host"] } }
        }
      },
      []
    ],
    [
      "custom formatting",
      { customFormatting: true, customFormatDate: "yyyy-mm-dd", customFormatPhone: "xxx-xxx-xxxx" },
      {
        speech_understanding: {
          request: {
            custom_formatting: {
              date: "yyyy-mm-dd",
              phone_number: "xxx-xxx-xxxx",
              email: "username@domain.com"
            }
          }
        }
      },
      []
    ],
    [
      "every Speech Understanding task at once",
      { translateTo: "de", speakerId: true, customFormatting: true },
      {
        speech_understanding: {
          request: {
            translation: { target_languages: ["de"] },
            speaker_identification: { speaker_type: "name" },
            custom_formatting: {
              date: "mm/dd/yyyy",
              phone_number: "(xxx)xxx-xxxx",
              email: "username@domain.com"
            }
          }
        }
      },
      []
    ]
  ]

describe("the body of POST /v2/transcript", () => {
  it.each(table)("%s", (_, raw, expected, absent) => {
    const sent = body(raw)
    expect(sent).toMatchObject(expected)
    for (const key of absent) expect(sent, key).not.toHaveProperty(key)
    expect(typeof sent.disfluencies).toBe("boolean")
  })

  it("names the speech models and PII settings it is given", () => {
    const sent = transcriptRequest(
      options({ piiRedaction: true, summarization: true }),
      {
        ...defaultSettings,
        speechModels: ["universal-3-5-pro", "universal-2"],
        piiPolicies: ["person_name", "location"],
        piiSubstitution: "entity_type",
        summaryType: "bullets"
      },
      url
    )
    expect(sent).toMatchObject({
      speech_models: ["universal-3-5-pro", "universal-2"],
      redact_pii_policies: ["person_name", "location"],
      redact_pii_sub: "entity_type",
      summary_type: "bullets"
    })
  })

  const decodeStrict = ParseResult.decodeUnknownEither(TranscriptRequest, { onExcessProperty: "error" })
  const validOptions = Arbitrary.make(Asr.AsrOptions).filter((o) => Either.isRight(Asr.normalise(o)))

  it("always sends disfluencies, and never contradicts the effective options (property)", () => {
    fc.assert(
      fc.property(validOptions, (requested) => {
        const effective = Either.getOrThrow(Asr.normalise(requested))
        const o = effective.options
        const sent = transcriptRequest(effective, defaultSettings, url)
        const su = sent.speech_understanding?.request
        // Only fields AssemblyAI knows, with the right types.
        expect(Either.isRight(decodeStrict(JSON.parse(JSON.stringify(sent))))).toBe(true)
        // Filler words: always sent, true exactly when asked for and AssemblyAI has them.
        expect(typeof sent.disfluencies).toBe("boolean")
        expect(sent.disfluencies).toBe(o.fillerWords && hasFillerWords(o.language))
        // Language.
        if (o.language === "auto") {
          expect(sent.language_detection).toBe(true)
          expect(sent.language_code).toBeUndefined()
        } else {
          expect(sent.language_detection).toBe(false)
          expect(sent.language_code).toBe(assemblyAiCode(o.language))
        }
        expect(sent.language_detection_options?.code_switching === true).toBe(o.codeSwitching)
        expect(sent.domain === "medical-v1").toBe(o.medicalMode)
        expect(sent.keyterms_prompt ?? []).toEqual(o.keyTerms)
        // Speakers and channels.
        expect(sent.speaker_labels).toBe(o.speakerLabels)
        expect(sent.multichannel).toBe(o.multichannel)
        expect(sent.speaker_labels && sent.multichannel).toBe(false)
        expect(sent.speakers_expected ?? null).toBe(o.speakerLabels ? o.speakersExpected : null)
        expect(sent.speaker_options?.min_speakers_expected ?? null).toBe(
          o.speakerLabels && o.speakersExpected === null ? o.speakersExpectedMin : null
        )
        expect(sent.speaker_options?.max_speakers_expected ?? null).toBe(
          o.speakerLabels && o.speakersExpected === null ? o.speakersExpectedMax : null
        )
        // Features.
        expect(sent.iab_categories).toBe(o.topicDetection)
        expect(sent.summarization).toBe(o.summarization)
        expect(sent.summary_model !== undefined).toBe(o.summarization)
        expect(sent.content_safety).toBe(o.contentModeration)
        expect(sent.redact_pii).toBe(o.piiRedaction)
        expect(sent.redact_pii_policies !== undefined).toBe(o.piiRedaction)
        expect(sent.filter_profanity).toBe(o.profanityFiltering)
        expect(sent.sentiment_analysis).toBe(o.sentimentAnalysis)
        expect(sent.punctuate).toBe(o.autoPunctuation)
        expect(sent.format_text).toBe(o.textFormatting)
        expect(sent.entity_detection ?? false).toBe(o.topicDetection)
        expect(sent.auto_highlights ?? false).toBe(o.topicDetection)
        expect(sent.auto_chapters ?? false).toBe(false)
        // Speech Understanding.
        expect(su?.translation?.target_languages ?? []).toEqual(
          o.translateTo === "none" ? [] : [assemblyAiCode(o.translateTo)]
        )
        expect(su?.speaker_identification !== undefined).toBe(o.speakerId)
        if (o.speakerId) {
          expect(su?.speaker_identification?.speaker_type).toBe(o.speakerIdType)
          expect(su?.speaker_identification?.known_values ?? []).toEqual(o.speakerIdKnownValues)
        }
        expect(su?.custom_formatting).toEqual(
          o.customFormatting
            ? { date: o.customFormatDate, phone_number: o.customFormatPhone, email: o.customFormatEmail }
            : undefined
        )
      }),
      { numRuns: 300 }
    )
  })
})

describe("language codes", () => {
  const lang = (s: string) => s as Language.LanguageCode
  it.each([
    ["en", "en"],
    ["en-US", "en_us"],
    ["en-GB", "en_uk"],
    ["en-AU", "en_au"],
    ["en-IN", "en"],
    ["pt-BR", "pt"],
    ["zh-Hans", "zh"],
    ["jv", "jw"],
    ["nb", "no"]
  ])("ours %s is AssemblyAI's %s", (ours, theirs) => {
    expect(assemblyAiCode(lang(ours))).toBe(theirs)
  })

  it.each([
    ["en_us", "en-US"],
    ["en_uk", "en-GB"],
    ["en_au", "en-AU"],
    ["en", "en"],
    ["es", "es"],
    ["jw", "jv"],
    ["pt-br", "pt-BR"],
    ["haw", undefined],
    ["", undefined]
  ])("AssemblyAI's %s is ours %s", (theirs, ours) => {
    expect(languageOf(theirs)).toBe(ours)
  })

  it("keeps filler words only where AssemblyAI has them", () => {
    expect(hasFillerWords("auto")).toBe(true)
    expect(hasFillerWords(lang("en-GB"))).toBe(true)
    expect(hasFillerWords(lang("de"))).toBe(false)
    expect([...englishOnly].every((code) => code.startsWith("en"))).toBe(true)
  })
})
