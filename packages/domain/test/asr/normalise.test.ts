import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { type AddOn, allAddOns } from "../../src/asr/add-on.js"
import {
  type AsrOptionName,
  AsrOptionsError,
  addOnsOf,
  type EffectiveAsrOptions,
  normalise
} from "../../src/asr/normalise.js"
import { AsrOptions, defaults } from "../../src/asr/options.js"
import { LanguageCode } from "../../src/language.js"

type Fields = { -readonly [K in AsrOptionName]: AsrOptions[K] }
const fieldsOf = (o: AsrOptions): Fields => ({ ...o })
const withFields = (o: AsrOptions, patch: Partial<Fields>): AsrOptions =>
  new AsrOptions({ ...fieldsOf(o), ...patch })
const options = (patch: Partial<Fields>): AsrOptions => withFields(defaults, patch)

const language = fc.oneof(
  fc.constantFrom("auto" as const),
  fc
    .constantFrom("en", "en-US", "es", "de", "fr", "pt-BR", "ja", "nl")
    .map((code) => LanguageCode.make(code)),
  Arbitrary.make(LanguageCode)
)
const count = fc.option(fc.integer({ min: 1, max: 20 }), { nil: null })

/** Any decoded options, biased so that languages, targets and speaker counts meet often. */
const asrOptions: fc.Arbitrary<AsrOptions> = fc
  .record({
    base: Arbitrary.make(AsrOptions),
    language,
    target: fc.oneof(fc.constantFrom("same" as const, "none" as const), language),
    exact: count,
    min: count,
    max: count
  })
  .map(({ base, exact, language, max, min, target }) =>
    withFields(base, {
      language,
      translateTo:
        target === "same"
          ? language === "auto"
            ? "none"
            : language
          : target === "auto"
            ? LanguageCode.make("en")
            : target === "none"
              ? "none"
              : target,
      speakersExpected: exact,
      speakersExpectedMin: min,
      speakersExpectedMax: max
    })
  )

const effective = (o: AsrOptions): EffectiveAsrOptions =>
  Either.getOrThrowWith(normalise(o), (e) => new Error(e.message))

const isError = (o: AsrOptions): boolean =>
  o.speakersExpected === null &&
  o.speakersExpectedMin !== null &&
  o.speakersExpectedMax !== null &&
  o.speakersExpectedMin > o.speakersExpectedMax

/** The boolean options whose add-on, if any, they only ever add. */
const additiveFlags = [
  "codeSwitching",
  "medicalMode",
  "speakerLabels",
  "speakerId",
  "topicDetection",
  "summarization",
  "contentModeration",
  "piiRedaction",
  "profanityFiltering",
  "sentimentAnalysis",
  "autoPunctuation",
  "textFormatting",
  "fillerWords",
  "customFormatting"
] as const

const subset = (a: ReadonlyArray<AddOn>, b: ReadonlyArray<AddOn>) => a.every((x) => b.includes(x))

