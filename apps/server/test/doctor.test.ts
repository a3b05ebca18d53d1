/**
 * `pnpm admin doctor`, as an operator runs it (the admin's bundle, which runs the check in the
 * server's): the effective settings with secrets redacted, one line per check, exit 0 when all pass
 * and 1 when one fails (a Redis that does not answer, a misspelt setting).
 */
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { freePort, repositoryRoot } from "./server-process.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""
const redisUrl = process.env.REDIS_URL?.trim() ?? ""

const run = promisify(execFile)

/** The admin's bundle, made when stale, then `doctor` run in a child (never blocking this worker). */
const doctor = async (env: Record<string, string>) => {
  await run(process.execPath, ["scripts/bundle.mjs", "--if-changed", "server", "admin"], {
    cwd: repositoryRoot
  })
  const result = await run(process.execPath, ["apps/server/dist/admin.cjs", "doctor"], {
    cwd: repositoryRoot,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      VERBATIM_PLATFORM: "demo",
      VERBATIM_ASR: "none",
      VERBATIM_BLOB_DIR: mkdtempSync(join(tmpdir(), "verbatim-doctor-")),
      ...env
    }
  }).then(
    (done) => ({ status: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code?: number; stdout?: string; stderr?: string }) => ({
      status: failed.code ?? -1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? ""
    })
  )
  return { status: result.status, output: result.stdout + result.stderr }
}

const inCi = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false"

/**
 * The database this run uses: PostgreSQL when DATABASE_URL is set, else the embedded PGlite in a
 * fresh folder (CI runs the server's suites both ways).
 */
const database = (): Record<string, string> =>
  databaseUrl === ""
    ? { VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-doctor-db-")) }
    : { DATABASE_URL: databaseUrl }

/** Where the suite runs: with Redis, and always under CI (which sets REDIS_URL). */
describe.runIf(redisUrl !== "" || inCi)("pnpm admin doctor", () => {
  beforeAll(() => {
    if (redisUrl === "")
      throw new Error("REDIS_URL is not set: under CI=true this suite runs (.ci/run sets it)")
  })
  it("prints the effective settings, secrets redacted, and passes every check against the database and Redis", async () => {
    const withPassword = new URL(redisUrl)
    withPassword.password = "hunter2-secret"
    const { status, output } = await doctor({ ...database(), REDIS_URL: withPassword.toString() })
    expect(output).toContain("REDIS_URL=<redacted>")
    expect(output).not.toContain("hunter2-secret")
    expect(output).toContain("VERBATIM_PLATFORM=demo")
    for (const name of ["settings", "database", "redis", "storage", "video platform"]) {
      expect(output).toMatch(new RegExp(`\\n  ok +${name}: `))
    }
    expect(output).toMatch(/\n {2}warn +speech: no speech recognition engine/)
    expect(status, output).toBe(0)
  }, 600_000)

  it("names each problem and exits 1: a Redis that does not answer, a misspelt setting", async () => {
    const redis = await doctor({ ...database(), REDIS_URL: `redis://127.0.0.1:${await freePort()}/0` })
    expect(redis.output).toMatch(/\n {2}FAIL +redis: /)
    expect(redis.status, redis.output).toBe(1)
    const misspelt = await doctor({ ...database(), REDIS_URL: redisUrl, VERBATIM_PLATFROM: "demo" })
    expect(misspelt.output).toContain(
      "FAIL  settings: VERBATIM_PLATFROM is not a setting of Verbatim; did you mean VERBATIM_PLATFORM?"
    )
    expect(misspelt.status, misspelt.output).toBe(1)
  }, 600_000)
})
