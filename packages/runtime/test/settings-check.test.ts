/**
 * The settings checked at start (`settings-check.ts`): unknown `VERBATIM_*` names stop the start
 * naming the closest setting (or only warn, `VERBATIM_UNKNOWN_SETTINGS=warn`), every refused value is
 * one line naming the variable, the value (never a secret's) and what is allowed, all at once; and the
 * list of known names is exactly what the sources read.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Either, FastCheck as fc } from "effect"
import { InfrastructureConfig, LogConfig } from "../src/settings.js"
import {
  checkedSettings,
  closestSetting,
  editDistance,
  knownSettings,
  SettingsRefused,
  toolSettings,
  unknownSettingLines
} from "../src/settings-check.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))

/** Every `"VERBATIM_*"` string literal of the apps' and packages' sources. */
const namesInSources = (): ReadonlySet<string> => {
  const names = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (path.endsWith(".ts")) {
        for (const match of readFileSync(path, "utf8").matchAll(/"(VERBATIM_[A-Z0-9_]*[A-Z0-9])"/g)) {
          if (match[1] !== undefined) names.add(match[1])
        }
      }
    }
  }
  for (const group of ["apps", "packages"]) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(root, group, name, "src")
      if (
        statSync(join(root, group, name)).isDirectory() &&
        readdirSync(join(root, group, name)).includes("src")
      )
        walk(src)
    }
  }
  return names
}

/** `checkedSettings` over exactly `env` (as the process environment and the config provider). */
const check = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(
      Effect.withConfigProvider(
        checkedSettings(config, env),
        ConfigProvider.fromMap(new Map(Object.entries(env)))
      )
    )
  )

describe("settings checked at start", () => {
  it("knows exactly the VERBATIM_* names the sources read", () => {
    const inSources = [...namesInSources()].filter((name) => !toolSettings.includes(name)).sort()
    expect([...knownSettings].sort()).toEqual(inSources)
  })

  it("an unknown name is named with the closest setting; known, tool and _FILE names pass", () => {
    expect(
      unknownSettingLines({
        VERBATIM_PLATFROM: "demo",
        VERBATIM_WORKERS: "3",
        VERBATIM_PLATFORM: "demo",
        VERBATIM_HTTP_PORT: "8080",
        VERBATIM_BLOB_SIGNING_KEY_FILE: "/run/secrets/key",
        VERBATIM_ENTIRELY_DIFFERENT_THING: "1",
        PATH: "/usr/bin"
      })
    ).toEqual([
      'VERBATIM_ENTIRELY_DIFFERENT_THING is not a setting of Verbatim (the README\'s "Settings" lists them)',
      "VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?",
      "VERBATIM_WORKERS is not a setting of Verbatim; did you mean VERBATIM_WORKER?"
    ])
  })

  it.prop(
    "a setting with two neighbouring letters swapped is answered with a setting at least as close",
    [fc.constantFrom(...knownSettings), fc.nat()],
    ([name, at]) => {
      const i = "VERBATIM_".length + (at % (name.length - "VERBATIM_".length - 1))
      const typo = `${name.slice(0, i)}${name[i + 1]}${name[i]}${name.slice(i + 2)}`
      if (knownSettings.includes(typo)) return
      const closest = closestSetting(typo)
      expect(closest).toBeDefined()
      expect(editDistance(typo, closest ?? "")).toBeLessThanOrEqual(editDistance(typo, name))
    }
  )

  it("stops the start on an unknown name, or starts and warns with VERBATIM_UNKNOWN_SETTINGS=warn", () => {
    const refused = check(LogConfig, { VERBATIM_PLATFROM: "demo" })
    expect(refused).toEqual(
      Either.left(
        new SettingsRefused({
          lines: ["VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?"]
        })
      )
    )
    const warned = check(LogConfig, { VERBATIM_PLATFROM: "demo", VERBATIM_UNKNOWN_SETTINGS: "warn" })
    expect(Either.map(warned, ({ warnings }) => warnings)).toEqual(
      Either.right(["VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?"])
    )
    const badMode = check(LogConfig, { VERBATIM_UNKNOWN_SETTINGS: "ignore" })
    expect(Either.isLeft(badMode) && badMode.left.lines).toEqual([
      'VERBATIM_UNKNOWN_SETTINGS: Expected one of (error, warn) but received "ignore"'
    ])
  })

  it("every refused value is one line naming the variable, the value and what is allowed, all at once", () => {
    const refused = check(Config.all([InfrastructureConfig, LogConfig]), {
      VERBATIM_LOG_LEVEL: "verbose",
      VERBATIM_WORKER_CONCURRENCY: "0",
      VERBATIM_PLATFORM: "vimeo",
      VERBATIM_PLATFROM: "demo",
      DATABASE_URL: "mysql://user:hunter2@db/verbatim"
    })
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isRight(refused)) return
    const lines = refused.left.lines
    expect(lines).toContain("VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?")
    expect(lines).toContain(
      'VERBATIM_LOG_LEVEL: expected one of trace, debug, info, warning, error, fatal, none, got "verbose"'
    )
    expect(lines).toContain('VERBATIM_WORKER_CONCURRENCY must be a whole number of at least 1 (got "0")')
    expect(lines.find((line) => line.startsWith("VERBATIM_PLATFORM"))).toMatch(/youtube, demo.*vimeo/)
    expect(lines.find((line) => line.startsWith("DATABASE_URL"))).toMatch(/^DATABASE_URL must start with/)
    // A secret's value is never printed.
    expect(lines.join("\n")).not.toContain("hunter2")
    // One line each: no line names two variables, none repeats its name.
    for (const line of lines) {
      expect(line).not.toContain("\n")
      expect(line).not.toMatch(/^(\w+)_\1/)
    }
    expect(refused.left.message.split("\n")[0]).toBe("invalid settings:")
  })
})
