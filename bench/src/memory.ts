/**
 * `pnpm --filter @verbatim/bench bench:memory`: how fast the server answers after its start and how
 * much memory it holds at rest, run exactly as `pnpm start` runs it (the bundle, with the node
 * options of the `start` script in package.json).
 *
 * Measured, BENCH_MEMORY_ROUNDS times each:
 * - PGlite, first start: a fresh data folder (initdb, migrations, the development account's seed);
 * - PGlite, later start: the same folder again;
 * - PostgreSQL (when DATABASE_URL is set): a database made for the run, dropped after it.
 *
 * For each start: the time until `GET /api/v2/ping` first answers, the CPU time the server (and the
 * children it waited for) used until then (on a busy machine the wall time mostly measures the
 * others' load), and, BENCH_IDLE_SECONDS (5) later, its resident memory and its peak (VmRSS, VmHWM),
 * and its resident memory again BENCH_SETTLED_SECONDS (40) after it answered: V8's memory reducer
 * collects an idle heap only after a while (within about 30 s on a quiet machine).
 * Goals: answers within 5 s on a first embedded start; at rest at most 250 MB on PGlite
 * and 150 MB on PostgreSQL. Results are printed as one table and written as JSON to bench/results/.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { freeLocalPort, startArguments } from "./start-command.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const rounds = Number(process.env.BENCH_MEMORY_ROUNDS ?? "2")
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? "5")
const settledSeconds = Number(process.env.BENCH_SETTLED_SECONDS ?? "40")
const databaseUrl = process.env.DATABASE_URL

/** CPU seconds of the process and of the children it waited for (utime, stime, cutime, cstime). */
const cpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0)
  return ticks / 100
}

const memoryMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0")
  return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

interface StartFigures {
  readonly case: string
  readonly answeredMs: number
  readonly cpuSeconds: number
  readonly rssMb: number
  readonly peakMb: number
  /** RSS once V8's memory reducer has run on the idle process (it waits for a quiet heap). */
  readonly settledRssMb: number
}

const measureStart = async (label: string, env: Record<string, string>): Promise<StartFigures> => {
  const port = await freeLocalPort()
  const started = performance.now()
  const child = spawn(process.execPath, startArguments(root), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      VERBATIM_PLATFORM: "demo",
      VERBATIM_ASR: "none",
      PORT: String(port),
      ...env
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
  try {
    for (;;) {
      if (child.exitCode !== null || performance.now() - started > 120_000) {
        throw new Error(`the server did not answer (${label}):\n${output}`)
      }
      const up = await fetch(`http://127.0.0.1:${port}/api/v2/ping`).then(
        () => true,
        () => false
      )
      if (up) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const answeredMs = Math.round(performance.now() - started)
    const pid = child.pid ?? 0
    const cpu = cpuSeconds(pid)
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000))
    const idle = memoryMb(pid)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, settledSeconds - idleSeconds) * 1000))
    return { case: label, answeredMs, cpuSeconds: cpu, ...idle, settledRssMb: memoryMb(pid).rssMb }
  } finally {
    await stop(child)
  }
}

const withDatabase = (url: string, name: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

const adminQuery = async (url: string, text: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

const main = async () => {
  execFileSync(process.execPath, ["scripts/bundle.mjs", "server"], { cwd: root, stdio: "inherit" })
  const workDir = mkdtempSync(join(tmpdir(), "verbatim-bench-memory-"))
  const database = `verbatim_bench_memory_${process.pid}`
  if (databaseUrl !== undefined) await adminQuery(databaseUrl, `CREATE DATABASE ${database}`)
  const figures: Array<StartFigures> = []
  try {
    for (let round = 0; round < rounds; round++) {
      const dataDir = join(workDir, `data-${round}`)
      figures.push(
        await measureStart("PGlite, first start (fresh data folder)", { VERBATIM_DATA_DIR: dataDir })
      )
      figures.push(await measureStart("PGlite, later start", { VERBATIM_DATA_DIR: dataDir }))
      if (databaseUrl !== undefined) {
        figures.push(
          await measureStart("PostgreSQL", {
            DATABASE_URL: withDatabase(databaseUrl, database),
            VERBATIM_DATA_DIR: join(workDir, "unused"),
            VERBATIM_SEED: "false"
          })
        )
      }
    }
  } finally {
    if (databaseUrl !== undefined)
      await adminQuery(databaseUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    rmSync(workDir, { recursive: true, force: true })
  }
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    command: ["node", ...startArguments(root)].join(" "),
    idleSeconds,
    settledSeconds,
    loadAverage: loadavg().map((n) => Math.round(n * 10) / 10),
    figures
  }
  const range = (values: ReadonlyArray<number>, digits = 0) =>
    `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`
  const cases = [...new Set(figures.map((f) => f.case))]
  process.stdout.write(
    [
      "",
      `| start (\`${report.command}\`, ${rounds} rounds, load average ${report.loadAverage.join(" ")}) | answered after ms | CPU s until then | RSS MB ${idleSeconds} s later | peak RSS MB | RSS MB ${settledSeconds} s later |`,
      "|---|---|---|---|---|---|",
      ...cases.map((name) => {
        const of = figures.filter((f) => f.case === name)
        return `| ${name} | ${range(of.map((f) => f.answeredMs))} | ${range(
          of.map((f) => f.cpuSeconds),
          2
        )} | ${range(of.map((f) => f.rssMb))} | ${range(of.map((f) => f.peakMb))} | ${range(
          of.map((f) => f.settledRssMb)
        )} |`
      }),
      "goals: first embedded start answers within 5 s; at rest PGlite <= 250 MB, PostgreSQL <= 150 MB",
      ""
    ].join("\n")
  )
  const resultsDir = join(root, "bench", "results")
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(
    join(resultsDir, `memory-${report.date.replace(/[:.]/g, "-")}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exitCode = 1
})
