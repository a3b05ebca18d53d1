/** The stdio command's refusals: no key, and the embedded data folder (which the server holds). */
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { refusal } from "../src/refusal.js"
import { root } from "./support.js"

/** Runs `apps/mcp/src/main.ts` with stdin closed; its exit code and stderr. */
const runMain = (env: Record<string, string>) =>
  Effect.async<{ readonly code: number | null; readonly stderr: string }>((resume) => {
    const { DATABASE_URL: _db, VERBATIM_BASE_URL: _url, VERBATIM_API_KEY: _key, ...inherited } = process.env
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=@verbatim/source", join(root, "apps/mcp/src/main.ts")],
      { cwd: root, env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stderr = ""
    let stdout = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.on("exit", (code) => {
      expect(stdout, "nothing but the protocol on stdout").toBe("")
      resume(Effect.succeed({ code, stderr }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe("pnpm mcp", () => {
  it.effect(
    "refuses the embedded data folder, naming VERBATIM_BASE_URL, and a missing key",
    () =>
      Effect.gen(function* () {
        const dataDir = mkdtempSync(join(tmpdir(), "verbatim-mcp-data-"))
        const [embedded, keyless] = yield* Effect.all(
          [
            runMain({ VERBATIM_API_KEY: "vbt_anything", VERBATIM_DATA_DIR: dataDir }),
            runMain({ VERBATIM_BASE_URL: "http://127.0.0.1:9" })
          ],
          { concurrency: 2 }
        )
        expect(embedded.code).toBe(1)
        expect(embedded.stderr).toContain(`the embedded data folder ${dataDir} admits one process`)
        expect(embedded.stderr).toContain("set VERBATIM_BASE_URL to the running server")
        expect(keyless.code).toBe(1)
        expect(keyless.stderr).toContain("VERBATIM_API_KEY is not set")
      }),
    180_000
  )

  it("refuses only without DATABASE_URL", () => {
    const dataDir = "./.data"
    expect(Option.isSome(refusal({ database: { url: Option.none(), dataDir } }))).toBe(true)
    expect(refusal({ database: { url: Option.some("postgres://db"), dataDir } })).toEqual(Option.none())
  })
})
