/**
 * A start with a setting that cannot work stops at once, with one message naming the variable and
 * what it expects, and prints no API key: the real `pnpm start` process, as an operator runs it.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { bundledServer, freePort, printedKey, repositoryRoot, startServer } from "./server-process.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

/**
 * What the operator reads: off a terminal the process writes JSON lines (a fatal start too, one
 * object per problem), so each `fatal` line is read back as its message.
 */
const operatorText = (output: string): string =>
  output
    .split("\n")
    .map((line) => {
      if (!line.startsWith("{")) return line
      const parsed = JSON.parse(line) as { level?: string; msg?: string }
      return parsed.level === "fatal" ? (parsed.msg ?? "") : line
    })
    .join("\n")

const failedStart = async (env: Record<string, string>) => {
  const server = startServer({
    VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-start-")),
    PORT: String(await freePort()),
    ...env
  })
  const code = await server.exited
  return { code, output: operatorText(server.output()), raw: server.output() }
}

describe("a start with a setting that cannot work", () => {
  it.each([
    [
      "DATABASE_URL=garbage",
      { DATABASE_URL: "garbage" },
      "Verbatim cannot run: invalid setting: DATABASE_URL must be a PostgreSQL connection string such as postgres://user:password@host:5432/database"
    ],
    [
      "an http:// DATABASE_URL",
      { DATABASE_URL: "http://db.example:5432/verbatim" },
      "Verbatim cannot run: invalid setting: DATABASE_URL must start with postgres:// or postgresql:// (not http://)"
    ],
    [
      "HOST=bad.invalid",
      { HOST: "bad.invalid" },
      'Verbatim cannot run: HOST: "bad.invalid" does not resolve to an address (ENOTFOUND); HOST expects an address of this machine such as 127.0.0.1, or 0.0.0.0 to listen on every interface'
    ]
  ])(
    "%s stops with a message naming the variable and what it expects, and prints no key",
    async (_, env, message) => {
      const { code, output } = await failedStart(env)
      expect(code, output).not.toBe(0)
      expect(output).toContain(message)
      expect(printedKey(output), output).toBeUndefined()
      expect(output).not.toMatch(/\n\s+at /)
    },
    90_000
  )

  it.runIf(databaseUrl !== "")(
    "a PostgreSQL address nothing listens on names DATABASE_URL and where it pointed",
    async () => {
      const port = await freePort()
      const { code, output } = await failedStart({ DATABASE_URL: `postgres://root@127.0.0.1:${port}/test` })
      expect(code, output).not.toBe(0)
      expect(output).toContain(
        `Verbatim cannot run: DATABASE_URL: cannot connect to PostgreSQL at 127.0.0.1:${port}/test: connect ECONNREFUSED 127.0.0.1:${port} (nothing listens there`
      )
    },
    90_000
  )

  it("a VERBATIM_DATA_DIR or VERBATIM_BLOB_DIR that cannot be a folder stops the start naming the variable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verbatim-unusable-"))
    const file = join(dir, "a-file")
    writeFileSync(file, "not a folder")
    const data = await failedStart({ VERBATIM_DATA_DIR: join(file, "data") })
    expect(data.code, data.output).not.toBe(0)
    expect(data.output).toContain(
      `Verbatim cannot run: VERBATIM_DATA_DIR: the data folder ${join(file, "data")} cannot be used:`
    )
    expect(data.output).not.toMatch(/\n\s+at /)
    const blobs = await failedStart({ VERBATIM_BLOB_DIR: join(file, "blobs") })
    expect(blobs.code, blobs.output).not.toBe(0)
    expect(blobs.output).toContain(
      `VERBATIM_BLOB_DIR: the upload folder ${join(file, "blobs")} cannot be used:`
    )
    expect(printedKey(blobs.output), blobs.output).toBeUndefined()
  }, 120_000)

  it.skipIf(process.getuid?.() !== 0 || spawnSync("unshare", ["--version"]).status !== 0)(
    "a read-only upload folder stops the start naming VERBATIM_BLOB_DIR and EROFS, not a missing file",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "verbatim-read-only-"))
      // The folder exists (so creating it is not what fails): its signing key cannot be written.
      mkdirSync(join(folder, "blobs"))
      bundledServer()
      const port = await freePort()
      // In a mount namespace of its own: the folder mounted read-only over itself.
      const script = [
        "set -e",
        'mount --bind "$1" "$1"',
        'mount -o remount,bind,ro "$1"',
        'exec "$2" "$3"'
      ].join("\n")
      const result = spawnSync(
        "unshare",
        [
          "-m",
          "--propagation",
          "private",
          "sh",
          "-c",
          script,
          "sh",
          folder,
          process.execPath,
          "apps/server/dist/server.mjs"
        ],
        {
          cwd: repositoryRoot,
          encoding: "utf8",
          timeout: 90_000,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: folder,
            PORT: String(port),
            VERBATIM_PLATFORM: "demo",
            VERBATIM_ASR: "none",
            VERBATIM_LOG_FORMAT: "pretty",
            VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-start-")),
            VERBATIM_BLOB_DIR: join(folder, "blobs")
          }
        }
      )
      const output = result.stdout + result.stderr
      expect(result.status, output).not.toBe(0)
      expect(output).toContain(
        `VERBATIM_BLOB_DIR: the upload folder ${join(folder, "blobs")} cannot be used:`
      )
      expect(output).toContain("EROFS")
      expect(output).not.toContain("ENOENT")
    },
    120_000
  )

  it("misspelt names and refused values stop the start, one JSON line each, naming the closest setting", async () => {
    const { code, output, raw } = await failedStart({
      VERBATIM_PLATFROM: "demo",
      VERBATIM_WORKERS: "3",
      VERBATIM_LOG_LEVEL: "verbose"
    })
    expect(code, raw).not.toBe(0)
    const fatal = raw
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { level: string; msg: string })
    expect(fatal.map((line) => [line.level, line.msg])).toEqual([
      [
        "fatal",
        "Verbatim cannot run: VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?"
      ],
      [
        "fatal",
        "Verbatim cannot run: VERBATIM_WORKERS is not a setting of Verbatim; did you mean VERBATIM_WORKER?"
      ],
      [
        "fatal",
        'Verbatim cannot run: VERBATIM_LOG_LEVEL: expected one of trace, debug, info, warning, error, fatal, none, got "verbose"'
      ]
    ])
    expect(printedKey(output), output).toBeUndefined()
  }, 90_000)

  it("with VERBATIM_UNKNOWN_SETTINGS=warn a misspelt name is a warning and the server starts", async () => {
    const server = startServer({
      VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-start-")),
      PORT: String(await freePort()),
      VERBATIM_PLATFROM: "demo",
      VERBATIM_UNKNOWN_SETTINGS: "warn",
      VERBATIM_SEED: "false"
    })
    try {
      const output = await server.waitFor(/Listening on http/, 90_000)
      const warning = output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: string; msg: string })
        .find((line) => line.msg.includes("VERBATIM_PLATFROM"))
      expect(warning).toEqual(
        expect.objectContaining({
          level: "warning",
          msg: "VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?"
        })
      )
    } finally {
      server.child.kill("SIGTERM")
      await server.exited
    }
  }, 120_000)

  it("a PORT in use stops the start before the database starts, naming PORT", async () => {
    const busy = createServer()
    const port = await new Promise<number>((resolve) =>
      busy.listen(0, "127.0.0.1", () => resolve((busy.address() as AddressInfo).port))
    )
    try {
      const dataDir = mkdtempSync(join(tmpdir(), "verbatim-start-"))
      const server = startServer({ VERBATIM_DATA_DIR: dataDir, PORT: String(port) })
      const code = await server.exited
      expect(code, server.output()).not.toBe(0)
      expect(operatorText(server.output())).toContain(
        `Verbatim cannot run: PORT: ${port} is already in use by another process (EADDRINUSE); stop it, or set PORT to a free port`
      )
      // The embedded database was never opened: its folder is as the test made it, empty.
      expect(readdirSync(dataDir)).toEqual([])
    } finally {
      busy.close()
    }
  }, 90_000)
})
