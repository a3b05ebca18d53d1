/**
 * A crash leaves nothing: a process SIGKILLed while pocketsphinx recognises (no finalizer runs)
 * leaves no child process (the recogniser dies with it: `@verbatim/processes`' `bound`), and its
 * working directory, named with its process id, is removed by the next start's sweep.
 */
import { spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { sweepDeadTempFolders } from "@verbatim/processes"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { clip, ffmpeg, listDir, processesMentioning, scratch, whenInstalled } from "./support.js"

const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url))
const fixture = fileURLToPath(new URL("./fixtures/recognise.ts", import.meta.url))

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes; whether it held. */
const until = async (check: () => boolean, timeoutMs: number): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return check()
}

whenInstalled(() => {
  const work = scratch("crash")
  const long = join(work.dir, "long.wav")
  const tmp = join(work.dir, "tmp")
  beforeAll(() => {
    // 60 s of speech: the recogniser is still running when the process is killed.
    const welcome = clip("welcome")
    const parts = Array.from({ length: 12 }, () => ["-i", welcome.file]).flat()
    ffmpeg(...parts, "-filter_complex", "concat=n=12:v=0:a=1", "-c:a", "pcm_s16le", long)
  })
  afterAll(() => work.remove())

  describe("a process SIGKILLed mid-recognition", () => {
    it("leaves no child process, and the next start's sweep removes its working directory", async () => {
      mkdirSync(tmp, { recursive: true })
      const crashing = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=@verbatim/source", fixture, long],
        {
          cwd: repositoryRoot,
          env: { ...process.env, VERBATIM_POCKETSPHINX_TMPDIR: tmp, VERBATIM_LOG_LEVEL: "none" },
          stdio: ["ignore", "pipe", "pipe"]
        }
      )
      const exited = new Promise((resolve) => crashing.on("exit", resolve))
      try {
        const recognising = () =>
          processesMentioning(tmp).some((line) => line.includes("pocketsphinx_continuous"))
        expect(await until(recognising, 60_000), "the recogniser to run").toBe(true)
        crashing.kill("SIGKILL")
        await exited
        expect(
          await until(() => processesMentioning(tmp).length === 0, 10_000),
          processesMentioning(tmp).join("\n")
        ).toBe(true)
        // The folder outlived its owner (a SIGKILL runs no finalizer) and names it.
        const left = listDir(tmp)
        expect(left).toEqual([expect.stringMatching(new RegExp(`^verbatim-asr-${crashing.pid}\\.`))])
        const removed = await Effect.runPromise(sweepDeadTempFolders([tmp], ["asr", "apertium"]))
        expect(removed).toEqual([join(tmp, left[0] ?? "")])
        expect(listDir(tmp)).toEqual([])
      } finally {
        crashing.kill("SIGKILL")
        for (const line of processesMentioning(tmp)) process.kill(Number(line.split(":")[0]), "SIGKILL")
      }
    }, 120_000)
  })
})
