/**
 * Real processes for fault tests: `apps/worker` and `apps/server` started as child processes (the
 * same entry points as `pnpm worker` and `pnpm start`) against one PostgreSQL schema and one Redis
 * key prefix made for the test, and the test process's own view of the same database and queue
 * (to create accounts and jobs and to read the outcome), built with the production wiring.
 *
 * Runs only when `DATABASE_URL` and `REDIS_URL` are set (`.ci/run` sets both).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { makeTestSchemaName, withSearchPath } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { infrastructureFor, servicesOn } from "@verbatim/runtime"
import { testWorkSettings } from "@verbatim/runtime/testing"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { Redis } from "ioredis"

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..")
const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""
const redisUrl = process.env.REDIS_URL?.trim() ?? ""

/** Whether PostgreSQL and Redis are there for fault tests. */
export const fleetAvailable = databaseUrl !== "" && redisUrl !== ""

export interface App {
  readonly child: ChildProcess
  /** Everything the process printed so far. */
  readonly output: () => string
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | string>
}

const scriptLine = (script: "start" | "worker"): string =>
  (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      readonly scripts: Record<string, string>
    }
  ).scripts[script] ?? ""

/**
 * The command `pnpm <script>` runs after installing the speech packages and bundling the app
 * (`exec node ...`), as the root package.json says, node being this test's own binary: the fault
 * tests run what operators run.
 */
export const scriptCommand = (script: "start" | "worker"): ReadonlyArray<string> => {
  const line = scriptLine(script)
  const command = line.slice(line.lastIndexOf("&& exec ") + "&& exec ".length).split(/\s+/)
  if (!line.includes("&& exec ") || command[0] !== "node") {
    throw new Error(`pnpm ${script} should end with "&& exec node ...", got ${JSON.stringify(line)}`)
  }
  return [process.execPath, ...command.slice(1)]
}

const prepared = new Set<string>()

/**
 * Runs the `node ...` steps of `pnpm <script>` before its `exec` (the bundling of the app), once per
 * test process; the speech set-up is the test run's own.
 */
export const prepareScript = (script: "start" | "worker"): void => {
  if (prepared.has(script)) return
  const steps = scriptLine(script).split(" && ")
  for (const step of steps.slice(0, -1)) {
    const [command, ...args] = step.trim().split(/\s+/)
    if (command === "node") execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" })
  }
  prepared.add(script)
}

export interface StartOptions {
  /** A process group of its own, so a test can signal the group (`process.kill(-pid)`). */
  readonly detached?: boolean | undefined
  /**
   * A worker that also runs the test wiring's `test.delay` lane (`test/test-worker.ts`, from source
   * with tsx's loader) instead of `pnpm worker`'s bundle, which runs only the release's lanes.
   */
  readonly testLane?: boolean | undefined
}

/** The command of the fault tests' worker (`test/test-worker.ts`). */
const testWorkerCommand: ReadonlyArray<string> = [
  process.execPath,
  "--import",
  "tsx",
  "--conditions=@verbatim/source",
  "apps/worker/test/test-worker.ts"
]

/**
 * Starts `pnpm start` (server) or `pnpm worker` (or the test worker: `options.testLane`) with the
 * given environment; SIGKILLed when the scope closes.
 */
export const startApp = (
  name: "worker" | "server",
  env: Record<string, string>,
  options: StartOptions = {}
) =>
  Effect.acquireRelease(
    Effect.sync((): App => {
      const script = name === "server" ? "start" : "worker"
      const testWorker = name === "worker" && options.testLane === true
      if (!testWorker) prepareScript(script)
      const [node = process.execPath, ...args] = testWorker ? testWorkerCommand : scriptCommand(script)
      const child = spawn(node, args, {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: options.detached ?? false
      })
      let output = ""
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8")
      })
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8")
      })
      const exited = new Promise<number | string>((resolve) =>
        child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"))
      )
      return { child, output: () => output, exited }
    }),
    (app) =>
      Effect.promise(async () => {
        if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL")
        await app.exited
      })
  )

