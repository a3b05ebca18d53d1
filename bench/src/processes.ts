/**
 * The processes of the benches: a server started as a child process (stopped when the scope
 * closes), and a run of the load generator (`load.ts`) in a process of its own.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createWriteStream } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import type { LoadResult, LoadSpec } from "./load.js"
import { freeLocalPort } from "./start-command.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const benchDir = join(root, "bench")

const freePort = Effect.promise(freeLocalPort)

/** The median of these values (the upper one of an even count), 0 of none. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/**
 * The p50 in ms (to a microsecond) of `run`, called `requests` times one at a time, each the next
 * `intervalMs` after the last one's start (0: back to back), after `warmUp` calls left out.
 */
export const pacedP50 = async (
  run: () => Promise<unknown>,
  requests: number,
  intervalMs: number,
  warmUp: number
): Promise<number> => {
  const times: Array<number> = []
  for (let i = 0; i < requests + warmUp; i++) {
    const started = process.hrtime.bigint()
    await run()
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (i >= warmUp) times.push(ms)
    if (intervalMs > ms) await new Promise((resolve) => setTimeout(resolve, intervalMs - ms))
  }
  return Math.round(median(times) * 1000) / 1000
}

export interface Started {
  readonly child: ChildProcess
  readonly base: string
}

/** A server process, stopped (SIGTERM) when the run ends; ready when its `/api/v2/ping` answers. */
export const startProcess = (
  name: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  logFile: string
) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const port = yield* freePort
      const child = spawn(process.execPath, args, {
        cwd: root,
        env: { ...process.env, ...env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const log = createWriteStream(logFile)
      child.stdout?.pipe(log)
      child.stderr?.pipe(log)
      const base = `http://127.0.0.1:${port}/api/v2`
      const deadline = Date.now() + 180_000
      while (Date.now() < deadline) {
        const up = yield* Effect.promise(() =>
          fetch(`${base}/ping`).then(
            () => true,
            () => false
          )
        )
        if (up) return { child, base } satisfies Started
        if (child.exitCode !== null) break
        yield* Effect.sleep("100 millis")
      }
      return yield* Effect.dieMessage(`${name} did not start: see ${logFile}`)
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )

/** One run of the load generator: what it measured. */
export const load = (spec: LoadSpec) =>
  Effect.async<LoadResult, Error>((resume) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(benchDir, "src", "load.ts"), JSON.stringify(spec)],
      {
        cwd: benchDir,
        stdio: ["ignore", "pipe", "inherit"]
      }
    )
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += String(chunk)
    })
    child.on("close", (code) =>
      code === 0
        ? resume(Effect.succeed(JSON.parse(out) as LoadResult))
        : resume(Effect.fail(new Error(`the load generator exited with ${code}`)))
    )
  })
