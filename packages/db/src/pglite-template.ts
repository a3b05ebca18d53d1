/**
 * An initialised, empty PGlite data directory, kept as a tarball in the OS temp folder and shared by
 * every process using the same PGlite build, so that a fresh in-memory database (for a test suite)
 * loads in under a second instead of running initdb (several seconds) each time.
 */

import { createHash, randomBytes } from "node:crypto"
import { readFile, rename, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlError } from "@effect/sql/SqlError"
import { PGlite } from "@electric-sql/pglite"
import { Effect } from "effect"

/** The template's file: one per PGlite build (pnpm puts the version in the resolved path). */
const templatePath = (): string => {
  const build = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const key = createHash("sha256").update(build).digest("hex").slice(0, 16)
  return join(tmpdir(), `verbatim-pglite-template-${key}.tar`)
}

const readTemplate = async (path: string): Promise<Blob | undefined> => {
  try {
    return new Blob([await readFile(path)])
  } catch {
    return undefined
  }
}

const createTemplate = async (path: string): Promise<Blob> => {
  const db = await PGlite.create()
  try {
    const dump = await db.dumpDataDir("none")
    // Write then rename, so that concurrent processes never read a partial file.
    const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()))
    await rename(partial, path).catch(() => rm(partial, { force: true }))
    return dump
  } finally {
    await db.close()
  }
}

const load = Effect.tryPromise({
  try: async () => {
    const path = templatePath()
    return (await readTemplate(path)) ?? (await createTemplate(path))
  },
  catch: (cause) => new SqlError({ cause, message: "PgliteClient: could not prepare the template database" })
})

/** The template, read or created once per process. */
export const pgliteTemplate: Effect.Effect<Blob, SqlError> = Effect.runSync(Effect.cached(load))
