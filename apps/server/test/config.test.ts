import { describe, expect, it, vi } from "@effect/vitest"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { batchedLines, jsonLineLogger, loggerFor, prettyLineLogger } from "@verbatim/runtime"
import { ConfigProvider, Effect, Either, HashMap, List, LogLevel, Option } from "effect"
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

  it("VERBATIM_MCP_ALLOWED_ORIGINS: none by default, origins serialized, anything else refused by name", () => {
    expect(Either.getOrThrow(read({})).mcpAllowedOrigins).toEqual([])
    expect(
      Either.getOrThrow(
        read({
          VERBATIM_MCP_ALLOWED_ORIGINS: " HTTP://LocalHost:6274 , https://app.example/,https://b.example:443"
        })
      ).mcpAllowedOrigins
    ).toEqual(["http://localhost:6274", "https://app.example", "https://b.example"])
    for (const bad of [
      "https://app.example/path",
      "*",
      "app.example",
      "ftp://x.example",
      "https://u@x.example"
    ]) {
      const text = failure({ VERBATIM_MCP_ALLOWED_ORIGINS: `https://ok.example,${bad}` })
      expect(text).toContain("VERBATIM_MCP_ALLOWED_ORIGINS")
      expect(text).toContain(bad)
    }
  })

  it("VERBATIM_WEB: the web library is on by default, off with false, anything but a boolean refused by name", () => {
    expect(Either.getOrThrow(read({})).web).toBe(true)
    expect(Either.getOrThrow(read({ VERBATIM_WEB: "false" })).web).toBe(false)
    expect(Either.getOrThrow(read({ VERBATIM_WEB: "true" })).web).toBe(true)
    expect(failure({ VERBATIM_WEB: "sometimes" })).toContain("VERBATIM_WEB")
  })

  it("the seed is on with PGlite and with PostgreSQL alike, unless VERBATIM_SEED=false", () => {
    expect(Either.getOrThrow(read({ DATABASE_URL: "postgres://localhost/x" })).seed).toBe(true)
    expect(
      Either.getOrThrow(read({ DATABASE_URL: "postgres://localhost/x", VERBATIM_SEED: "false" })).seed
    ).toBe(false)
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
    [{ DATABASE_POOL_MAX: "0" }, "DATABASE_POOL_MAX"],
    [{ DATABASE_URL: "garbage" }, "DATABASE_URL"],
    [{ DATABASE_URL: "http://db.example:5432/verbatim" }, "DATABASE_URL"],
    [{ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL"],
    [{ DATABASE_CONNECT_TIMEOUT_MS: "0" }, "DATABASE_CONNECT_TIMEOUT_MS"],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: "soon" }, "DATABASE_STATEMENT_TIMEOUT_MS"]
  ])("a bad value stops the start with a message naming the variable: %j", (env, variable) => {
    expect(failure(env)).toContain(variable)
  })

  it.each([
    [{ PORT: "abc" }, 'invalid setting: PORT: expected a port number from 1 to 65535, got "abc"'],
    [
      { DATABASE_URL: "garbage" },
      "invalid setting: DATABASE_URL must be a PostgreSQL connection string such as postgres://user:password@host:5432/database"
    ],
    [
      { DATABASE_URL: "http://db.example:5432/verbatim" },
      "invalid setting: DATABASE_URL must start with postgres:// or postgresql:// (not http://), such as postgres://user:password@host:5432/database"
    ],
    [
      { REDIS_URL: "http://:secret@cache.example:6379" },
      "invalid setting: REDIS_URL must start with redis:// or rediss:// (not http://), such as redis://host:6379/0 (or rediss:// for TLS)"
    ],
    [
      { REDIS_URL: "localhost:6379" },
      "invalid setting: REDIS_URL must start with redis:// or rediss:// (not localhost://), such as redis://host:6379/0 (or rediss:// for TLS)"
    ],
    [
      { REDIS_URL: "cache" },
      "invalid setting: REDIS_URL must be a Redis URL such as redis://host:6379/0 (or rediss:// for TLS)"
    ]
  ])("the message says what the variable expects, on one line: %j", (env, message) => {
    expect(failure(env)).toBe(message)
  })

  it("several bad values are listed one per line, each named", () => {
    expect(failure({ PORT: "99999", DATABASE_POOL_MAX: "0" }).split("\n")).toEqual([
      "invalid settings:",
      '  PORT: expected a port number from 1 to 65535, got "99999"',
      "  DATABASE_POOL_MAX must be at least 1"
    ])
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
    [{ VERBATIM_WEBHOOK_SCHEDULE: "0,soon" }, "VERBATIM_WEBHOOK_SCHEDULE"],
    [{ VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND: "0" }, "VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND"],
    [{ VERBATIM_UPLOAD_PUT_FLOOR_MS: "soon" }, "VERBATIM_UPLOAD_PUT_FLOOR_MS"]
  ])("a bad work or platform setting names its variable: %j", (env, variable) => {
    expect(failure(env)).toContain(variable)
  })

  it("reads the upload pace, 512 KiB/s and a minute by default", () => {
    expect(Either.getOrThrow(read({})).uploadPace).toEqual({
      minBytesPerSecond: 524_288,
      floorMillis: 60_000
    })
    expect(
      Either.getOrThrow(
        read({ VERBATIM_UPLOAD_MIN_BYTES_PER_SECOND: "1000", VERBATIM_UPLOAD_PUT_FLOOR_MS: "5" })
      ).uploadPace
    ).toEqual({ minBytesPerSecond: 1_000, floorMillis: 5 })
  })
})

