/**
 * `pnpm admin doctor` runs in the server's own bundle (`server.mjs doctor`), which reads the server's
 * settings exactly as a start would (the admin command's CommonJS bundle carries only the database's),
 * with this process's environment and output; its exit code is the command's.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"

/** A check failed: the command exits 1 (the report already says which). */
export class DoctorFailed {
  readonly _tag = "DoctorFailed"
}

const here = (): string =>
  typeof __dirname === "string" ? __dirname : dirname(fileURLToPath(import.meta.url))

/** The server's bundle beside this one (dist), or the checkout's dist from the sources. */
const serverBundle = (): string => {
  const beside = join(here(), "server.mjs")
  return existsSync(beside) ? beside : join(here(), "..", "..", "dist", "server.mjs")
}

export const doctorInServer = (json: boolean): Effect.Effect<void, DoctorFailed> =>
  Effect.flatMap(
    Effect.sync(
      () =>
        spawnSync(process.execPath, [serverBundle(), "doctor", ...(json ? ["--json"] : [])], {
          stdio: "inherit"
        }).status
    ),
    (status) => (status === 0 ? Effect.void : Effect.fail(new DoctorFailed()))
  )
