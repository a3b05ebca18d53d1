import { describe, expect, it } from "@effect/vitest"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { describeConfigError, ServerConfig } from "../src/config.js"

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(ServerConfig, ConfigProvider.fromJson(env))))

const failure = (env: Record<string, string>): string => {
  const result = read(env)
  if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(env)} to be refused`)
  return describeConfigError(result.left)
}

describe("ServerConfig", () => {
  it("defaults: port 3000 on 127.0.0.1, YouTube, embedded database, seed on", () => {
    const settings = Either.getOrThrow(read({}))
    expect(settings).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      platform: "youtube",
      demoCatalogue: shippedCataloguePath,
      seed: true
    })
    expect(Option.isNone(settings.database.url)).toBe(true)
    expect(settings.database.dataDir).toBe("./.data")
  })

  it("with DATABASE_URL the seed is off unless VERBATIM_SEED says otherwise", () => {
    expect(Either.getOrThrow(read({ DATABASE_URL: "postgres://localhost/x" })).seed).toBe(false)
    expect(
      Either.getOrThrow(read({ DATABASE_URL: "postgres://localhost/x", VERBATIM_SEED: "true" })).seed
    ).toBe(true)
    expect(Either.getOrThrow(read({ VERBATIM_SEED: "false" })).seed).toBe(false)
  })

  it("reads every variable", () => {
    const settings = Either.getOrThrow(
      read({
        PORT: "8080",
        HOST: "0.0.0.0",
        VERBATIM_DATA_DIR: "/srv/v",
        VERBATIM_DEMO_CATALOG: "/srv/c.json"
      })
    )
    expect(settings).toMatchObject({ port: 8080, host: "0.0.0.0", demoCatalogue: "/srv/c.json" })
    expect(settings.database.dataDir).toBe("/srv/v")
  })

  it.each([
    [{ PORT: "abc" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ HOST: "  " }, "HOST"],
    [{ VERBATIM_PLATFORM: "vimeo" }, "VERBATIM_PLATFORM"],
    [{ VERBATIM_SEED: "maybe" }, "VERBATIM_SEED"],
    [{ DATABASE_POOL_MAX: "0" }, "DATABASE_POOL_MAX"]
  ])("a bad value stops the start with a message naming the variable: %j", (env, variable) => {
    expect(failure(env)).toContain(variable)
  })

  it("VERBATIM_PLATFORM=demo selects the shipped catalogue and reads no YouTube setting", () => {
    const settings = Either.getOrThrow(read({ VERBATIM_PLATFORM: "demo" }))
    expect(settings.platform).toBe("demo")
    expect(Option.isNone(settings.youtube)).toBe(true)
    expect(Option.isSome(Either.getOrThrow(read({})).youtube)).toBe(true)
  })

  it.each([
    [{ VERBATIM_YOUTUBE_CACHE_SIZE: "many" }, "VERBATIM_YOUTUBE_CACHE_SIZE"],
    [{ VERBATIM_WORKER: "sometimes" }, "VERBATIM_WORKER"],
    [{ VERBATIM_JOB_LEASE_MS: "0" }, "VERBATIM_JOB_LEASE_MS"],
    [{ VERBATIM_WEBHOOK_SCHEDULE: "0,soon" }, "VERBATIM_WEBHOOK_SCHEDULE"]
  ])("a bad work or platform setting names its variable: %j", (env, variable) => {
    expect(failure(env)).toContain(variable)
  })
})
