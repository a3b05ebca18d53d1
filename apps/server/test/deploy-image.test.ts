/**
 * The production image, as far as it can be checked without Docker (no daemon on this machine):
 *
 * - deploy/Dockerfile's rules, read from the file: a build stage and a runtime stage on the same
 *   Debian slim node, the runtime stage holding only what `scripts/assemble-runtime.mjs` assembled
 *   (no pnpm, no workspace install), user `node`, a HEALTHCHECK, node as the command under tini,
 *   volumes where data lives, the speech and translation packages in a later stage of their own;
 * - the runtime file set itself: `assemble-runtime.mjs` run into a temporary folder, that folder
 *   mounted read-only over this checkout's path (the bundles name their imports by absolute path,
 *   as in the image where both stages use /app), and the server started from it with plain node
 *   and data only in a writable folder elsewhere: it must answer /ping and be ready on /health.
 *   That needs root (a private mount namespace, `unshare -m`); skipped with the reason otherwise.
 *
 * Not checked here: that `docker build` succeeds (the base image, apt-get, pnpm in the build stage).
 */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCommand } from "./commands.js"
import { freePort, repositoryRoot } from "./server-process.js"

const dockerfile = readFileSync(join(repositoryRoot, "deploy/Dockerfile"), "utf8")

/** The Dockerfile's instructions (continuation lines joined, comments left out), by stage. */
const stages = (): ReadonlyArray<{
  readonly name: string
  readonly from: string
  readonly lines: string[]
}> => {
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
  const result: Array<{ name: string; from: string; lines: string[] }> = []
  for (const line of instructions) {
    const from = /^FROM (\S+) AS (\S+)$/i.exec(line)
    if (from !== null) result.push({ name: from[2] ?? "", from: from[1] ?? "", lines: [] })
    else result.at(-1)?.lines.push(line)
  }
  return result
}

describe("deploy/Dockerfile", () => {
  const all = stages()
  const [build, base, speechPackages, runtime, speech, ...others] = all

  it("builds in a stage of its own and runs from a runtime stage holding only the assembled files", () => {
    expect([
      build?.name,
      base?.name,
      speechPackages?.name,
      runtime?.name,
      speech?.name,
      others.length
    ]).toEqual(["build", "base", "speech-packages", "runtime", "speech", 0])
    // One base, pinned to a Node version and a Debian release (no floating tag).
    expect(build?.from).toBe(base?.from)
    expect(base?.from).toMatch(/^node:\d+\.\d+\.\d+-bookworm-slim$/)
    expect(runtime?.from).toBe("base")
    expect(build?.lines.some((line) => line.includes("pnpm install --offline --frozen-lockfile"))).toBe(true)
    expect(build?.lines.some((line) => line.includes("node scripts/assemble-runtime.mjs /runtime"))).toBe(
      true
    )
    const copies = runtime?.lines.filter((line) => line.startsWith("COPY")) ?? []
    expect(copies).toEqual(["COPY --from=build /runtime /app"])
    expect(
      [base, runtime, speech].some((stage) =>
        stage?.lines.some((line) => /\bpnpm\b|npm install|corepack/.test(line))
      )
    ).toBe(false)
    expect(runtime?.lines).toContain("WORKDIR /app")
    expect(build?.lines).toContain("WORKDIR /app")
  })

  it("runs node under tini as user node, with a health check and volumes where data lives", () => {
    const lines = runtime?.lines ?? []
    expect(lines).toContain("USER node")
    expect(lines.find((line) => line.startsWith("ENTRYPOINT"))).toBe('ENTRYPOINT ["tini", "--", "node"]')
    const cmd = lines.find((line) => line.startsWith("CMD")) ?? ""
    expect(cmd).toMatch(/"apps\/server\/dist\/server\.mjs"\]$/)
    expect(cmd).not.toMatch(/pnpm|npm|tsx/)
    expect(lines.find((line) => line.startsWith("HEALTHCHECK"))).toMatch(
      /CMD \["node", "-e", .*\/api\/v2\/ping/
    )
    expect(lines).toContain('VOLUME ["/data/blobs", "/data/db"]')
    const env = lines.find((line) => line.startsWith("ENV")) ?? ""
    expect(env).toContain("VERBATIM_DATA_DIR=/data/db")
    expect(env).toContain("VERBATIM_BLOB_DIR=/data/blobs")
    expect(env).toContain("NODE_ENV=production")
  })

  it("installs the speech and translation packages (--require) before the app, and runs the speech image as runtime", () => {
    expect(speechPackages?.from).toBe("base")
    expect(
      speechPackages?.lines.some(
        (line) =>
          line.includes("install-speech.sh --require") && line.includes("install-translation.sh --require")
      )
    ).toBe(true)
    // The app last, with exactly runtime's settings: a code change rebuilds only that layer.
    expect(speech?.from).toBe("speech-packages")
    expect(speech?.lines).toEqual(runtime?.lines)
    expect(speech?.lines.at(-1)).toMatch(/^CMD /)
    expect(speech?.lines).toContain("USER node")
  })
})

