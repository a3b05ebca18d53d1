/**
 * The embedded database lives in one folder that only one process may open at a time (PGlite is
 * in-process). While a server or an admin command uses the folder it holds `verbatim.pid` there;
 * a second process refuses to start, naming the holder. A file left by a process that no longer
 * runs is taken over. The file goes when the scope closes, and also when the process exits without
 * closing it (`process.exit` after a repeated signal): only SIGKILL can leave it behind.
 */
import { readFileSync, rmSync } from "node:fs"
import { FileSystem, Path } from "@effect/platform"
import { Data, Effect, Option } from "effect"

export class DataFolderInUse extends Data.TaggedError("DataFolderInUse")<{
  readonly folder: string
  readonly pid: number
}> {
  override get message(): string {
    return `the data folder ${this.folder} is in use by process ${this.pid} (a running server or admin command); stop it first, or delete ${this.folder}/verbatim.pid if no such process runs`
  }
}

/** VERBATIM_DATA_DIR cannot be created or written (a file in the way, no permission, read-only). */
export class DataFolderUnusable extends Data.TaggedError("DataFolderUnusable")<{
  readonly folder: string
  readonly reason: string
}> {
  override get message(): string {
    return `VERBATIM_DATA_DIR: the data folder ${this.folder} cannot be used: ${this.reason}; VERBATIM_DATA_DIR expects a folder this process can create and write`
  }
}

export const lockFileName = "verbatim.pid"

const running = (pid: number): boolean => {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

const holder = (text: string): Option.Option<number> => {
  const pid = Number.parseInt(text.trim(), 10)
  return Number.isInteger(pid) && pid > 0 ? Option.some(pid) : Option.none()
}

/** Holds the data folder for the scope: fails with `DataFolderInUse` when another live process holds it. */
export const holdDataFolder = (folder: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(folder, lockFileName)
    const unusable = (error: { readonly message: string }) =>
      new DataFolderUnusable({ folder, reason: error.message })
    yield* fs.makeDirectory(folder, { recursive: true }).pipe(Effect.mapError(unusable))
    const existing = yield* fs.readFileString(file).pipe(Effect.option)
    const pid = Option.flatMap(existing, holder)
    if (Option.isSome(pid) && running(pid.value)) {
      return yield* new DataFolderInUse({ folder, pid: pid.value })
    }
    const onExit = () => removeIfOurs(file)
    yield* Effect.acquireRelease(
      Effect.zipRight(
        fs.writeFileString(file, `${process.pid}\n`).pipe(Effect.mapError(unusable)),
        Effect.sync(() => process.on("exit", onExit))
      ),
      () =>
        Effect.zipRight(
          Effect.sync(() => process.off("exit", onExit)),
          fs.remove(file).pipe(Effect.ignore)
        )
    )
  })

/** Removes the pid file if this process wrote it (synchronously: it runs on `exit`). */
const removeIfOurs = (file: string): void => {
  try {
    if (Number.parseInt(readFileSync(file, "utf8").trim(), 10) === process.pid) rmSync(file, { force: true })
  } catch {
    // Already gone.
  }
}
