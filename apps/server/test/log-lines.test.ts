/**
 * `VERBATIM_LOG_FORMAT=json` as a log collector reads it: every line the server writes to stdout,
 * from the address banner and the development seed's report (its key included) to the access log
 * and the shutdown, is one JSON object with `time`, `level` (a name `VERBATIM_LOG_LEVEL` takes) and
 * `msg`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { freePort, listeningUrl, startServer } from "./server-process.js"

const levels = ["trace", "debug", "info", "warning", "error", "fatal"]

describe("JSON logs", () => {
  it("every stdout line of a server's life is one JSON object: banner, seed and its key, access log, shutdown", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "verbatim-json-logs-"))
    const server = startServer({
      VERBATIM_DATA_DIR: dataDir,
      VERBATIM_LOG_FORMAT: "json",
      PORT: String(await freePort())
    })
    let stdout = ""
    server.child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    try {
      const url = listeningUrl(await server.waitFor(/Listening on http/, 120_000))
      await server.waitFor(/Seeded a development account/, 60_000)
      const seeded = () =>
        stdout
          .split("\n")
          .filter((line) => line.includes("Seeded a development account"))
          .map((line) => JSON.parse(line) as { key: string; account: string })
      await expect.poll(() => seeded().length, { timeout: 10_000 }).toBe(1)
      const [{ key, account } = { key: "", account: "" }] = seeded()
      const credits = await fetch(`${url}/api/v2/credits`, { headers: { authorization: `Bearer ${key}` } })
      expect(credits.status).toBe(200)
      expect(await credits.json()).toMatchObject({ credits: 1000 })
      expect((await fetch(`${url}/api/v2/credits`)).status).toBe(401)
      server.child.kill("SIGTERM")
      expect(await server.exited).toBe(0)
      const lines = stdout.split("\n").filter((line) => line !== "")
      const parsed = lines.map((line) => {
        const value: unknown = JSON.parse(line)
        expect(value, line).toMatchObject({ time: expect.any(String), msg: expect.any(String) })
        expect(levels, line).toContain((value as { level: string }).level)
        return value as { msg: string; level: string } & Record<string, unknown>
      })
      expect(stdout.endsWith("\n")).toBe(true)
      expect(parsed.find((line) => line.msg.startsWith("API: "))).toMatchObject({
        level: "info",
        api: `${url}/api/v2`,
        reference: `${url}/docs`,
        openapi: `${url}/api/v2/openapi.json`
      })
      expect(parsed.filter((line) => line.key !== undefined)).toEqual([
        expect.objectContaining({ level: "info", account, key })
      ])
      // The access log's lines are among them (two requests).
      expect(parsed.filter((line) => /GET \/api\/v2\/credits (200|401)/.test(line.msg))).toHaveLength(2)
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL")
      await server.exited
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
