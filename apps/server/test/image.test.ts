/**
 * The production image, built and run: `deploy/build-image.sh` builds both targets of the real
 * `deploy/Dockerfile` with Debian's buildah (CI runs it first, then this file with
 * `VERBATIM_IMAGE_TEST=1`); here each image's server and worker are started as the image says
 * (its ENTRYPOINT, CMD, USER, WORKDIR and ENV, read from the image's config, run by `buildah run`
 * with chroot isolation on the host's network) against this machine's PostgreSQL and Redis:
 *
 * - the server migrates, seeds and answers /api/v2/health 200; the image's own HEALTHCHECK command
 *   (kept: the build uses Docker's format) passes against it, and compose's worker check against
 *   the worker's heartbeat file;
 * - a transcribe of a demo video with captions answers 200 (1 credit);
 * - `verbatim:speech` recognises speech: a demo video without captions, transcribed from its audio
 *   by the worker's pocketsphinx, has the words spoken; `verbatim:slim` has no local engine and
 *   answers 503 `asr_unavailable`.
 *
 * Skipped (saying so) unless `VERBATIM_IMAGE_TEST=1`; under CI with that set, a missing image fails.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { chmodSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { makeTestSchemaName, postgresLayer, withSearchPath } from "@verbatim/db"
import { Effect, Redacted } from "effect"
import { freePort, printedKey, repositoryRoot } from "./server-process.js"

const enabled = process.env.VERBATIM_IMAGE_TEST === "1"
const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""
const redisUrl = process.env.REDIS_URL?.trim() ?? ""
/** The store deploy/build-image.sh built into (its driver written beside it). */
const cache = process.env.VERBATIM_IMAGE_CACHE ?? "/var/cache/verbatim-image"
const driver = (() => {
  try {
    return readFileSync(join(cache, "driver"), "utf8").trim()
  } catch {
    return "vfs"
  }
})()
const storage = [
  "--storage-driver",
  driver,
  "--root",
  join(cache, `storage-${driver}`),
  "--runroot",
  `/run/verbatim-image-${driver}`
]

const buildah = (args: ReadonlyArray<string>): string =>
  execFileSync("buildah", [...storage, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  }).trim()

interface ImageConfig {
  readonly Entrypoint?: ReadonlyArray<string> | null
  readonly Cmd?: ReadonlyArray<string> | null
  readonly Env?: ReadonlyArray<string> | null
  readonly User?: string
  readonly WorkingDir?: string
  readonly Healthcheck?: { readonly Test?: ReadonlyArray<string> } | null
}

/** The image's run configuration, as Docker would use it. */
const configOf = (image: string): ImageConfig => {
  const inspected = JSON.parse(buildah(["inspect", "--type", "image", image])) as {
    readonly Docker?: { readonly config?: ImageConfig }
    readonly OCIv1?: { readonly config?: ImageConfig }
  }
  return inspected.Docker?.config ?? inspected.OCIv1?.config ?? {}
}

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
  readonly container: string
}

/**
 * Runs `command` (default: the image's ENTRYPOINT and CMD) in a fresh working container of the
 * image, as its USER, in its WORKDIR, with its ENV and then `env`, on the host's network.
 */
const run = (
  image: string,
  env: Record<string, string>,
  command?: ReadonlyArray<string>,
  volumes: ReadonlyArray<string> = []
): Running => {
  const config = configOf(image)
  const container = buildah(["from", "--pull-never", "--name", `verbatim-image-test-${randomUUID()}`, image])
  const argv = command ?? [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])]
  const envFlags = [
    ...(config.Env ?? []),
    ...Object.entries(env).map(([name, value]) => `${name}=${value}`)
  ].flatMap((pair) => ["-e", pair])
  const child = spawn(
    "buildah",
    [
      ...storage,
      "run",
      "--isolation",
      "chroot",
      "--network",
      "host",
      "--user",
      config.User ?? "root",
      "--workingdir",
      config.WorkingDir ?? "/",
      ...envFlags,
      ...volumes.flatMap((volume) => ["--volume", volume]),
      container,
      "--",
      ...argv
    ],
    { stdio: ["ignore", "pipe", "pipe"], detached: true }
  )
  let text = ""
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8")
  })
  child.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8")
  })
  return { child, output: () => text, container }
}

/** Runs a command to its end in a container of the image; its exit code and output. */
const runToEnd = async (
  image: string,
  env: Record<string, string>,
  command: ReadonlyArray<string>,
  volumes: ReadonlyArray<string> = []
) => {
  const running = run(image, env, command, volumes)
  const code = await new Promise<number | null>((resolve) => running.child.on("exit", resolve))
  remove(running)
  return { code, output: running.output() }
}

const stop = (running: Running | undefined) => {
  if (running === undefined) return
  try {
    if (running.child.pid !== undefined && running.child.exitCode === null)
      process.kill(-running.child.pid, "SIGKILL")
  } catch {
    // Gone already.
  }
}

const remove = (running: Running) => {
  try {
    buildah(["rm", running.container])
  } catch {
    // Removed already.
  }
}

/** Polls `check` every 250 ms until it holds or `timeoutMs` passes; whether it held. */
const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return true
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return false
}

/** The worker's health check command of deploy/compose.yaml (the `node -e` script). */
const workerHealthcheck = (() => {
  const compose = readFileSync(join(repositoryRoot, "deploy/compose.yaml"), "utf8")
  const script = /"(process\.exit\(Date\.now\(\) - require\('fs'\)[^"]*)"/.exec(compose)?.[1]
  if (script === undefined) throw new Error("deploy/compose.yaml: no worker health check found")
  return script
})()

