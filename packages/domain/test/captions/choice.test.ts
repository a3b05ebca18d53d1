import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Option } from "effect"
import { acceptedKinds, chooseTrack } from "../../src/captions/choice.js"
import { CaptionTrack } from "../../src/captions/track.js"
import type { LanguageCode } from "../../src/language.js"
import { Mode } from "../../src/mode/mode.js"

const lang = (s: string) => s as LanguageCode
const track = (language: string, kind: "manual" | "auto") =>
  new CaptionTrack({ language: lang(language), kind, name: null })

const languages = fc.constantFrom(...["en", "de", "fr", "es", "ja", "pt-BR", "en-GB"].map(lang))
const trackArb = fc
  .record({ language: languages, kind: fc.constantFrom("manual" as const, "auto" as const) })
  .map(({ language, kind }) => track(language, kind))
const tracksArb = fc.array(trackArb, { maxLength: 8 })
const modeArb = Arbitrary.make(Mode)

describe("caption track choice", () => {
  it("picks only tracks of the video, of a kind the mode accepts", () => {
    fc.assert(
      fc.property(tracksArb, modeArb, fc.option(languages, { nil: undefined }), (tracks, mode, language) => {
        const chosen = chooseTrack(tracks, { mode, language })
        if (Option.isSome(chosen)) {
          expect(tracks).toContain(chosen.value)
          expect(acceptedKinds(mode)).toContain(chosen.value.kind)
        } else {
          expect(tracks.some((t) => acceptedKinds(mode).includes(t.kind))).toBe(false)
        }
      })
    )
  })

  it("never takes an auto track under human_captions_only, and no track for speech_to_text_only", () => {
    fc.assert(
      fc.property(tracksArb, fc.option(languages, { nil: undefined }), (tracks, language) => {
        const human = chooseTrack(tracks, { mode: "human_captions_only", language })
        expect(Option.isNone(human) || human.value.kind === "manual").toBe(true)
        expect(Option.isNone(chooseTrack(tracks, { mode: "speech_to_text_only", language }))).toBe(true)
      })
    )
  })

  it("serves the requested language whenever the video has an accepted track in it, human first", () => {
    fc.assert(
      fc.property(tracksArb, languages, (tracks, language) => {
        const chosen = chooseTrack(tracks, { mode: "captions_only", language })
        const same = tracks.filter((t) => t.language.split("-")[0] === language.split("-")[0])
        if (same.length > 0) {
          expect(Option.isSome(chosen)).toBe(true)
          const value = Option.getOrThrow(chosen)
          expect(value.language.split("-")[0]).toBe(language.split("-")[0])
          if (same.some((t) => t.kind === "manual")) expect(value.kind).toBe("manual")
        }
      })
    )
  })

  it("falls back to the original language, then English, then the first track", () => {
    const tracks = [track("ja", "auto"), track("en", "auto"), track("fr", "manual"), track("de", "auto")]
    const pick = (language: string | undefined, originalLanguage: string | undefined) =>
      Option.getOrThrow(
        chooseTrack(tracks, {
          mode: "captions_only",
          language: language === undefined ? undefined : lang(language),
          originalLanguage: originalLanguage === undefined ? undefined : lang(originalLanguage)
        })
      )
    expect(pick("es", "de")).toEqual(track("de", "auto"))
    expect(pick("es", "ko")).toEqual(track("en", "auto"))
    expect(pick("fr", "de")).toEqual(track("fr", "manual"))
    expect(pick("de-AT", undefined)).toEqual(track("de", "auto"))
    const noEnglish = [track("ja", "auto"), track("fr", "manual")]
    expect(
      Option.getOrThrow(chooseTrack(noEnglish, { mode: "captions_only", language: lang("es") }))
    ).toEqual(track("fr", "manual"))
    expect(Option.isNone(chooseTrack([track("en", "auto")], { mode: "human_captions_only" }))).toBe(true)
  })

  it("prefers an exact regional match over another region of the same language", () => {
    const tracks = [track("en-GB", "manual"), track("en", "manual")]
    expect(Option.getOrThrow(chooseTrack(tracks, { mode: "captions_only", language: lang("en") }))).toEqual(
      track("en", "manual")
    )
  })
})
