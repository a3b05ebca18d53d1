/**
 * The Apertium engine on the real program (installed by `scripts/install-translation.sh`, which CI
 * runs); where it is not installed, only the refusals are checked.
 */
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Translator } from "@verbatim/core"
import type { Language } from "@verbatim/domain"
import { Effect, Either } from "effect"
import { ApertiumTranslator, defaultSettings, modeFor, parseModes } from "../src/index.js"

const installed = (() => {
  try {
    return parseModes(execFileSync("apertium", ["-l"], { encoding: "utf8" })).includes("eng-spa")
  } catch {
    return false
  }
})()

const code = (c: string) => c as Language.LanguageCode
const engine = ApertiumTranslator.layer(defaultSettings)

describe("Apertium in CI", () => {
  // .ci/run installs it (scripts/install-translation.sh): there the engine's tests must run, not skip.
  it.runIf(process.env.CI === "true")("is installed with the English-Spanish pair", () => {
    expect(installed).toBe(true)
  })
})

describe("Apertium pairs", () => {
  it("maps ISO 639-1 codes onto installed modes in either naming, never a variant", () => {
    const modes = parseModes("  eng-spa\n  spa-eng\n  spa-eng_US\n  br-fr\nnoise line\n")
    expect(modes).toEqual(["eng-spa", "spa-eng", "spa-eng_US", "br-fr"])
    expect(modeFor(modes, code("en"), code("es"))).toBe("eng-spa")
    expect(modeFor(modes, code("es-MX"), code("en-US"))).toBe("spa-eng")
    expect(modeFor(modes, code("br"), code("fr"))).toBe("br-fr")
    expect(modeFor(modes, code("en"), code("fr"))).toBeUndefined()
  })
})

// Live clock: the real apertium program runs as a child process.
describe.runIf(installed)("Apertium engine (installed)", () => {
  it.live("translates English to Spanish one text per segment, empty ones kept empty", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const out = yield* translator.translate({
        source: code("en"),
        target: code("es"),
        texts: ["The cats are eating fish.", "", "Hello,\nhow are you today?"]
      })
      expect(out).toHaveLength(3)
      expect(out[0]?.toLowerCase()).toContain("gatos")
      expect(out[1]).toBe("")
      expect(out[2]?.toLowerCase()).toContain("hola")
      expect(out[2]).not.toContain("\n")
    }).pipe(Effect.provide(engine))
  )

  it.live("keeps segment boundaries over many segments and several runs", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const texts = Array.from({ length: 60 }, (_, i) => `The house number ${i} is big.`)
      const out = yield* translator.translate({ source: code("en"), target: code("es"), texts })
      expect(out).toHaveLength(60)
      out.forEach((text, i) => {
        expect(text).toContain(String(i))
        expect(text.toLowerCase()).toContain("casa")
      })
    }).pipe(Effect.provide(ApertiumTranslator.layer({ ...defaultSettings, maxCharacters: 200 })))
  )

  it.live("refuses a pair it does not have, naming the pair and the engine", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const refused = yield* Effect.either(translator.supports(code("en"), code("de")))
      expect(Either.isLeft(refused) && refused.left.engine).toBe("apertium")
      expect(Either.isLeft(refused) && refused.left.reason).toContain("en-de")
      const translated = yield* Effect.either(
        translator.translate({ source: code("en"), target: code("de"), texts: ["hello"] })
      )
      expect(Either.isLeft(translated) && translated.left._tag).toBe("TranslationUnsupported")
      expect(Either.isRight(yield* Effect.either(translator.supports(code("es"), code("en"))))).toBe(true)
    }).pipe(Effect.provide(engine))
  )
})

// Live clock: the real apertium program runs as a child process.
describe("Apertium engine (not installed)", () => {
  it.live("refuses every pair with how to install it", () =>
    Effect.gen(function* () {
      const translator = yield* Translator
      const refused = yield* Effect.either(translator.supports(code("en"), code("es")))
      expect(Either.isLeft(refused) && refused.left.reason).toContain("install-translation.sh")
    }).pipe(Effect.provide(ApertiumTranslator.layer({ ...defaultSettings, binary: "/nonexistent/apertium" })))
  )
})