describe("normalise laws", () => {
  it("fails exactly when min > max without an exact count, naming speakersExpectedMin", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        const result = normalise(o)
        expect(Either.isLeft(result)).toBe(isError(o))
        if (Either.isLeft(result)) {
          expect(result.left).toBeInstanceOf(AsrOptionsError)
          expect(result.left.field).toBe("speakersExpectedMin")
        }
      })
    )
  })

  it("is idempotent: effective options normalise to themselves, with the same bill and nothing ignored", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const once = effective(o)
        const twice = effective(once.options)
        expect(twice.options).toEqual(once.options)
        expect(twice.billable).toEqual(once.billable)
        expect(twice.ignored).toEqual([])
      })
    )
  })

  it("bills only what was requested, once each, in the order of allAddOns", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const { billable, options: applied } = effective(o)
        expect(subset(billable, addOnsOf(o))).toBe(true)
        expect(billable).toEqual(allAddOns.filter((a) => billable.includes(a)))
        expect(billable).toEqual(addOnsOf(applied))
      })
    )
  })

  it("multichannel wins: no diarization, speakerLabels and speakerId off", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o) && o.multichannel)
        const { billable, options: applied } = effective(o)
        expect(billable).not.toContain("diarization")
        expect(applied.speakerLabels).toBe(false)
        expect(applied.speakerId).toBe(false)
        expect(applied.multichannel).toBe(true)
      })
    )
  })

  it("turning multichannel on removes diarization and nothing else", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const off = effective(withFields(o, { multichannel: false })).billable
        const on = effective(withFields(o, { multichannel: true })).billable
        expect(on).toEqual(off.filter((a) => a !== "diarization"))
      })
    )
  })

  it("an exact speaker count clears min and max", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(o.speakersExpected !== null)
        const { options: applied } = effective(o)
        expect(applied.speakersExpectedMin).toBeNull()
        expect(applied.speakersExpectedMax).toBeNull()
      })
    )
  })

  it("speaker counts survive only with diarization", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const { options: applied } = effective(o)
        if (!applied.speakerLabels) {
          expect([
            applied.speakersExpected,
            applied.speakersExpectedMin,
            applied.speakersExpectedMax
          ]).toEqual([null, null, null])
        } else expect(applied.speakersExpected).toBe(o.speakersExpected)
      })
    )
  })

  it("speakerId that applies implies diarization; speakerId is never kept without diarization", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const { billable, options: applied } = effective(o)
        if (applied.speakerId) {
          expect(applied.speakerLabels).toBe(true)
          expect(billable).toContain("diarization")
        }
        if (applied.speakerIdType === "role" && applied.speakerId) {
          expect(applied.speakerIdKnownValues.length).toBeGreaterThan(0)
        }
      })
    )
  })

  it("turning on any option but multichannel never removes an add-on", () => {
    fc.assert(
      fc.property(asrOptions, fc.constantFrom(...additiveFlags), (o, flag) => {
        fc.pre(!isError(o))
        const off = effective(withFields(o, { [flag]: false })).billable
        const on = effective(withFields(o, { [flag]: true })).billable
        expect(subset(off, on)).toBe(true)
      })
    )
  })

  it("notes exactly the options whose value changed (speakerLabels implied by speakerId is not a change)", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const { ignored, options: applied } = effective(o)
        const requested = fieldsOf(o)
        const result = fieldsOf(applied)
        const changed = (Object.keys(requested) as Array<AsrOptionName>).filter(
          (k) =>
            JSON.stringify(requested[k]) !== JSON.stringify(result[k]) &&
            !(k === "speakerLabels" && !requested.speakerLabels)
        )
        expect(ignored.map((n) => n.option)).toEqual(changed)
        for (const note of ignored) expect(note.reason.length).toBeGreaterThan(0)
      })
    )
  })

  it("language-bound options follow the source language", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const { options: applied } = effective(o)
        if (o.language !== "auto") {
          expect(applied.codeSwitching).toBe(false)
          if (applied.translateTo !== "none") {
            expect(applied.translateTo.split("-")[0]).not.toBe(o.language.split("-")[0])
          }
        } else {
          expect(applied.codeSwitching).toBe(o.codeSwitching)
          expect(applied.keyTerms).toEqual(o.keyTerms)
          expect(applied.medicalMode).toBe(o.medicalMode)
          expect(applied.translateTo).toBe(o.translateTo)
        }
      })
    )
  })

  it("the options outside the interplay rules are kept as requested", () => {
    fc.assert(
      fc.property(asrOptions, (o) => {
        fc.pre(!isError(o))
        const { options: applied } = effective(o)
        for (const k of [
          "language",
          "multichannel",
          "topicDetection",
          "summarization",
          "contentModeration",
          "piiRedaction",
          "profanityFiltering",
          "sentimentAnalysis",
          "autoPunctuation",
          "textFormatting",
          "fillerWords",
          "customFormatting"
        ] as const) {
          expect(applied[k]).toEqual(o[k])
        }
      })
    )
  })
})

