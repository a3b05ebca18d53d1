/**
 * Secrets from files (`<NAME>_FILE`): read and trimmed into the setting, refused when both forms are
 * set (naming both), when the file cannot be read or is empty; settings that are not secrets (a
 * `_FILE` suffix of their own, such as the worker's heartbeat file) are left alone.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Config, Effect, Either, Redacted } from "effect"
import { resolveSecretFiles, secretFilesProvider, secretSettings } from "../src/secret-files.js"

const dir = mkdtempSync(join(tmpdir(), "verbatim-secrets-"))
const file = (name: string, content: string) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

describe("secrets from files", () => {
  it("every secret setting takes <NAME>_FILE: the file's trimmed content is the value", () => {
    for (const name of secretSettings) {
      const resolved = resolveSecretFiles({ [`${name}_FILE`]: file(name, "  s3cr:et/value\n") })
      expect(resolved).toEqual(Either.right({ [`${name}_FILE`]: join(dir, name), [name]: "s3cr:et/value" }))
    }
  })

  it.effect("a setting read with Config sees the file's value through the provider", () =>
    Effect.gen(function* () {
      const provider = secretFilesProvider({
        DATABASE_URL_FILE: file("db", "postgres://u:p%40ss@db:5432/v\n"),
        VERBATIM_LOG_LEVEL: "debug"
      })
      expect(Either.isRight(provider)).toBe(true)
      if (Either.isLeft(provider)) return
      const [url, level] = yield* Effect.withConfigProvider(
        Effect.all([Config.redacted("DATABASE_URL"), Config.string("VERBATIM_LOG_LEVEL")]),
        provider.right
      )
      expect([Redacted.value(url), level]).toEqual(["postgres://u:p%40ss@db:5432/v", "debug"])
    })
  )

  it("both forms set, an unreadable file or an empty one stop the start naming the variable", () => {
    expect(
      resolveSecretFiles({ REDIS_URL: "redis://a", REDIS_URL_FILE: file("redis", "redis://b") })
    ).toEqual(Either.left("REDIS_URL and REDIS_URL_FILE are both set: set one of them"))
    const missing = resolveSecretFiles({ VERBATIM_AI_API_KEY_FILE: join(dir, "absent") })
    expect(Either.isLeft(missing) ? missing.left : "").toMatch(
      /^VERBATIM_AI_API_KEY_FILE names a file that cannot be read \(.*absent\): ENOENT/
    )
    expect(resolveSecretFiles({ DATABASE_URL_FILE: file("empty", " \n") })).toEqual(
      Either.left(`DATABASE_URL_FILE names an empty file (${join(dir, "empty")})`)
    )
  })

  it("an empty file of an optional key (AssemblyAI's, the model's) leaves the key unset", () => {
    const empty = file("empty-key", "\n")
    expect(resolveSecretFiles({ ASSEMBLYAI_API_KEY_FILE: empty })).toEqual(
      Either.right({ ASSEMBLYAI_API_KEY_FILE: empty })
    )
    expect(resolveSecretFiles({ VERBATIM_AI_API_KEY_FILE: empty })).toEqual(
      Either.right({ VERBATIM_AI_API_KEY_FILE: empty })
    )
  })

  it("a variable that is not a secret keeps its _FILE suffix as its own setting", () => {
    const env = { VERBATIM_WORKER_HEARTBEAT_FILE: "/tmp/heartbeat" }
    expect(resolveSecretFiles(env)).toEqual(Either.right(env))
  })
})
