/**
 * `pnpm --filter @verbatim/bench bench:ab <old server.mjs> <new server.mjs>`: two builds of the
 * server against each other and the bare yardstick (`bare.ts`), in alternating rounds on one
 * database and one Redis, for changes to the request path every endpoint shares. Each round
 * measures, for bare, old and new in turn:
 *
 * - `GET /credits` one request at a time (p50): the shared path (authentication, rate limit, access
 *   log, metrics, routing) plus one small read;
 * - `GET /credits` with BENCH_CONNECTIONS connections: requests per second and the server's CPU per
 *   request (user + system time from /proc over the run, divided by the requests answered);
 * - the rare-word search one request at a time, 12 ms apart (p50, and the server's CPU per search,
 *   its idle loops included), the same with one connection busy (`searchBurst`: back to back in
 *   bursts of 80 within the rate limit, p50), and owned `POST /transcribe` throughput.
 *
 * Settings: DATABASE_URL (required), REDIS_URL, BENCH_ROUNDS (3), BENCH_SECONDS (5),
 * BENCH_CONNECTIONS (10), BENCH_TRANSCRIPTS (10000), BENCH_LATENCY_REQUESTS (1000),
 * BENCH_PROFILE_DIR (none: when set, the new build writes a V8 CPU profile there; `profile.ts`),
 * BENCH_ONLY (all: a comma-separated list of creditsOne, creditsMany, search, searchBurst, transcribe).
 * Build a bundle to compare with `node scripts/bundle.mjs server` and copy `apps/server/dist`.
 */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Config, Console, Effect, Logger, LogLevel, Redacted } from "effect"
import type { LoadResult, LoadSpec } from "./load.js"
import { load, median, type Started, startProcess } from "./processes.js"
import { benchDatabase, ownedVideo, seedAccounts, seeding, seedOwned, seedSearchable } from "./seed.js"
import { startOptions } from "./start-command.js"
import { rareWord } from "./words.js"

const settings = Config.all({
  databaseUrl: Config.redacted("DATABASE_URL"),
  redisUrl: Config.option(Config.string("REDIS_URL")),
  rounds: Config.integer("BENCH_ROUNDS").pipe(Config.withDefault(3)),
  seconds: Config.integer("BENCH_SECONDS").pipe(Config.withDefault(5)),
  connections: Config.integer("BENCH_CONNECTIONS").pipe(Config.withDefault(10)),
  transcripts: Config.integer("BENCH_TRANSCRIPTS").pipe(Config.withDefault(10_000)),
  latencyRequests: Config.integer("BENCH_LATENCY_REQUESTS").pipe(Config.withDefault(1_000)),
  profileDir: Config.option(Config.string("BENCH_PROFILE_DIR")),
  only: Config.string("BENCH_ONLY").pipe(
    Config.withDefault("creditsOne,creditsMany,search,searchBurst,transcribe")
  )
})

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const benchDir = join(root, "bench")

