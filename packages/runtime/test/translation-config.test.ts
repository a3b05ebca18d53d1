/**
 * Which machine translation engine the settings choose (`translationFor`): the model when
 * VERBATIM_AI_MODEL is set, else Apertium where a pair is installed, else none, whose refusal says
 * how to get one; `VERBATIM_TRANSLATION=ai` without a model stops the start naming the variable;
 * the start lists Apertium's pairs once (the choice and the engine share the list).
 */
import { execFileSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { parseModes } from "@verbatim/apertium"
import { Translator } from "@verbatim/core"
import type { Language } from "@verbatim/domain"
import { ConfigProvider, Effect, Either } from "effect"
import { InfrastructureConfig, type TranslationEngineName, translationFor } from "../src/index.js"

const apertium = (() => {
  try {
    return parseModes(execFileSync("apertium", ["-l"], { encoding: "utf8" })).length > 0
  } catch {
    return false
  }
})()

const engineOf = (engine: TranslationEngineName, env: Record<string, string>) =>
  Effect.flatMap(Translator, (t) => Effect.succeed(t)).pipe(
    Effect.provide(translationFor(engine)),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    Effect.either
  )

// Live clock: apertium runs as a child process to list its pairs.
describe("translationFor", () => {
  it.live("auto: the model when VERBATIM_AI_MODEL is set", () =>
    Effect.gen(function* () {
      const chosen = yield* engineOf("auto", { VERBATIM_AI_MODEL: "gpt-4.1-mini" })
      expect(Either.isRight(chosen) && chosen.right.engine).toBe("model gpt-4.1-mini")
    })
  )

  it.live(
    "auto without a model: Apertium where installed, else none, which refuses saying how to get one",
    () =>
      Effect.gen(function* () {
        const chosen = yield* engineOf("auto", {})
        expect(Either.isRight(chosen)).toBe(true)
        if (Either.isLeft(chosen)) return
        expect(chosen.right.engine).toBe(apertium ? "apertium" : "none")
        if (!apertium) {
          const refused = yield* Effect.either(
            chosen.right.supports("en" as Language.LanguageCode, "es" as Language.LanguageCode)
          )
          expect(Either.isLeft(refused) && refused.left.reason).toContain("VERBATIM_AI_MODEL")
        }
      })
  )

  it.live("auto without a model lists the installed Apertium pairs once at start, not twice", () =>
    Effect.gen(function* () {
      // A stand-in for `apertium` that counts its runs and lists one pair.
      const dir = mkdtempSync(join(tmpdir(), "verbatim-apertium-list-"))
      const runs = join(dir, "runs")
      const binary = join(dir, "apertium")
      writeFileSync(runs, "")
      writeFileSync(binary, `#!/bin/sh\necho "$*" >> '${runs}'\nprintf '  eng-spa\\n'\n`)
      chmodSync(binary, 0o755)
      const chosen = yield* engineOf("auto", { VERBATIM_APERTIUM_BIN: binary })
      expect(Either.isRight(chosen) && chosen.right.engine).toBe("apertium")
      if (Either.isLeft(chosen)) return
      yield* chosen.right.supports("en" as Language.LanguageCode, "es" as Language.LanguageCode)
      expect(readFileSync(runs, "utf8").trim().split("\n")).toEqual(["-l"])
    })
  )

  it.live("none refuses every pair; ai without a model stops the start naming VERBATIM_AI_MODEL", () =>
    Effect.gen(function* () {
      const none = yield* engineOf("none", { VERBATIM_AI_MODEL: "m" })
      expect(Either.isRight(none) && none.right.engine).toBe("none")
      const missing = yield* engineOf("ai", {})
      expect(Either.isLeft(missing) && String(missing.left)).toContain("VERBATIM_AI_MODEL")
    })
  )

  it.effect(
    "VERBATIM_TRANSLATION is read with the infrastructure (default auto) and a bad value is refused",
    () =>
      Effect.gen(function* () {
        const read = (env: Record<string, string>) =>
          Effect.either(
            Effect.withConfigProvider(
              InfrastructureConfig,
              ConfigProvider.fromMap(new Map(Object.entries(env)))
            )
          )
        const defaults = yield* read({})
        expect(Either.isRight(defaults) && defaults.right.translation).toBe("auto")
        const bad = yield* read({ VERBATIM_TRANSLATION: "deepl" })
        expect(Either.isLeft(bad) && String(bad.left)).toContain("VERBATIM_TRANSLATION")
      })
  )
})