/** Waits for a process to end, at most `timeoutMs`; its exit code or signal, or none when it did not. */
export const exitOf = (app: App, timeoutMs: number) =>
  Effect.promise(() => app.exited).pipe(Effect.timeoutOption(Duration.millis(timeoutMs)))

/** A TCP port nothing listens on right now. */
export const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Deletes every Redis key under `prefix` (what a FLUSHALL does to this test, without touching others). */
export const flushPrefix = (prefix: string) =>
  Effect.promise(async () => {
    const redis = new Redis(redisUrl)
    let cursor = "0"
    let deleted = 0
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
      cursor = next
      if (keys.length > 0) deleted += await redis.del(...keys)
    } while (cursor !== "0")
    await redis.quit()
    return deleted
  })

export interface Fleet {
  /** The environment children share: this test's database schema and Redis prefix, fast timings. */
  readonly env: Record<string, string>
  readonly prefix: string
}

/**
 * A fresh PostgreSQL schema (dropped afterwards) and Redis prefix (flushed afterwards), and the
 * settings of this test's processes: short leases, quick reconciling, local webhooks allowed.
 */
export const makeFleet = Effect.gen(function* () {
  const schema = yield* makeTestSchemaName
  const admin = yield* PgClient.make({
    url: Redacted.make(databaseUrl),
    maxConnections: 1,
    applicationName: "verbatim-fault-tests"
  }).pipe(Effect.provide(Reactivity.layer))
  yield* Effect.acquireRelease(admin`CREATE SCHEMA ${admin(schema)}`, () =>
    admin`DROP SCHEMA IF EXISTS ${admin(schema)} CASCADE`.pipe(Effect.ignore)
  )
  const prefix = `${process.env.VERBATIM_REDIS_PREFIX ?? "verbatim-test:"}${schema}:`
  yield* Effect.addFinalizer(() => flushPrefix(prefix).pipe(Effect.ignore))
  const url = Redacted.value(withSearchPath(Redacted.make(databaseUrl), schema))
  const fleet: Fleet = {
    prefix,
    env: {
      DATABASE_URL: url,
      REDIS_URL: redisUrl,
      VERBATIM_REDIS_PREFIX: prefix,
      VERBATIM_SEED: "false",
      VERBATIM_PLATFORM: "demo",
      VERBATIM_JOB_LEASE_MS: "1500",
      VERBATIM_RECONCILE_MS: "300",
      VERBATIM_SHUTDOWN_GRACE_MS: "300",
      VERBATIM_WORKER_CONCURRENCY: "8",
      VERBATIM_WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:*",
      VERBATIM_WEBHOOK_SCHEDULE: "0,100ms,200ms,400ms"
    }
  }
  const fleetBlobs = mkdtempSync(join(tmpdir(), "verbatim-fleet-blobs-"))
  const services = servicesOn(
    infrastructureFor({
      database: { url: Option.some(Redacted.make(url)), dataDir: "./.data", pool: { maxConnections: 5 } },
      platform: "demo",
      demoCatalogue: shippedCataloguePath,
      youtube: Option.none(),
      redis: { url: Option.some(Redacted.make(redisUrl)), prefix },
      work: testWorkSettings(),
      speech: "none",
      storage: {
        _tag: "local",
        root: fleetBlobs,
        signingKey: Option.some(Redacted.make("a-fleet-signing-key-of-32-characters"))
      },
      publicUrl: Option.none()
    })
  )
  return { fleet, services }
})

/** Runs `body` with a fresh fleet and this process's view of it (the use cases and ports). */
export const withFleet = <A, E, R>(body: (fleet: Fleet) => Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { fleet, services } = yield* makeFleet
      const context = yield* Layer.build(services)
      return yield* Effect.provide(body(fleet), context)
    })
  )
