/**
 * Stopping the server with SIGTERM leaves nothing behind: sent to its whole process group (as
 * `kill -TERM -<pgid>`, a process manager or Ctrl-C do), or twice in a row, the server still closes
 * its database and removes the data folder's `verbatim.pid`, so the next start needs no clean-up.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { freePort, startServer } from "./server-process.js"

const startInGroup = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-signals-"))
  const server = startServer(
    { VERBATIM_DATA_DIR: dataDir, PORT: String(await freePort()) },
    { detached: true }
  )
  await server.waitFor(/Seeded a development account/, 90_000)
  const pidFile = join(dataDir, "verbatim.pid")
  expect(readFileSync(pidFile, "utf8").trim()).toBe(String(server.child.pid))
  return { server, pidFile, group: server.child.pid as number }
}

describe("SIGTERM", () => {
  it("to the process group: the server stops cleanly and removes its pid file", async () => {
    const { server, pidFile, group } = await startInGroup()
    process.kill(-group, "SIGTERM")
    const code = await server.exited
    expect(code, server.output()).not.toBe("SIGKILL")
    expect(existsSync(pidFile), server.output()).toBe(false)
  }, 120_000)

  it("twice in a row: the second one does not cut the shutdown short", async () => {
    const { server, pidFile, group } = await startInGroup()
    process.kill(-group, "SIGTERM")
    // The repeats land during the shutdown the first one started (it takes about 200 ms).
    for (const delay of [10, 50, 100]) {
      setTimeout(() => {
        try {
          process.kill(-group, "SIGTERM")
        } catch {
          // Already gone.
        }
      }, delay)
    }
    await server.exited
    expect(existsSync(pidFile), server.output()).toBe(false)
  }, 120_000)
})
