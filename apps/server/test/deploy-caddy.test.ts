/**
 * The shipped load balancer, run: Debian's `caddy` with `deploy/Caddyfile` (the same file compose
 * mounts, its addresses from the environment) in front of two API servers and a worker, processes
 * on this machine started with the deployment's settings (PostgreSQL and Redis, `VERBATIM_WORKER=off`
 * on the servers, a heartbeat file on the worker). Each server's and the worker's database
 * connection goes through a TCP proxy the test can cut:
 *
 * - requests are balanced (each server's own /metrics counts the requests it answered);
 * - a server whose database is cut answers 503 on /api/v2/health, Caddy takes it out of rotation
 *   (every request then succeeds through the other), and puts it back once it is healthy;
 * - /metrics and /health/details are refused on the public listener and answered on the internal
 *   one; the public /api/v2/health answers its status and time only;
 * - keep-alive is ordered: a connection idle past node's default 5 s is still served, and bursts
 *   through Caddy after such idling see no 502 or reset;
 * - a frozen server (SIGSTOP) leaves rotation within seconds, and the requests it held end at their
 *   route's time (504), not after minutes;
 * - a signed upload PUT larger than the JSON body limit (1 MiB) passes through;
 * - the worker's heartbeat file is written while its database answers and goes stale when it is cut.
 *
 * Runs with `DATABASE_URL`, `REDIS_URL` and caddy, and always under `CI=true`, where a missing one
 * fails it (`.ci/run` sets both and runs `scripts/install-caddy.sh`).
 *
 * Not tested here: the containers (the image build, compose's networking, limits and restarts);
 * docker is not available on this machine.
 *
 * Waits are bounded polls; the only fixed pauses are the worker's: a heartbeat file that must NOT
 * change is watched for five of its intervals (300 ms here).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { accessSync, constants, mkdtempSync, statSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { makeTestSchemaName, postgresLayer, withSearchPath } from "@verbatim/db"
import { Effect, Redacted } from "effect"
import { runCommand } from "./commands.js"
import { TcpProxy, throughProxy } from "./outage-proxy.js"
import { freePort, printedKey, repositoryRoot, type ServerProcess, startServer } from "./server-process.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""
const redisUrl = process.env.REDIS_URL?.trim() ?? ""

const onPath = (name: string): string | undefined => {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    try {
      accessSync(join(dir, name), constants.X_OK)
      return join(dir, name)
    } catch {
      // Not here.
    }
  }
  return undefined
}
const caddy = onPath("caddy")
const inCi = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false"

/** Polls `check` every 100 ms until it holds or `timeoutMs` passes; whether it held. */
const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Requests to /api/v2/ping a server answered, by its own /metrics (read from it directly). */
const pings = async (port: number): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return text
    .split("\n")
    .filter((line) => line.startsWith("verbatim_http_requests_total{") && line.includes('"/api/v2/ping"'))
    .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0)
}

const status = async (url: string, init?: RequestInit): Promise<number> => (await fetch(url, init)).status

/** Where the suite runs: with PostgreSQL and Redis, and always under CI (which sets both). */
const runs = (databaseUrl !== "" && redisUrl !== "") || inCi

/**
 * Two GET /api/v2/ping on one kept-alive connection to the server, `idleMs` apart; the answers'
 * heads (an empty string where the server had closed the connection).
 */
const idleReuse = (port: number, idleMs: number): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const answers: Array<string> = []
    let text = ""
    const ask = () => socket.write("GET /api/v2/ping HTTP/1.1\r\nHost: verbatim.test\r\n\r\n")
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
      const end = text.indexOf("\r\n\r\n")
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? "0")
      if (end === -1 || text.length < end + 4 + length) return
      answers.push(text.slice(0, end))
      text = ""
      if (answers.length === 1) setTimeout(ask, idleMs)
      else {
        socket.end()
        resolve(answers)
      }
    })
    socket.on("close", () => resolve([...answers, ""].slice(0, 2)))
    socket.on("error", reject)
    socket.on("connect", ask)
  })

