/**
 * A start removes what processes killed before they could clean up left behind: the working
 * folders of recognitions and translations whose owner is dead, in VERBATIM_POCKETSPHINX_TMPDIR
 * (and the system's temporary folder); a live owner's folders stay.
 */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { ownedTempPrefix } from "@verbatim/processes"
import { ConfigProvider, Effect, Layer } from "effect"
import { leftoversSwept } from "../src/index.js"

describe("a start", () => {
  it.effect("removes the temporary folders of dead processes, never a live one's", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "verbatim-leftovers-"))
      const live = spawn("sleep", ["30"], { stdio: "ignore" })
      try {
        const dead = spawnSync("true").pid ?? 0
        mkdtempSync(join(dir, ownedTempPrefix("asr", dead)))
        mkdtempSync(join(dir, ownedTempPrefix("apertium", dead)))
        const liveAsr = mkdtempSync(join(dir, ownedTempPrefix("asr", live.pid ?? 0)))
        yield* Layer.build(leftoversSwept).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VERBATIM_POCKETSPHINX_TMPDIR", dir]])))
        )
        expect(readdirSync(dir)).toEqual([liveAsr.slice(dir.length + 1)])
      } finally {
        live.kill("SIGKILL")
        rmSync(dir, { recursive: true, force: true })
      }
    }).pipe(Effect.scoped)
  )
})
