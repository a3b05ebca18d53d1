/**
 * The stdio command's choices: without a key it refuses; on the embedded data folder (which only
 * the server may open) its tools call the running server's REST API at the server's PORT and HOST,
 * never opening the folder.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestServer, TestServerLive } from "../../server/test/server.js"
import { videos } from "../../server/test/support.js"
import { embeddedServerUrl } from "../src/embedded.js"
import { call, callFailing, restClient, root, stdioClientWith } from "./support.js"

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
  it.live(
    "refuses to start without a key",
    () =>
      Effect.gen(function* () {
        const keyless = yield* runMain({ VERBATIM_BASE_URL: "http://127.0.0.1:9" })
        expect(keyless.code).toBe(1)
        expect(keyless.stderr).toContain("VERBATIM_API_KEY is not set")
      }),
    180_000
  )

  it.scoped("answers each tool call internal_error naming the server when no server answers there", () =>
    Effect.gen(function* () {
      const nobody = "http://127.0.0.1:9"
      const refused = yield* callFailing(yield* restClient(nobody, "vbt_anything"), "get_credits")
      expect(refused).toMatchObject({ error: "internal_error", details: { base_url: nobody } })
      expect(refused.message).toContain(nobody)
    })
  )

  it("calls the running server only on the embedded data folder, at its PORT and HOST", () => {
    const embedded = { database: { url: Option.none() } }
    expect(embeddedServerUrl(embedded, { port: 3000, host: "127.0.0.1" })).toEqual(
      Option.some("http://127.0.0.1:3000")
    )
    expect(embeddedServerUrl(embedded, { port: 4100, host: "0.0.0.0" })).toEqual(
      Option.some("http://localhost:4100")
    )
    expect(embeddedServerUrl(embedded, { port: 4100, host: "::1" })).toEqual(Option.some("http://[::1]:4100"))
    expect(
      embeddedServerUrl(
        { database: { url: Option.some("postgres://db") } },
        { port: 3000, host: "127.0.0.1" }
      )
    ).toEqual(Option.none())
  })
})

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })(
  "pnpm mcp on the embedded data folder",
  (it) => {
    it.scoped(
      "calls the running server's REST API (PORT and HOST), never opening the folder",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ credits: 12 })
          const dataDir = mkdtempSync(join(tmpdir(), "verbatim-mcp-data-"))
          const mcp = yield* stdioClientWith({
            VERBATIM_API_KEY: key,
            VERBATIM_DATA_DIR: dataDir,
            PORT: new URL(server.baseUrl).port,
            HOST: "127.0.0.1"
          })
          expect((yield* call(mcp, "get_credits")).structured).toMatchObject({ credits: 12 })
          const transcribed = yield* call(mcp, "transcribe_video", { video: videos.manualOnly })
          expect(transcribed.structured).toMatchObject({ status: "completed", credits_used: 1 })
          // The charge is the server's: its REST API sees it.
          const credits = yield* server.get("/api/v2/credits", { key })
          expect((credits.json as { credits: number }).credits).toBe(11)
          // The folder was never opened: no database, no lock.
          expect(readdirSync(dataDir)).toEqual([])
          expect(existsSync(join(dataDir, "verbatim.pid"))).toBe(false)
        }),
      180_000
    )
  }
)
