/**
 * A crash leaves no yt-dlp behind: a process downloading audio through yt-dlp (a stand-in binary
 * that starts a child of its own and sleeps, as yt-dlp starts ffmpeg) is SIGKILLed, and neither
 * the stand-in nor its child survives it (`@verbatim/processes`' bound wrapper).
 */
import { spawn } from "node:child_process"
import { randomInt } from "node:crypto"
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { findSetpriv } from "@verbatim/processes"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "../../..")

/** Live processes whose command line contains `text`. */
const running = (text: string): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
        const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0]
        return cmdline.includes(text) && state !== "Z" ? [Number(pid)] : []
      } catch {
        return []
      }
    })

/** Polls `check` every 50 ms until it holds or `timeoutMs` passes; whether it held. */
const until = async (check: () => boolean, timeoutMs = 20_000): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return check()
}

describe.runIf(findSetpriv() !== undefined)("yt-dlp bound to its parent", () => {
  it("a SIGKILLed process downloading through yt-dlp leaves no yt-dlp (nor its child) running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verbatim-ytdlp-bound-"))
    const marker = `${400 + randomInt(1000)}.${randomInt(1_000_000)}`
    const binary = join(dir, "yt-dlp")
    // The stand-in: a child of its own (as yt-dlp runs ffmpeg), then a long wait.
    writeFileSync(binary, `#!/bin/sh\nsleep ${marker} &\nexec sleep ${marker}\n`)
    chmodSync(binary, 0o755)
    const driver = join(dir, "driver.ts")
    writeFileSync(
      driver,
      `import { Duration, Effect, Stream } from "effect"
       import { ytDlpAudio } from ${JSON.stringify(join(root, "packages/youtube/src/audio.ts"))}
       Effect.runFork(Stream.runDrain(ytDlpAudio(${JSON.stringify(binary)}, "GJLlxj_dtq8", null, Duration.minutes(10))))
       setInterval(() => {}, 60_000)`
    )
    const parent = spawn(process.execPath, ["--import", "tsx", "--conditions=@verbatim/source", driver], {
      cwd: join(root, "packages/youtube"),
      stdio: ["ignore", "ignore", "inherit"]
    })
    try {
      // Both sleeps (the stand-in, exec'd into one, and its child) run before the parent dies.
      expect(await until(() => running(`sleep ${marker}`).length === 2, 60_000)).toBe(true)
      parent.kill("SIGKILL")
      expect(await until(() => running(`sleep ${marker}`).length === 0)).toBe(true)
    } finally {
      parent.kill("SIGKILL")
      for (const pid of running(`sleep ${marker}`)) process.kill(pid, "SIGKILL")
    }
  }, 90_000)
})
