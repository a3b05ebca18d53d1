/**
 * A start with a setting that cannot work stops at once, with one message naming the variable and
 * what it expects, and prints no API key: the real `pnpm start` process, as an operator runs it.
 */
import { mkdtempSync } from "node:fs"
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
})
