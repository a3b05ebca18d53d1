/**
 * @verbatim/processes: what the engines that run programs (pocketsphinx and ffmpeg, Apertium) need
 * so that a crash leaves nothing behind.
 *
 * - `bound(wrapper, command, args)`: the argument vector of a child that dies with the process that
 *   started it, even when that process is SIGKILLed. On Linux the child runs under util-linux's
 *   `setpriv --pdeathsig TERM` (the kernel signals it when its parent dies) as a small `sh` that
 *   runs the program in a process group of its own and, on that signal, kills the group (the
 *   program and any process it started: Apertium is a shell pipeline) and waits for the program.
 *   The platform's command executor stops a child with SIGTERM to its group, which the same `sh`
 *   answers the same way. The program's exit code is passed on, and a program ended by a signal
 *   ends the `sh` by the same signal.
 *   Without `setpriv` (not Linux, or util-linux missing) the program runs as it is.
 * - `ownedTempPrefix(name)`: the prefix of a temporary folder that names its owner (this process's
 *   id and the host), so that `sweepDeadTempFolders` at a later start removes the folders of
 *   processes that are gone (a SIGKILL skips every finalizer) and never those of a live one.
 */
import { accessSync, constants, readdirSync, rmSync } from "node:fs"
import { hostname } from "node:os"
import { delimiter, join } from "node:path"
import { Effect } from "effect"

/**
 * The program `sh` runs: the child in a process group of its own (`setsid`, which execs it with
 * the same pid, `$!`), awaited. On SIGTERM (the parent's death, or the executor stopping it) the
 * child's group is killed (and the child itself, in case it has not yet made its group), the child
 * awaited, and `sh` ends by SIGTERM. A child that ends by a signal ends `sh` by the same signal;
 * otherwise `sh` exits with the child's status.
 */
const script = [
  "stopped=",
  "trap 'stopped=1; kill -KILL -$! 2>/dev/null; kill -KILL $! 2>/dev/null' TERM",
  'setsid "$@" &',
  "wait $!",
  "status=$?",
  'if [ -n "$stopped" ]; then wait $!; trap - TERM; kill -TERM $$; fi',
  'if [ "$status" -gt 128 ]; then trap - TERM; kill -s "$(kill -l "$status")" $$; fi',
  'exit "$status"'
].join("\n")

/** Where `setpriv` is on the PATH (Linux with util-linux), or undefined. */
export const findSetpriv = (path: string = process.env.PATH ?? ""): string | undefined => {
  if (process.platform !== "linux") return undefined
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue
    const candidate = join(dir, "setpriv")
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this folder.
    }
  }
  return undefined
}

/** `findSetpriv` as an effect, for an engine to look up once when it is made. */
export const setprivWrapper: Effect.Effect<string | undefined> = Effect.sync(() => findSetpriv())

/**
 * The command and arguments that run `command` with `args` as a child that dies (with everything
 * it started) when the process that starts it dies; as they are when `setpriv` is undefined.
 */
export const bound = (
  setpriv: string | undefined,
  command: string,
  args: ReadonlyArray<string>
): readonly [string, ...Array<string>] =>
  setpriv === undefined
    ? [command, ...args]
    : [setpriv, "--pdeathsig", "TERM", "--", "sh", "-c", script, "verbatim-child", command, ...args]

/** The host part of owned names: the host name with only letters, digits, dots and dashes. */
const host = (): string => hostname().replace(/[^A-Za-z0-9.-]/g, "_")

/**
 * The prefix of a temporary folder of `name` (a short word: `asr`, `apertium`) owned by this
 * process: `verbatim-<name>-<pid>.<host>-` (mkdtemp adds six characters).
 */
export const ownedTempPrefix = (name: string, pid: number = process.pid): string =>
  `verbatim-${name}-${pid}.${host()}-`

const owned = /^verbatim-([a-z]+)-(\d+)\.(.+)-[A-Za-z0-9]{6}$/

/** Whether a process with this id runs on this machine (one owned by another user counts). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Removes the temporary folders of `names` in `dirs` whose owner, a process of this host, is no
 * longer running (a live owner's folders, another host's and other names are left alone); the
 * paths removed. A folder that cannot be read or removed is skipped.
 */
export const sweepDeadTempFolders = (
  dirs: ReadonlyArray<string>,
  names: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.sync(() => {
    const here = host()
    const removed: Array<string> = []
    for (const dir of new Set(dirs)) {
      let entries: Array<string>
      try {
        entries = readdirSync(dir)
      } catch {
        continue
      }
      for (const entry of entries) {
        const match = owned.exec(entry)
        if (match === null || !names.includes(match[1] ?? "") || match[3] !== here) continue
        const pid = Number(match[2])
        if (pid === process.pid || alive(pid)) continue
        try {
          rmSync(join(dir, entry), { recursive: true, force: true })
          removed.push(join(dir, entry))
        } catch {
          // Left for the next start.
        }
      }
    }
    return removed
  })
