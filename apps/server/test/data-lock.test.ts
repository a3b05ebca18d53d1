import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { DataFolderInUse, holdDataFolder, lockFileName } from "../src/data-lock.js"

const folder = () => mkdtempSync(join(tmpdir(), "verbatim-lock-"))

describe("holdDataFolder", () => {
  it.scoped("writes this process's pid while held and removes it afterwards", () =>
    Effect.gen(function* () {
      const dir = folder()
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* holdDataFolder(dir)
          expect(readFileSync(join(dir, lockFileName), "utf8").trim()).toBe(String(process.pid))
        })
      )
      expect(existsSync(join(dir, lockFileName))).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("refuses a folder held by another live process, naming it", () =>
    Effect.gen(function* () {
      const dir = folder()
      // The parent of this test process is alive for the whole test.
      writeFileSync(join(dir, lockFileName), `${process.ppid}\n`)
      const exit = yield* Effect.exit(holdDataFolder(dir))
      expect(exit).toEqual(Exit.fail(new DataFolderInUse({ folder: dir, pid: process.ppid })))
      if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
        expect(exit.cause.error.message).toContain(String(process.ppid))
      }
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("takes over a file left by a process that no longer runs, or garbage", () =>
    Effect.gen(function* () {
      for (const content of ["999999999\n", "not a pid", ""]) {
        const dir = folder()
        writeFileSync(join(dir, lockFileName), content)
        yield* Effect.scoped(holdDataFolder(dir))
        expect(existsSync(join(dir, lockFileName))).toBe(false)
      }
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
