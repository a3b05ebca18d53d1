import { describe, expect, it } from "@effect/vitest"
import { SpeechToText } from "@verbatim/core"
import { effectiveOptions, type RawAsrOptions } from "@verbatim/testkit"
import { Effect } from "effect"
import { detectWith, PocketsphinxSpeech, refusal } from "../src/index.js"
import { bytesInput, settingsWith } from "./support.js"

describe("refusal", () => {
  const refused = (raw: RawAsrOptions) => refusal(effectiveOptions(raw))

  it("accepts the default request and every best-effort option", () => {
    for (const raw of [
      {},
      { language: "en" },
      { language: "en-GB" },
      { language: "auto" },
      { autoPunctuation: false, textFormatting: false, fillerWords: false },
      { keyTerms: ["Verbatim", "kitchen table"] },
      // Options that do not apply are not refused: normalisation resets them.
      { speakersExpected: 2, customFormatDate: "yyyy-mm-dd", speakerIdType: "role" },
      { language: "en", translateTo: "en-US" }
    ] satisfies ReadonlyArray<RawAsrOptions>) {
      expect(refused(raw), JSON.stringify(raw)).toBeUndefined()
    }
  })

  it("refuses a language other than English, naming language", () => {
    const refusedFrench = refused({ language: "fr" })
    expect(refusedFrench?.option).toBe("language")
    expect(refusedFrench?.engine).toBe("pocketsphinx")
    expect(refusedFrench?.message).toBe(
      "asr_options.language: the local engine recognises English only, not fr (speech recognition engine: pocketsphinx)"
    )
  })

  it.each([
    [{ codeSwitching: true }, "codeSwitching"],
    [{ medicalMode: true }, "medicalMode"],
    [{ translateTo: "es" }, "translateTo"],
    [{ speakerLabels: true }, "speakerLabels"],
    [{ speakerId: true, speakerIdType: "name" }, "speakerLabels"],
    [{ multichannel: true }, "multichannel"],
    [{ multichannel: true, speakerLabels: true }, "multichannel"],
    [{ topicDetection: true }, "topicDetection"],
    [{ summarization: true }, "summarization"],
    [{ contentModeration: true }, "contentModeration"],
    [{ piiRedaction: true }, "piiRedaction"],
    [{ profanityFiltering: true }, "profanityFiltering"],
    [{ sentimentAnalysis: true }, "sentimentAnalysis"],
    [{ customFormatting: true }, "customFormatting"],
    [{ language: "de", summarization: true }, "language"]
  ] satisfies ReadonlyArray<readonly [RawAsrOptions, string]>)("%j is refused naming %s", (raw, option) => {
    const refusedOne = refused(raw)
    expect(refusedOne?._tag).toBe("SpeechUnsupported")
    expect(refusedOne?.option).toBe(option)
    expect(refusedOne?.message).toContain(`asr_options.${option}`)
    expect(refusedOne?.message).toContain("pocketsphinx")
  })
})

describe("without the engine", () => {
  const missing = settingsWith({
    recogniser: "/nonexistent/bin/pocketsphinx_continuous",
    modelDir: "/nonexistent/model",
    converter: "no-such-ffmpeg-here"
  })

  it.effect("detect lists what is missing and how to install it", () =>
    Effect.gen(function* () {
      const found = yield* detectWith(missing)
      expect(found._tag).toBe("Missing")
      if (found._tag === "Missing") {
        expect(found.missing).toHaveLength(3)
        expect(found.reason).toContain("scripts/install-speech.sh")
        expect(found.reason).toContain("pocketsphinx pocketsphinx-en-us ffmpeg")
      }
    })
  )

  it.effect("the layer builds; supports and transcribe answer SpeechUnavailable saying how to install", () =>
    Effect.gen(function* () {
      const stt = yield* SpeechToText
      expect(stt.engine).toBe("pocketsphinx")
      const unsupported = yield* Effect.flip(stt.supports(effectiveOptions({})))
      expect(unsupported._tag).toBe("SpeechUnavailable")
      expect(unsupported.reason).toContain("scripts/install-speech.sh")
      expect(unsupported.reason).toContain("/nonexistent/bin/pocketsphinx_continuous")
      const failure = yield* Effect.flip(stt.transcribe(bytesInput(new Uint8Array(10)), effectiveOptions({})))
      expect(failure._tag).toBe("SpeechUnavailable")
    }).pipe(Effect.provide(PocketsphinxSpeech.layer(missing)))
  )

  it.effect("a recogniser given by path is found; a name is looked up in PATH", () =>
    Effect.gen(function* () {
      const viaPath = yield* detectWith(settingsWith({ recogniser: "sh", converter: "sh" }))
      const viaSlash = yield* detectWith(settingsWith({ recogniser: "/bin/sh", converter: "/bin/sh" }))
      // The model may be missing here; the binaries are found either way.
      for (const found of [viaPath, viaSlash]) {
        if (found._tag === "Missing") expect(found.missing.join()).not.toContain("sh (")
      }
    })
  )
})
