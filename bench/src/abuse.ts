/**
 * `pnpm --filter @verbatim/bench bench:abuse [server.mjs]`: what a caller without a key costs the
 * server. The server runs as `pnpm start` runs it (its node options; the bundle given, else
 * `apps/server/dist/server.mjs`) on a fresh PGlite folder with the development account seeded (its
 * key read from the seed's report), the web library on.
 *
 * 1. Each route gets its worst input at the largest size it accepts, without a key (or with an
 *    unknown one), `BENCH_ABUSE_REQUESTS` (200) times, 4 at once. Reported: the server's CPU time
 *    per request (from /proc, utime + stime) and `/ping`'s latency meanwhile (one every 20 ms).
 * 2. The idle flood: `BENCH_ABUSE_IDLE` (20,000) connections opened that send nothing; then 50 keyed
 *    `GET /credits` on new connections: how many are answered, and how fast.
 * 3. The slow-body flood: `BENCH_ABUSE_SLOW` (2,000) keyless `POST /transcribe` heads announcing
 *    100,000 bytes, one byte sent every second: how many the server still holds open 5 s later.
 *
 * Results are printed as one table and written as JSON to bench/results/.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { freeLocalPort, startOptions } from "./start-command.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const bundle = resolve(process.argv[2] ?? join(root, "apps/server/dist/server.mjs"))
const requests = Number(process.env.BENCH_ABUSE_REQUESTS ?? "200")
const idleConnections = Number(process.env.BENCH_ABUSE_IDLE ?? "20000")
const slowConnections = Number(process.env.BENCH_ABUSE_SLOW ?? "2000")

const cpuMillis = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  return ((Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 1000) / 100
}

const print = (line: string) => process.stdout.write(`${line}\n`)

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/** One raw HTTP exchange: the status of the answer (0 when the connection ended without one). */
const exchange = (port: number, head: string, body: Buffer | string = "") =>
  new Promise<number>((done) => {
    const socket = connect(port, "127.0.0.1")
    let answer = ""
    socket.setNoDelay(true)
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1")
      if (answer.includes("\r\n")) socket.destroy()
    })
    socket.on("error", () => {})
    socket.on("close", () => done(Number(answer.split(" ")[1] ?? 0)))
    socket.write(head)
    if (body.length > 0) socket.write(body)
  })

/** `/ping` once every 20 ms until stopped: the latencies seen. */
const pinging = (port: number) => {
  const times: Array<number> = []
  let running = true
  const loop = (async () => {
    while (running) {
      const started = performance.now()
      await fetch(`http://127.0.0.1:${port}/api/v2/ping`).then(
        (response) => response.arrayBuffer(),
        () => undefined
      )
      times.push(performance.now() - started)
      await sleep(20)
    }
  })()
  return async () => {
    running = false
    await loop
    return times
  }
}

interface Case {
  readonly name: string
  readonly head: (length: number) => string
  readonly body: Buffer | string
}

const post =
  (path: string, headers = "") =>
  (length: number) =>
    `POST ${path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n${headers}Content-Length: ${length}\r\n\r\n`
const form = "Content-Type: application/x-www-form-urlencoded\r\n"
const json = "Content-Type: application/json\r\n"
const repeat = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length))
const kib16 = 16 * 1024 - 64
const mib = 1024 * 1024 - 64

const cases: ReadonlyArray<Case> = [
  {
    name: "POST /oauth/revoke, 16 KiB of x&x&",
    head: post("/oauth/revoke", form),
    body: repeat("x&", kib16)
  },
  {
    name: "POST /oauth/token, 16 KiB of refresh_token=",
    head: post("/oauth/token", form),
    body: repeat("refresh_token=a&", kib16)
  },
  {
    name: "GET /oauth/authorize?x&x& (15 KiB)",
    head: () =>
      `GET /oauth/authorize?${repeat("x&", 15_000)} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n`,
    body: ""
  },
  {
    name: "GET /api/v2/transcripts?%00&... (15 KiB)",
    head: () =>
      `GET /api/v2/transcripts?${repeat("a=%00&", 15_000)} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n`,
    body: ""
  },
  {
    name: "POST /api/v2/transcribe, no key, 1 MiB of [[[",
    head: post("/api/v2/transcribe", json),
    body: repeat("[", mib)
  },
  {
    name: "POST /api/v2/transcribe, unknown key, 1 MiB",
    head: post("/api/v2/transcribe", `${json}Authorization: Bearer vbt_${"A".repeat(43)}\r\n`),
    body: `{"video":"${repeat("x", mib - 20)}"}`
  },
  {
    name: "POST /oauth/register, 16 KiB of [[[",
    head: post("/oauth/register", json),
    body: repeat("[", kib16)
  },
  { name: "POST /sign-in, 16 KiB form", head: post("/sign-in", form), body: repeat("api_key=x&", kib16) },
  {
    name: "POST /api/v2/gpt/mcp, no key, 1 MiB",
    head: post("/api/v2/gpt/mcp", json),
    body: repeat("[", mib)
  },
  {
    name: "PUT /api/v2/uploads/files/<bad token>, 1 MiB",
    head: (length) =>
      `PUT /api/v2/uploads/files/not-a-token HTTP/1.1\r\nHost: bench\r\nConnection: close\r\nContent-Length: ${length}\r\n\r\n`,
    body: Buffer.alloc(mib)
  },
  {
    name: "GET /api/v2/ping, 16 KiB of headers",
    head: () =>
      `GET /api/v2/ping HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n${repeat("x-a: b\r\n", 15_000)}\r\n`,
    body: ""
  }
]