/** User + system CPU of a process so far, in milliseconds (clock ticks of 10 ms). */
const cpuMs = (child: ChildProcess): number => {
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const program = Effect.gen(function* () {
  const config = yield* settings
  const [oldBundle, newBundle] = process.argv.slice(2)
  if (oldBundle === undefined || newBundle === undefined) {
    return yield* Effect.dieMessage("usage: ab.ts <old server.mjs> <new server.mjs>")
  }
  const workDir = mkdtempSync(join(tmpdir(), "verbatim-ab-"))
  const database = yield* benchDatabase(Redacted.value(config.databaseUrl))
  const accounts = yield* seedAccounts(database.url, 64)
  const data = seeding(1_000, config.transcripts)
  yield* seedSearchable(database.url, data, accounts[0]?.id ?? "", 0, config.transcripts)
  yield* seedOwned(database.url, data, accounts)
  const keys = accounts.map((a) => a.key)
  const redis = config.redisUrl._tag === "Some" ? config.redisUrl.value : undefined
  const node = startOptions(root)
  const profile =
    config.profileDir._tag === "Some" ? ["--cpu-prof", `--cpu-prof-dir=${config.profileDir.value}`] : []
  const service = (name: string, bundle: string) =>
    startProcess(
      name,
      [...node, ...(name === "new" ? profile : []), bundle],
      {
        DATABASE_URL: database.url,
        VERBATIM_PLATFORM: "demo",
        VERBATIM_SEED: "false",
        VERBATIM_LOG_FORMAT: "json",
        ...(redis === undefined
          ? {}
          : { REDIS_URL: redis, VERBATIM_REDIS_PREFIX: `ab-${name}-${process.pid}:` })
      },
      join(workDir, `${name}.log`)
    )
  const servers: ReadonlyArray<readonly [string, Started]> = [
    [
      "bare",
      yield* startProcess(
        "bare",
        ["--import", "tsx", join(benchDir, "src", "bare.ts")],
        { DATABASE_URL: database.url },
        join(workDir, "bare.log")
      )
    ],
    ["old", yield* service("old", oldBundle)],
    ["new", yield* service("new", newBundle)]
  ]
  yield* Console.log(`logs in ${workDir}`)
  const figures = new Map<string, Array<Record<string, number>>>()
  for (let round = 0; round < config.rounds; round++) {
    // Alternate the order of old and new from round to round.
    const order = round % 2 === 0 ? servers : [servers[0], servers[2], servers[1]]
    for (const entry of order) {
      if (entry === undefined) continue
      const [name, { child, base }] = entry
      const skip: LoadResult = { requestsPerSecond: 0, p50Ms: 0, p99Ms: 0, requests: 0, failed: 0 }
      const measured = (figure: string) => config.only.split(",").includes(figure)
      const creditsOne = !measured("creditsOne")
        ? skip
        : yield* load({
            mode: "latency",
            url: `${base}/credits`,
            method: "GET",
            keys,
            connections: 1,
            seconds: 0,
            requests: config.latencyRequests
          })
      const before = cpuMs(child)
      const creditsMany = !measured("creditsMany")
        ? skip
        : yield* load({
            mode: "throughput",
            url: `${base}/credits`,
            method: "GET",
            keys,
            connections: config.connections,
            seconds: config.seconds,
            requests: 0
          })
      const cpu = cpuMs(child) - before
      const beforeSearch = cpuMs(child)
      // The rare-word search, one at a time, 12 ms apart; then with one connection busy, in bursts.
      const rareSearch: LoadSpec = {
        mode: "latency",
        url: `${base}/transcripts?search=${rareWord}&limit=50`,
        method: "GET",
        keys: [keys[0] ?? ""],
        connections: 1,
        seconds: 0,
        requests: config.latencyRequests,
        minIntervalMs: 12
      }
      const search = !measured("search") ? skip : yield* load(rareSearch)
      const searchCpu = cpuMs(child) - beforeSearch
      const searchBurst = !measured("searchBurst") ? skip : yield* load({ ...rareSearch, burst: 80 })
      const transcribe = !measured("transcribe")
        ? skip
        : yield* load({
            mode: "throughput",
            url: `${base}/transcribe`,
            method: "POST",
            body: JSON.stringify({ video: ownedVideo, mode: "captions_only" }),
            keys,
            connections: config.connections,
            seconds: config.seconds,
            requests: 0
          })
      const row = {
        creditsP50: creditsOne.p50Ms,
        creditsRps: creditsMany.requestsPerSecond,
        creditsCpuUs: (cpu * 1000) / Math.max(1, creditsMany.requests),
        searchP50: search.p50Ms,
        searchCpuUs: (searchCpu * 1000) / Math.max(1, search.requests),
        searchBurstP50: searchBurst.p50Ms,
        transcribeRps: transcribe.requestsPerSecond,
        failed:
          creditsOne.failed + creditsMany.failed + search.failed + searchBurst.failed + transcribe.failed
      }
      figures.set(name, [...(figures.get(name) ?? []), row])
      yield* Console.log(`round ${round + 1} ${name}: ${JSON.stringify(row)}`)
    }
  }
  const of = (name: string, field: string) => median((figures.get(name) ?? []).map((row) => row[field] ?? 0))
  yield* Console.log("\nmedians:")
  for (const field of [
    "creditsP50",
    "creditsRps",
    "creditsCpuUs",
    "searchP50",
    "searchCpuUs",
    "searchBurstP50",
    "transcribeRps",
    "failed"
  ]) {
    yield* Console.log(
      `${field}: bare ${of("bare", field).toFixed(3)} old ${of("old", field).toFixed(3)} new ${of("new", field).toFixed(3)}`
    )
  }
  yield* Console.log(
    `transcribe ratio to bare: old ${(of("old", "transcribeRps") / of("bare", "transcribeRps")).toFixed(3)} new ${(of("new", "transcribeRps") / of("bare", "transcribeRps")).toFixed(3)}`
  )
}).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning))

Effect.runPromise(program).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exitCode = 1
})
