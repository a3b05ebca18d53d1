/**
 * Commands run from tests without blocking the test worker. `spawnSync` and `execFileSync` stop the
 * worker's event loop for as long as the command runs: a pack or a build takes a minute on a busy
 * machine, and a worker that does not read vitest's answers for 60 s fails the whole run
 * ("Timeout calling onTaskUpdate") though every test passed. So anything longer than a moment runs here.
 */
import { execFile } from "node:child_process"

export interface Ran {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

export interface CommandOptions {
  readonly cwd?: string | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
}

/** Runs a command to its end; its exit status (1 when it could not start or was killed) and output. */
export const spawnCommand = (
  command: string,
  args: ReadonlyArray<string>,
  options: CommandOptions = {}
): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.env === undefined ? {} : { env: options.env })
      },
      (error, stdout, stderr) =>
        resolve({
          status: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          stdout,
          stderr
        })
    )
  })

/** Runs a command that must succeed; its standard output, or a rejection with both outputs. */
export const runCommand = async (
  command: string,
  args: ReadonlyArray<string>,
  options: CommandOptions = {}
): Promise<string> => {
  const result = await spawnCommand(command, args, options)
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`
    )
  }
  return result.stdout
}
