/**
 * `pnpm start` as a real process, for tests of what an operator sees: its output, its exit, its
 * files. The server is bundled and run with node, as `pnpm start` runs it (without the speech
 * set-up); another script (`options.script`) runs from source with tsx's loader.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

export const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url))

export interface ServerProcess {
  readonly child: ChildProcess
  /** Everything written to stdout and stderr so far. */
  readonly output: () => string
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>
  /** Resolves with the output once `pattern` appears in it; rejects on exit or after `timeoutMs`. */
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<string>
}

let bundled = false

/**
 * `node scripts/bundle.mjs --if-changed server` (a build only when the sources changed), once per
 * test process, so that no start waits for a build; then the node arguments that `pnpm start` ends
 * with (`exec node <options> scripts/bundle.mjs --if-changed --run server`: the check, then the
 * bundle in the same process).
 */
export const bundledServer = (): ReadonlyArray<string> => {
  if (!bundled) {
    execFileSync(process.execPath, ["scripts/bundle.mjs", "--if-changed", "server"], {
      cwd: repositoryRoot,
      stdio: "inherit"
    })
    bundled = true
  }
  const scripts = JSON.parse(readFileSync(`${repositoryRoot}package.json`, "utf8")).scripts as {
    start: string
  }
  return scripts.start.slice(scripts.start.lastIndexOf("exec node ") + "exec node ".length).split(" ")
}

/** Starts the server with these variables on top of a quiet, offline environment. */
export const startServer = (
  env: Record<string, string>,
  options: { readonly detached?: boolean; readonly script?: string } = {}
): ServerProcess => {
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    VERBATIM_PLATFORM: "demo",
    VERBATIM_ASR: "none"
  }
  // As `pnpm start` runs it: the bundle, one node process (no parent relaying signals).
  const child = spawn(
    process.execPath,
    options.script === undefined
      ? bundledServer()
      : ["--import", "tsx", "--conditions=@verbatim/source", options.script],
    {
      cwd: repositoryRoot,
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached ?? false
    }
  )
  let text = ""
  const listeners = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    text += chunk.toString("utf8")
    for (const listener of listeners) listener()
  }
  child.stdout?.on("data", onData)
  child.stderr?.on("data", onData)
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => {
      resolve(code ?? signal ?? "unknown")
      for (const listener of listeners) listener()
    })
  )
  let ended = false
  void exited.then(() => {
    ended = true
  })
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(check)
        reject(new Error(`timed out waiting for ${pattern}; output:\n${text}`))
      }, timeoutMs)
      const check = () => {
        if (pattern.test(text)) {
          clearTimeout(timer)
          listeners.delete(check)
          resolve(text)
        } else if (ended) {
          clearTimeout(timer)
          listeners.delete(check)
          reject(new Error(`the server exited before ${pattern}; output:\n${text}`))
        }
      }
      listeners.add(check)
      check()
    })
  return { child, output: () => text, exited, waitFor }
}

/**
 * The address the server logged it listens on. Log lines are written a turn of the event loop at a
 * time, so wait for this line itself (`waitFor(/Listening on http/)`), not for text printed after it.
 */
export const listeningUrl = (output: string): string => {
  const match = /Listening on (http:\/\/[^\s"]+)/.exec(output)
  if (match?.[1] === undefined) throw new Error(`no address in:\n${output}`)
  return match[1]
}

/** The API key the seed printed, if it printed one. */
export const printedKey = (output: string): string | undefined =>
  /\b(vbt_[A-Za-z0-9_-]{20,})/.exec(output)?.[1]

/** A TCP port of 127.0.0.1 that nothing listens on right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
