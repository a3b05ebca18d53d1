/**
 * Nothing left behind by a crash: a `bound` child, and the processes it started, die when the
 * process that started it is SIGKILLed (the same tree started without `bound` survives: the test
 * can tell); output and exit status pass through; the temporary folders of dead owners are swept,
 * never a live owner's, another host's or another engine's.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomInt } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { bound, findSetpriv, ownedTempPrefix, sweepDeadTempFolders } from "../src/index.js"

const setpriv = findSetpriv()

/** Live (not zombie) processes whose command line starts with `text`. */
const processesStarting = (text: string): ReadonlyArray<string> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
        return cmdline.startsWith(text) ? [`${pid}: ${cmdline}`] : []
      } catch {
        return []
      }
    })

/** `spawnSync` of a command and its arguments as `bound` gives them. */
const runSync = ([command, ...args]: ReadonlyArray<string>) =>
  spawnSync(command ?? "", args, { encoding: "utf8" })

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes; whether it held. */
const until = async (check: () => boolean, timeoutMs = 10_000): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return check()
}

/**
 * A node process that starts `argv` as the platform's command executor does (a process group of
 * its own) and then waits; resolves once the child runs.
 */
const parentOf = async (argv: ReadonlyArray<string>): Promise<ChildProcess> => {
  const parent = spawn(
    process.execPath,
    [
      "-e",
      `const [command, ...args] = JSON.parse(process.argv[1])
       const child = require("node:child_process").spawn(command, args, { detached: true, stdio: "ignore" })
       child.on("spawn", () => console.log("started"))
       setInterval(() => {}, 60000)`,
      JSON.stringify(argv)
    ],
    { stdio: ["ignore", "pipe", "inherit"] }
  )
  await new Promise<void>((resolve) => parent.stdout?.once("data", () => resolve()))
  return parent
}

/** A tree of processes: a shell that started two `sleep`s, each recognisable by a unique duration. */
const tree = () => {
  const marker = `${300 + randomInt(1000)}.${randomInt(1_000_000)}`
  return { marker, args: ["-c", `sleep ${marker} & sleep ${marker}; wait`] }
}

describe.runIf(process.platform === "linux")("bound children", () => {
  it("setpriv is found on this Linux (util-linux)", () => {
    expect(setpriv).toMatch(/\/setpriv$/)
  })

  it("a bound child and the processes it started die when their parent is SIGKILLed; an unbound tree survives", async () => {
    const boundTree = tree()
    const loose = tree()
    const parents = [
      await parentOf(bound(setpriv, "sh", boundTree.args)),
      await parentOf(bound(undefined, "sh", loose.args))
    ]
    try {
      expect(await until(() => processesStarting(`sleep ${boundTree.marker}`).length === 2)).toBe(true)
      expect(await until(() => processesStarting(`sleep ${loose.marker}`).length === 2)).toBe(true)
      for (const parent of parents) parent.kill("SIGKILL")
      expect(
        await until(() => processesStarting(`sleep ${boundTree.marker}`).length === 0),
        processesStarting(`sleep ${boundTree.marker}`).join("\n")
      ).toBe(true)
      // The control: the same tree, started without `bound`, is orphaned.
      expect(processesStarting(`sleep ${loose.marker}`)).toHaveLength(2)
    } finally {
      for (const parent of parents) parent.kill("SIGKILL")
      for (const line of [...processesStarting("sh -c sleep"), ...processesStarting("sleep")]) {
        if (!line.includes(loose.marker) && !line.includes(boundTree.marker)) continue
        try {
          process.kill(Number(line.split(":")[0]), "SIGKILL")
        } catch {
          // Already gone.
        }
      }
    }
  }, 30_000)

  it("passes output and exit status through, and a death by a signal as that signal", () => {
    const ran = runSync(bound(setpriv, "sh", ["-c", "echo out; echo err >&2; exit 3"]))
    expect([ran.stdout, ran.stderr, ran.status]).toEqual(["out\n", "err\n", 3])
    const killed = runSync(bound(setpriv, "sh", ["-c", "kill -KILL $$"]))
    expect([killed.status, killed.signal]).toEqual([null, "SIGKILL"])
    expect(runSync(bound(setpriv, "true", [])).status).toBe(0)
  })
})

describe("temporary folders of dead owners", () => {
  it.effect("are swept at the next start; a live owner's, another host's and another engine's are left", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "verbatim-sweep-test-"))
      try {
        // A process id that ran and is gone, and one that runs.
        const dead = spawnSync("true").pid ?? 0
        const live = spawn("sleep", ["30"], { stdio: "ignore" })
        try {
          const folder = (prefix: string) => {
            const path = mkdtempSync(join(dir, prefix))
            mkdirSync(join(path, "inside"))
            return path.slice(dir.length + 1)
          }
          const deadAsr = folder(ownedTempPrefix("asr", dead))
          const deadApertium = folder(ownedTempPrefix("apertium", dead))
          const liveAsr = folder(ownedTempPrefix("asr", live.pid ?? 0))
          const mine = folder(ownedTempPrefix("asr"))
          const elsewhere = folder(`verbatim-asr-${dead}.another-host-`)
          const otherEngine = folder(ownedTempPrefix("youtube", dead))
          const unowned = folder("verbatim-asr-")
          const removed = yield* sweepDeadTempFolders([dir, dir, join(dir, "missing")], ["asr", "apertium"])
          expect([...removed].sort()).toEqual([join(dir, deadApertium), join(dir, deadAsr)].sort())
          expect(readdirSync(dir).sort()).toEqual([liveAsr, mine, elsewhere, otherEngine, unowned].sort())
        } finally {
          live.kill("SIGKILL")
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  )
})