describe("normalise examples", () => {
  it("defaults bill nothing and ignore nothing", () => {
    const result = effective(defaults)
    expect(result.billable).toEqual([])
    expect(result.ignored).toEqual([])
    expect(result.options).toEqual(defaults)
  })

  it("maps every billable option to its add-on", () => {
    const all = effective(
      options({
        speakerLabels: true,
        sentimentAnalysis: true,
        profanityFiltering: true,
        summarization: true,
        customFormatting: true,
        translateTo: LanguageCode.make("de"),
        piiRedaction: true,
        topicDetection: true,
        contentModeration: true
      })
    )
    expect(all.billable).toEqual(allAddOns)
    expect(effective(options({ speakerId: true })).billable).toEqual(["diarization"])
  })

  it("multichannel wins over speakerLabels and speakerId, and has no surcharge", () => {
    const result = effective(options({ multichannel: true, speakerLabels: true, speakerId: true }))
    expect(result.billable).toEqual([])
    expect(result.ignored).toEqual([
      { option: "speakerLabels", reason: "multichannel disables speakerLabels" },
      { option: "speakerId", reason: "multichannel disables speaker identification" }
    ])
  })

  it("role identification without known values is skipped and bills diarization only for explicit speakerLabels", () => {
    const roleOnly = effective(options({ speakerId: true, speakerIdType: "role" }))
    expect(roleOnly.billable).toEqual([])
    expect(roleOnly.options.speakerId).toBe(false)
    expect(roleOnly.options.speakerIdType).toBe("name")
    const withLabels = effective(options({ speakerId: true, speakerIdType: "role", speakerLabels: true }))
    expect(withLabels.billable).toEqual(["diarization"])
    const withRoles = effective(
      options({ speakerId: true, speakerIdType: "role", speakerIdKnownValues: ["host"] })
    )
    expect(withRoles.options).toMatchObject({ speakerId: true, speakerLabels: true, speakerIdType: "role" })
    expect(withRoles.billable).toEqual(["diarization"])
  })

  it("refuses min greater than max, unless an exact count overrides both", () => {
    const result = normalise(options({ speakerLabels: true, speakersExpectedMin: 5, speakersExpectedMax: 2 }))
    expect(Either.isLeft(result) && result.left.reason).toBe(
      "speakersExpectedMin (5) is greater than speakersExpectedMax (2)"
    )
    const exact = effective(
      options({ speakerLabels: true, speakersExpected: 3, speakersExpectedMin: 5, speakersExpectedMax: 2 })
    )
    expect(exact.options).toMatchObject({
      speakersExpected: 3,
      speakersExpectedMin: null,
      speakersExpectedMax: null
    })
  })

  it("drops speaker counts without diarization", () => {
    const result = effective(options({ speakersExpected: 2 }))
    expect(result.options.speakersExpected).toBeNull()
    expect(result.ignored.map((n) => n.option)).toEqual(["speakersExpected"])
  })

  it("applies language rules: code switching, medical mode, key terms, translation", () => {
    const fixed = effective(
      options({
        language: LanguageCode.make("ja"),
        codeSwitching: true,
        medicalMode: true,
        keyTerms: ["myocardial infarction"],
        translateTo: LanguageCode.make("ja")
      })
    )
    expect(fixed.options).toMatchObject({
      codeSwitching: false,
      medicalMode: false,
      keyTerms: [],
      translateTo: "none"
    })
    expect(fixed.billable).toEqual([])
    const english = effective(
      options({
        language: LanguageCode.make("en-US"),
        medicalMode: true,
        keyTerms: ["stent"],
        translateTo: LanguageCode.make("en")
      })
    )
    expect(english.options).toMatchObject({ medicalMode: true, keyTerms: ["stent"], translateTo: "none" })
    const spanish = effective(options({ language: LanguageCode.make("es"), medicalMode: true }))
    expect(spanish.options.medicalMode).toBe(true)
    const detected = effective(
      options({
        codeSwitching: true,
        medicalMode: true,
        keyTerms: ["stent"],
        translateTo: LanguageCode.make("en")
      })
    )
    expect(detected.options).toMatchObject({ codeSwitching: true, medicalMode: true, keyTerms: ["stent"] })
    expect(detected.billable).toEqual(["translation"])
  })

  it("resets custom formats when customFormatting is off", () => {
    const off = effective(options({ customFormatDate: "yyyy-mm-dd" }))
    expect(off.options.customFormatDate).toBe("mm/dd/yyyy")
    expect(off.ignored).toEqual([
      { option: "customFormatDate", reason: "applies only with customFormatting" }
    ])
    const on = effective(options({ customFormatting: true, customFormatDate: "yyyy-mm-dd" }))
    expect(on.options.customFormatDate).toBe("yyyy-mm-dd")
    expect(on.billable).toEqual(["custom_formatting"])
  })
})