describe("log settings", () => {
  it("default to level info; the format is JSON when stdout is not a terminal", () => {
    const settings = Either.getOrThrow(read({}))
    expect(settings.log.level).toBe(LogLevel.Info)
    expect(settings.log.format).toBe(process.stdout.isTTY === true ? "pretty" : "json")
  })

  it("read VERBATIM_LOG_LEVEL (warn is warning) and VERBATIM_LOG_FORMAT", () => {
    const settings = Either.getOrThrow(read({ VERBATIM_LOG_LEVEL: "warn", VERBATIM_LOG_FORMAT: "pretty" }))
    expect(settings.log).toEqual({ level: LogLevel.Warning, format: "pretty" })
    expect(Either.getOrThrow(read({ VERBATIM_LOG_LEVEL: "DEBUG" })).log.level).toBe(LogLevel.Debug)
    expect(Either.getOrThrow(read({ VERBATIM_LOG_LEVEL: "none" })).log.level).toBe(LogLevel.None)
  })

  it.each([
    [
      { VERBATIM_LOG_LEVEL: "loud" },
      'VERBATIM_LOG_LEVEL: expected one of trace, debug, info, warning, error, fatal, none, got "loud"'
    ],
    [{ VERBATIM_LOG_FORMAT: "xml" }, "VERBATIM_LOG_FORMAT"]
  ])("refuse %j naming the variable", (env, message) => {
    expect(failure(env)).toContain(message)
  })

  const entry = {
    fiberId: undefined as never,
    logLevel: LogLevel.Info,
    message: ["GET /api/v2/credits 200 3.1ms"],
    cause: undefined as never,
    context: undefined as never,
    spans: List.empty(),
    annotations: HashMap.make(["http.status", 200], ["http.route", "/api/v2/credits"], ["account", "a1"]),
    date: new Date("2026-11-24T10:00:00.000Z")
  }

  it("json: one object per line with time, level, msg and the annotations as fields", () => {
    const line = jsonLineLogger.log({ ...entry, cause: Effect.runSync(Effect.cause(Effect.void)) })
    expect(line).not.toContain("\n")
    expect(JSON.parse(line)).toEqual({
      time: "2026-11-24T10:00:00.000Z",
      level: "info",
      msg: "GET /api/v2/credits 200 3.1ms",
      "http.status": 200,
      "http.route": "/api/v2/credits",
      account: "a1"
    })
  })

  it("pretty: one readable line, without the http.* fields the message already says", () => {
    const line = prettyLineLogger.log({ ...entry, cause: Effect.runSync(Effect.cause(Effect.void)) })
    expect(line).toBe("2026-11-24T10:00:00.000Z INFO  GET /api/v2/credits 200 3.1ms account=a1")
  })

  it("the process logger writes the entries at the configured level or above to stdout, one line each, a turn of the event loop in one write", async () => {
    const writes: Array<string> = []
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk))
      return true
    })
    try {
      Effect.runSync(
        Effect.all([Effect.logInfo("quiet"), Effect.logWarning("heard"), Effect.logError("also heard")]).pipe(
          Effect.provide(loggerFor({ level: LogLevel.Warning, format: "json" }))
        )
      )
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      spy.mockRestore()
    }
    expect(writes).toHaveLength(1)
    const text = writes.join("")
    expect(text.endsWith("}\n")).toBe(true)
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { msg: string; level: string })
    ).toEqual([
      expect.objectContaining({ msg: "heard", level: "warning" }),
      expect.objectContaining({ msg: "also heard", level: "error" })
    ])
  })

  it("the process logger's sink is its layer's: what is pending is written when the layer is released", () => {
    const writes: Array<string> = []
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk))
      return true
    })
    const exitListeners = process.listenerCount("exit")
    try {
      Effect.runSync(
        Effect.logWarning("one").pipe(
          Effect.provide(loggerFor({ level: LogLevel.Warning, format: "pretty" }))
        )
      )
      // Released with the run: written at once, and its exit handler gone with it.
      expect(writes).toHaveLength(1)
      expect(writes[0]).toMatch(/WARN {2}one\n$/)
      expect(process.listenerCount("exit")).toBe(exitListeners)
    } finally {
      spy.mockRestore()
    }
  })

  it("batched lines: nothing is written before the turn ends or a flush (as at exit), then all in one write", () => {
    const writes: Array<string> = []
    const sink = batchedLines((text) => writes.push(text))
    sink.line("one")
    sink.line("two")
    expect(writes).toEqual([])
    sink.flush()
    sink.flush()
    expect(writes).toEqual(["one\ntwo\n"])
  })
})
