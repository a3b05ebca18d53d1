/**
 * A start with a setting that cannot work stops at once, with one message naming the variable and
 * what it expects, and prints no API key: the real `pnpm start` process, as an operator runs it.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { freePort, printedKey, startServer } from "./server-process.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

const failedStart = async (env: Record<string, string>) => {
  const server = startServer({
    VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-start-")),
    PORT: String(await freePort()),
    ...env
  })
  const code = await server.exited
  return { code, output: server.output() }
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
      expect(server.output()).toContain(
        `Verbatim cannot run: PORT: ${port} is already in use by another process (EADDRINUSE); stop it, or set PORT to a free port`
      )
      // The embedded database was never opened: its folder is as the test made it, empty.
      expect(readdirSync(dataDir)).toEqual([])
    } finally {
      busy.close()
    }
  }, 90_000)
})