const start = async () => {
  const folder = mkdtempSync(join(tmpdir(), "verbatim-abuse-"))
  const port = await freeLocalPort()
  const child = spawn(process.execPath, [...startOptions(root), bundle], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      VERBATIM_PLATFORM: "demo",
      VERBATIM_ASR: "none",
      VERBATIM_LOG_FORMAT: "json",
      VERBATIM_LOG_LEVEL: "warning",
      VERBATIM_DATA_DIR: folder,
      PORT: String(port)
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk) => {
    output += String(chunk)
  })
  child.stderr?.on("data", (chunk) => {
    output += String(chunk)
  })
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    const key = /"key":"(vbt_[A-Za-z0-9_-]+)"/.exec(output)?.[1]
    if (key !== undefined) return { child, port, key, folder }
    if (child.exitCode !== null) break
    await sleep(100)
  }
  throw new Error(`the server did not start with a seeded key:\n${output.slice(-2000)}`)
}

const stop = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null) return done()
    child.once("exit", () => done())
    child.kill("SIGTERM")
  })

const runCase = async (pid: number, port: number, test: Case) => {
  const stopPing = pinging(port)
  const statuses = new Map<number, number>()
  const cpuBefore = cpuMillis(pid)
  let next = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < requests) {
        next += 1
        const status = await exchange(port, test.head(Buffer.byteLength(test.body)), test.body)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    })
  )
  const cpu = cpuMillis(pid) - cpuBefore
  const pings = await stopPing()
  return {
    case: test.name,
    statuses: Object.fromEntries(statuses),
    cpuMsPerRequest: Math.round((cpu / requests) * 100) / 100,
    pingP50Ms: Math.round(percentile(pings, 50) * 10) / 10,
    pingMaxMs: Math.round(Math.max(...pings) * 10) / 10
  }
}

const openSocket = (port: number) =>
  new Promise<Socket | undefined>((done) => {
    const socket = connect(port, "127.0.0.1", () => done(socket))
    socket.once("error", () => done(undefined))
  })

const idleFlood = async (port: number, key: string) => {
  const sockets: Array<Socket> = []
  for (let i = 0; i < idleConnections; i += 200) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(200, idleConnections - i) }, () => openSocket(port))
    )
    for (const socket of batch) if (socket !== undefined) sockets.push(socket)
  }
  for (const socket of sockets) socket.on("error", () => {})
  const times: Array<number> = []
  let answered = 0
  for (let i = 0; i < 50; i += 1) {
    const started = performance.now()
    const status = await exchange(
      port,
      `GET /api/v2/credits HTTP/1.1\r\nHost: bench\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\n\r\n`
    )
    times.push(performance.now() - started)
    if (status === 200) answered += 1
  }
  const stillOpen = sockets.filter((socket) => !socket.destroyed).length
  for (const socket of sockets) socket.destroy()
  return {
    opened: sockets.length,
    keyedAnswered: `${answered} of 50`,
    keyedP50Ms: Math.round(percentile(times, 50) * 10) / 10,
    keyedMaxMs: Math.round(Math.max(...times) * 10) / 10,
    idleStillOpen: stillOpen
  }
}

const slowFlood = async (port: number) => {
  const sockets: Array<Socket> = []
  for (let i = 0; i < slowConnections; i += 1) {
    const socket = await openSocket(port)
    if (socket === undefined) continue
    socket.on("error", () => {})
    socket.on("data", () => {})
    socket.write(
      "POST /api/v2/transcribe HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    )
    sockets.push(socket)
  }
  const drip = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write("[")
  }, 1000)
  await sleep(5000)
  clearInterval(drip)
  const stillOpen = sockets.filter((socket) => !socket.destroyed).length
  for (const socket of sockets) socket.destroy()
  return { opened: sockets.length, stillOpenAfter5s: stillOpen }
}

const main = async () => {
  const { child, port, key, folder } = await start()
  const pid = child.pid ?? 0
  try {
    const results = []
    for (const test of cases) results.push(await runCase(pid, port, test))
    await sleep(3000)
    const idle = await idleFlood(port, key)
    await sleep(3000)
    const slow = await slowFlood(port)
    print(`bench:abuse on ${bundle}, ${requests} requests a case, 4 at once`)
    print("| input (no valid key) | answers | server CPU ms/request | /ping p50 ms | /ping max ms |")
    print("|---|---|---|---|---|")
    for (const r of results) {
      const answers = Object.entries(r.statuses)
        .map(([status, n]) => `${n}×${status}`)
        .join(" ")
      print(`| ${r.case} | ${answers} | ${r.cpuMsPerRequest} | ${r.pingP50Ms} | ${r.pingMaxMs} |`)
    }
    print(
      `idle flood: ${idle.opened} connections opened; keyed GET /credits answered ${idle.keyedAnswered} (p50 ${idle.keyedP50Ms} ms, max ${idle.keyedMaxMs} ms); ${idle.idleStillOpen} idle ones still open`
    )
    print(
      `slow-body flood: ${slow.opened} keyless POST /transcribe announcing 100,000 bytes, a byte a second; ${slow.stillOpenAfter5s} still open after 5 s`
    )
    const out = join(root, "bench", "results")
    mkdirSync(out, { recursive: true })
    writeFileSync(
      join(out, `abuse-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
      `${JSON.stringify({ bundle, requests, results, idle, slow }, null, 2)}\n`
    )
  } finally {
    await stop(child)
    rmSync(folder, { recursive: true, force: true })
  }
}

await main()
