/**
 * The themes engine the environment chooses: local by default, the model when VERBATIM_AI_MODEL is
 * set (VERBATIM_THEMES_ENGINE=auto), local when told so even with a model, and a start that asks
 * for the model without one fails naming VERBATIM_AI_MODEL. The wait comes from VERBATIM_THEMES_WAIT_MS.
 */
import { describe, expect, it } from "@effect/vitest"
import { ThemesEngine, ThemesSettings } from "@verbatim/core"
import { Cause, ConfigProvider, Effect, Exit } from "effect"
import { ThemesFromConfig } from "../src/index.js"

const chosen = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const engine = yield* ThemesEngine
    const settings = yield* ThemesSettings
    return { engine: engine.name, waitMs: settings.waitMs }
  }).pipe(
    Effect.provide(ThemesFromConfig),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
  )

const model = { VERBATIM_AI_MODEL: "gpt-4.1-mini", VERBATIM_AI_BASE_URL: "http://127.0.0.1:9/v1" }

describe("themes engine by settings", () => {
  it.effect("local without a model, the model when one is set, local when asked", () =>
    Effect.gen(function* () {
      expect(yield* chosen({})).toEqual({ engine: "local", waitMs: 25_000 })
      expect(yield* chosen(model)).toEqual({ engine: "model gpt-4.1-mini", waitMs: 25_000 })
      expect(
        yield* chosen({ ...model, VERBATIM_THEMES_ENGINE: "local", VERBATIM_THEMES_WAIT_MS: "5000" })
      ).toEqual({
        engine: "local",
        waitMs: 5_000
      })
    })
  )

  it.effect("refuses to start with the model engine and no model, or a wait that is not a whole number", () =>
    Effect.gen(function* () {
      for (const [env, names] of [
        [{ VERBATIM_THEMES_ENGINE: "llm" }, "VERBATIM_AI_MODEL"],
        [{ VERBATIM_THEMES_WAIT_MS: "soon" }, "VERBATIM_THEMES_WAIT_MS"]
      ] as const) {
        const exit = yield* Effect.exit(chosen(env))
        expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain(names)
      }
    })
  )
})