describe.runIf(runs)("deploy/Caddyfile in front of two servers", () => {
  beforeAll(() => {
    if (databaseUrl === "" || redisUrl === "")
      throw new Error(
        "DATABASE_URL and REDIS_URL are not both set: under CI=true this suite runs (.ci/run sets both)"
      )
  })
  it.runIf(caddy === undefined && inCi)("caddy is installed under CI (scripts/install-caddy.sh)", () => {
    expect(caddy, "scripts/install-caddy.sh should have installed caddy").toBeDefined()
  })
  it.skipIf(caddy === undefined && !inCi)(
    "balances, takes a server whose database is cut out of rotation and back, keeps /metrics internal, passes large uploads; the worker's heartbeat follows its database",
    async () => {
      const pg = new URL(databaseUrl)
      const admin = postgresLayer(Redacted.make(databaseUrl), { maxConnections: 1 })
      const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
        Effect.runPromise(Effect.provide(effect, admin))
      const schema = await Effect.runPromise(makeTestSchemaName)
      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
      const url = Redacted.value(withSearchPath(Redacted.make(databaseUrl), schema))
      const proxies = [0, 1, 2].map(() => new TcpProxy(Number(pg.port || 5432), pg.hostname))
      const ports = await Promise.all(proxies.map((proxy) => proxy.open()))
      const [apiA, apiB, publicPort, metricsPort] = await Promise.all([
        freePort(),
        freePort(),
        freePort(),
        freePort()
      ])
      const publicUrl = `http://127.0.0.1:${publicPort}`
      const blobs = mkdtempSync(join(tmpdir(), "verbatim-caddy-blobs-"))
      const heartbeatFile = join(mkdtempSync(join(tmpdir(), "verbatim-caddy-beat-")), "worker")
      // The deployment's settings (deploy/compose.yaml), each process with its own database proxy.
      const shared = {
        REDIS_URL: redisUrl,
        VERBATIM_REDIS_PREFIX: `${process.env.VERBATIM_REDIS_PREFIX ?? "verbatim-test:"}${schema}:`,
        VERBATIM_PUBLIC_URL: publicUrl,
        VERBATIM_BLOB_DIR: blobs,
        VERBATIM_BLOB_SIGNING_KEY: "a-deploy-test-signing-key-of-32-chars",
        VERBATIM_LOG_FORMAT: "json",
        DATABASE_POOL_MAX: "4"
      }
      const processes: Array<ServerProcess | { child: ChildProcess }> = []
      let lb: ChildProcess | undefined
      try {
        const server = (index: 0 | 1, port: number, seed: boolean) =>
          startServer({
            ...shared,
            DATABASE_URL: throughProxy(url, ports[index] ?? 0),
            HOST: "127.0.0.1",
            PORT: String(port),
            VERBATIM_WORKER: "off",
            VERBATIM_SEED: String(seed)
          })
        // One first: it migrates and seeds (the second would wait for the migration lock anyway).
        const first = server(0, apiA, true)
        processes.push(first)
        await first.waitFor(/Listening on http/, 120_000)
        const second = server(1, apiB, false)
        processes.push(second)
        await second.waitFor(/Listening on http/, 120_000)
        const key = printedKey(first.output())
        expect(key).toBeDefined()

        await runCommand(process.execPath, ["scripts/bundle.mjs", "--if-changed", "worker"], {
          cwd: repositoryRoot
        })
        const worker = spawn(process.execPath, ["apps/worker/dist/worker.mjs"], {
          cwd: repositoryRoot,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: process.env.HOME ?? "/tmp",
            ...shared,
            VERBATIM_PLATFORM: "demo",
            VERBATIM_ASR: "none",
            DATABASE_URL: throughProxy(url, ports[2] ?? 0),
            VERBATIM_WORKER_HEARTBEAT_FILE: heartbeatFile,
            VERBATIM_WORKER_HEARTBEAT_MS: "300"
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let workerOutput = ""
        for (const stream of [worker.stdout, worker.stderr]) {
          stream?.on("data", (chunk: Buffer) => {
            workerOutput += chunk.toString("utf8")
          })
        }
        processes.push({ child: worker })

        lb = spawn(caddy ?? "caddy", ["run", "--config", "deploy/Caddyfile", "--adapter", "caddyfile"], {
          cwd: repositoryRoot,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: mkdtempSync(join(tmpdir(), "verbatim-caddy-home-")),
            VERBATIM_UPSTREAMS: `127.0.0.1:${apiA} 127.0.0.1:${apiB}`,
            PUBLIC_ADDRESS: `127.0.0.1:${publicPort}`,
            METRICS_ADDRESS: `127.0.0.1:${metricsPort}`
          },
          stdio: "ignore"
        })
        expect(await until(async () => (await status(`${publicUrl}/api/v2/ping`)) === 200)).toBe(true)

        // Balanced: 20 requests through Caddy reach both servers.
        const before = await Promise.all([pings(apiA), pings(apiB)])
        for (let i = 0; i < 20; i++) expect(await status(`${publicUrl}/api/v2/ping`)).toBe(200)
        const after = await Promise.all([pings(apiA), pings(apiB)])
        const served = after.map((count, i) => count - (before[i] ?? 0))
        expect(served.reduce((a, b) => a + b, 0)).toBe(20)
        expect(Math.min(...served)).toBeGreaterThan(0)

        // /metrics: refused on the public listener, answered on the internal one.
        expect(await status(`${publicUrl}/metrics`)).toBe(404)
        expect(await status(`${publicUrl}/metrics/`)).toBe(404)
        const internal = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        expect(internal.status).toBe(200)
        expect(await internal.text()).toContain("verbatim_http_requests_total")
        expect(await status(`http://127.0.0.1:${metricsPort}/api/v2/ping`)).toBe(404)
        // Readiness: the public answer is its status only; the detail only on the internal listener.
        const health = await fetch(`${publicUrl}/api/v2/health`)
        expect(Object.keys((await health.json()) as object).sort()).toEqual(["status", "timestamp"])
        expect(await status(`${publicUrl}/health/details`)).toBe(404)
        const details = await fetch(`http://127.0.0.1:${metricsPort}/health/details`)
        expect(details.status).toBe(200)
        expect(await details.json()).toMatchObject({ status: "ready", database: { status: "up" } })

        // Keep-alive ordered: a connection left idle past node's default 5 s is still the server's
        // (it keeps them 75 s, Caddy 60 s), so a proxy reusing it is never answered with a reset.
        // The pause is the point of the check: nothing else can show an idle connection survives.
        const reused = await idleReuse(apiA, 6_000)
        expect(reused.map((answer) => answer.split("\r\n")[0])).toEqual([
          "HTTP/1.1 200 OK",
          "HTTP/1.1 200 OK"
        ])
        // Load through Caddy with its connections reused after idling past 5 s: no 502, no reset.
        for (let round = 0; round < 3; round++) {
          const statuses = await Promise.all(
            Array.from({ length: 20 }, () => status(`${publicUrl}/api/v2/ping`).catch(() => 0))
          )
          expect(statuses.filter((code) => code !== 200)).toEqual([])
          if (round < 2) await pause(5_500)
        }

        // An upload larger than the JSON body limit, PUT to its signed URL through Caddy.
        const size = 3 * 1024 * 1024
        const created = await fetch(`${publicUrl}/api/v2/uploads`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            filename: "big.wav",
            mime_type: "audio/wav",
            size_bytes: size,
            duration_sec: 60
          })
        })
        expect(created.status).toBe(200)
        const upload = (await created.json()) as { signed_url: string; upload_id: string }
        expect(upload.signed_url.startsWith(publicUrl)).toBe(true)
        const put = await fetch(upload.signed_url, {
          method: "PUT",
          headers: { "content-type": "audio/wav" },
          body: new Uint8Array(size).fill(7)
        })
        expect(put.status, await put.clone().text()).toBeLessThan(300)

        // The worker beats while its database answers.
        expect(await until(() => statSync(heartbeatFile).isFile()), workerOutput).toBe(true)

        // Server A's database cut: its readiness is 503, Caddy stops sending it requests.
        await proxies[0]?.close()
        expect(
          await until(async () => (await status(`http://127.0.0.1:${apiA}/api/v2/health`)) === 503)
        ).toBe(true)
        // Caddy's next health check (every 2 s) marks it down: until ten requests in a row miss it.
        expect(
          await until(async () => {
            const start = await pings(apiA)
            for (let i = 0; i < 10; i++) await status(`${publicUrl}/api/v2/ping`)
            return (await pings(apiA)) === start
          })
        ).toBe(true)
        const cutBefore = await Promise.all([pings(apiA), pings(apiB)])
        for (let i = 0; i < 20; i++) expect(await status(`${publicUrl}/api/v2/ping`)).toBe(200)
        const cutAfter = await Promise.all([pings(apiA), pings(apiB)])
        expect(cutAfter.map((count, i) => count - (cutBefore[i] ?? 0))).toEqual([0, 20])

        // Restored: healthy again, back in rotation.
        await proxies[0]?.open()
        expect(
          await until(async () => (await status(`http://127.0.0.1:${apiA}/api/v2/health`)) === 200)
        ).toBe(true)
        expect(
          await until(async () => {
            const start = await pings(apiA)
            for (let i = 0; i < 4; i++) await status(`${publicUrl}/api/v2/ping`)
            return (await pings(apiA)) > start
          })
        ).toBe(true)

        // Server A frozen (SIGSTOP: it accepts connections and never answers). Requests already sent
        // to it end at their route's time (30 s here), not Caddy's old 10 minutes; its failed health
        // check takes it out of rotation within seconds, and every request then goes to B.
        const frozen = first.child.pid ?? 0
        process.kill(frozen, "SIGSTOP")
        try {
          const inFlight = await Promise.all(
            Array.from({ length: 4 }, () =>
              fetch(`${publicUrl}/api/v2/credits`, {
                headers: { authorization: `Bearer ${key}` },
                signal: AbortSignal.timeout(60_000)
              }).then((response) => response.status)
            )
          )
          // Each answered: 200 by B, or 504 by Caddy for one A held past its route's time.
          expect(
            inFlight.every((code) => code === 200 || code === 504),
            String(inFlight)
          ).toBe(true)
          expect(
            await until(async () => {
              const start = await pings(apiB)
              for (let i = 0; i < 10; i++) {
                const code = await status(`${publicUrl}/api/v2/ping`, { signal: AbortSignal.timeout(60_000) })
                if (code !== 200) return false
              }
              return (await pings(apiB)) - start === 10
            }, 120_000)
          ).toBe(true)
        } finally {
          process.kill(frozen, "SIGCONT")
        }

        // The worker's database cut: its heartbeat goes stale (three intervals), then beats again.
        await proxies[2]?.close()
        // Two intervals for a beat in flight to land, then the file must stay as it is.
        await pause(600)
        const stale = statSync(heartbeatFile).mtimeMs
        await pause(900)
        expect(statSync(heartbeatFile).mtimeMs).toBe(stale)
        await proxies[2]?.open()
        expect(await until(() => statSync(heartbeatFile).mtimeMs > stale)).toBe(true)
      } finally {
        lb?.kill("SIGKILL")
        for (const process of processes) process.child.kill("SIGKILL")
        await Promise.all(proxies.map((proxy) => proxy.close()))
        await run(
          Effect.asVoid(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
        ).catch(() => undefined)
      }
    },
    300_000
  )
})