const images = [
  ["verbatim:slim", false],
  ["verbatim:speech", true]
] as const

describe.runIf(enabled && databaseUrl !== "" && redisUrl !== "")(
  "the production image, built and run",
  () => {
    it.each(images)(
      "%s: the server and the worker run against PostgreSQL and Redis, healthy, transcribing",
      async (image, speech) => {
        expect(buildah(["images", "--noheading", "--format", "{{.Name}}:{{.Tag}}", image])).toContain(image)
        const pg = postgresLayer(Redacted.make(databaseUrl), { maxConnections: 1 })
        const sql = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
          Effect.runPromise(Effect.provide(effect, pg))
        const schema = await Effect.runPromise(makeTestSchemaName)
        await sql(Effect.flatMap(SqlClient.SqlClient, (client) => client`CREATE SCHEMA ${client(schema)}`))
        const port = await freePort()
        const shared = {
          DATABASE_URL: Redacted.value(withSearchPath(Redacted.make(databaseUrl), schema)),
          REDIS_URL: redisUrl,
          VERBATIM_REDIS_PREFIX: `${process.env.VERBATIM_REDIS_PREFIX ?? "verbatim-test:"}${schema}:`,
          VERBATIM_PLATFORM: "demo",
          VERBATIM_BLOB_SIGNING_KEY: "an-image-test-signing-key-of-32-chars"
        }
        let server: Running | undefined
        let worker: Running | undefined
        try {
          server = run(image, { ...shared, HOST: "127.0.0.1", PORT: String(port), VERBATIM_WORKER: "off" })
          const api = `http://127.0.0.1:${port}/api/v2`
          const ready = await until(async () => (await fetch(`${api}/health`)).status === 200)
          expect(ready, server.output()).toBe(true)
          // The seed's key is printed once the server listens.
          expect(await until(() => printedKey(server?.output() ?? "") !== undefined), server.output()).toBe(
            true
          )
          const key = printedKey(server.output())
          // The image's HEALTHCHECK, run as Docker would run it, in a container of the same image.
          const healthcheck = configOf(image).Healthcheck?.Test ?? []
          expect(healthcheck[0]).toBe("CMD")
          const checked = await runToEnd(image, { PORT: String(port) }, healthcheck.slice(1))
          expect(checked.code, checked.output).toBe(0)

          // The worker as compose runs it, its heartbeat file on a folder shared with the checks below.
          const beats = mkdtempSync(join(tmpdir(), "verbatim-image-beat-"))
          chmodSync(beats, 0o777)
          const beatVolume = `${beats}:/run/verbatim-beat`
          const beatEnv = { VERBATIM_WORKER_HEARTBEAT_FILE: "/run/verbatim-beat/heartbeat" }
          worker = run(
            image,
            { ...shared, ...beatEnv },
            [...(configOf(image).Entrypoint ?? []), "apps/worker/dist/worker.mjs"],
            [beatVolume]
          )
          expect(
            await until(() => worker?.output().includes("worker started") ?? false),
            worker.output()
          ).toBe(true)

          const call = async (path: string, body?: unknown) => {
            const response = await fetch(`${api}${path}`, {
              method: body === undefined ? "GET" : "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              ...(body === undefined ? {} : { body: JSON.stringify(body) })
            })
            return { status: response.status, json: (await response.json()) as Record<string, unknown> }
          }
          const captions = await call("/transcribe", { video: "Rt7mN0pWzYe", mode: "captions_only" })
          expect(captions.status, JSON.stringify(captions.json)).toBe(200)
          expect(captions.json).toMatchObject({ status: "completed", credits_used: 1 })

          const spoken = await call("/transcribe", { video: "Wv5SpkDmo1A", mode: "speech_to_text_only" })
          if (!speech) {
            expect(spoken.status, JSON.stringify(spoken.json)).toBe(503)
            expect(spoken.json).toMatchObject({ error: "asr_unavailable" })
            return
          }
          expect(spoken.status, JSON.stringify(spoken.json)).toBe(202)
          let job = { status: 0, json: {} as Record<string, unknown> }
          const done = await until(async () => {
            job = await call(`/jobs/${String(spoken.json.job_id)}`)
            return job.status !== 202
          }, 180_000)
          expect(done && job.status, `${JSON.stringify(job.json)}\n${worker.output()}`).toBe(200)
          expect(job.json).toMatchObject({ status: "completed", data: { transcript: { source: "asr" } } })
          const heard = JSON.stringify(job.json).toLowerCase()
          for (const word of ["welcome", "speech", "recognition", "computer"]) expect(heard).toContain(word)
          // The worker's line for the job names the request that made it.
          expect(worker.output()).toContain(String(spoken.json.request_id))

          // compose's worker health check (deploy/compose.yaml), in the image: the heartbeat is fresh.
          const beat = await runToEnd(image, beatEnv, ["node", "-e", workerHealthcheck], [beatVolume])
          expect(beat.code, beat.output).toBe(0)
        } finally {
          for (const running of [server, worker]) {
            stop(running)
            if (running !== undefined) {
              await new Promise((resolve) =>
                running.child.exitCode === null ? running.child.on("exit", resolve) : resolve(undefined)
              )
              remove(running)
            }
          }
          await sql(
            Effect.asVoid(
              Effect.flatMap(SqlClient.SqlClient, (client) => client`DROP SCHEMA ${client(schema)} CASCADE`)
            )
          ).catch(() => undefined)
        }
      },
      600_000
    )
  }
)