const root = process.getuid?.() === 0
const unshare = spawnSync("unshare", ["--version"]).status === 0

describe("the runtime file set (scripts/assemble-runtime.mjs)", () => {
  it.skipIf(!root || !unshare)(
    "the server starts from the assembled folder alone, mounted read-only, with data only in its own folder",
    async () => {
      const assembled = mkdtempSync(join(tmpdir(), "verbatim-runtime-"))
      const data = mkdtempSync(join(tmpdir(), "verbatim-runtime-data-"))
      await runCommand(process.execPath, ["scripts/bundle.mjs", "--if-changed", "server", "worker"], {
        cwd: repositoryRoot
      })
      await runCommand(process.execPath, ["scripts/assemble-runtime.mjs", assembled], { cwd: repositoryRoot })
      const port = await freePort()
      const checkout = repositoryRoot.replace(/\/$/, "")
      // In a mount namespace of its own: the assembled folder over the checkout, read-only.
      const script = [
        "set -e",
        'mount --bind "$1" "$2"',
        'mount -o remount,bind,ro "$2"',
        "cd /",
        'exec node --liftoff-only "$2/apps/server/dist/server.mjs"'
      ].join("\n")
      const child = spawn(
        "unshare",
        ["-m", "--propagation", "private", "sh", "-c", script, "sh", assembled, checkout],
        {
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: data,
            NODE_ENV: "production",
            HOST: "127.0.0.1",
            PORT: String(port),
            VERBATIM_DATA_DIR: join(data, "db"),
            VERBATIM_BLOB_DIR: join(data, "blobs"),
            VERBATIM_PLATFORM: "demo",
            VERBATIM_ASR: "none",
            VERBATIM_LOG_FORMAT: "json"
          },
          stdio: ["ignore", "pipe", "pipe"]
        }
      )
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8")
      })
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8")
      })
      try {
        let ready = false
        const end = Date.now() + 90_000
        while (!ready && Date.now() < end && child.exitCode === null) {
          ready = await fetch(`http://127.0.0.1:${port}/api/v2/health`)
            .then((response) => response.status === 200)
            .catch(() => false)
          if (!ready) await new Promise((resolve) => setTimeout(resolve, 200))
        }
        expect(ready, output).toBe(true)
        expect((await fetch(`http://127.0.0.1:${port}/api/v2/ping`)).status).toBe(200)
        // The demo catalogue (an asset beside a workspace module's source) came along.
        const estimate = await fetch(`http://127.0.0.1:${port}/api/v2/openapi.json`)
        expect(estimate.status).toBe(200)
      } finally {
        child.kill("SIGKILL")
        await new Promise((resolve) =>
          child.exitCode === null ? child.once("exit", resolve) : resolve(null)
        )
        rmSync(assembled, { recursive: true, force: true })
        rmSync(data, { recursive: true, force: true })
      }
    },
    180_000
  )
})
