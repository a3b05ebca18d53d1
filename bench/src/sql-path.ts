/**
 * `pnpm --filter @verbatim/bench bench:sql`: where the search's database time goes between the SQL
 * alone and the service's repository, on one seeded database, paced as `pnpm bench` paces its
 * searches (one every 12 ms). For the rare and the common word, in alternating rounds:
 *
 * - `client`: the search page statement from a `pg.Client` (the goals' "SQL alone");
 * - `pool`: the same from a default `pg.Pool`;
 * - `effect`: the same text through the service's `SqlClient` (`postgresLayer`: `@effect/sql-pg` on
 *   the service's pool, with its `statement_timeout`, `query_timeout` and prepared-statement hook);
 * - `repository`: `Transcripts.search`, the service's whole database step of GET /transcripts
 *   (parameters encoded, the statement on the direct lane of `@verbatim/db`'s `direct.ts`, the rows
 *   decoded).
 *
 * Each way is also run back to back, and this process's CPU per call reported. Measured at session
 * 9 (rare word, 10,000 transcripts, p50 ms): client 0.78-0.85, pool 0.81-0.84, effect 0.90-1.01,
 * repository 1.12-1.14 through the `SqlClient`, 0.92 on the direct lane.
 *
 * Settings: DATABASE_URL (required), BENCH_TRANSCRIPTS (10000), BENCH_LATENCY_REQUESTS (1000),
 * BENCH_ROUNDS (3).
 */

import { SqlClient } from "@effect/sql"
import { Transcripts } from "@verbatim/core"
import { postgresLayer, TranscriptsSql } from "@verbatim/db"
import type { Ids } from "@verbatim/domain"
import { Config, Console, Effect, Layer, Logger, LogLevel, Redacted, Runtime } from "effect"
import pg from "pg"
import { median, pacedP50 } from "./processes.js"
import { benchDatabase, seedAccounts, seeding, seedSearchable } from "./seed.js"
import { searchPage, searchParameters } from "./statements.js"
import { commonWord, rareWord } from "./words.js"

const settings = Config.all({
  databaseUrl: Config.redacted("DATABASE_URL"),
  transcripts: Config.integer("BENCH_TRANSCRIPTS").pipe(Config.withDefault(10_000)),
  requests: Config.integer("BENCH_LATENCY_REQUESTS").pipe(Config.withDefault(1_000)),
  rounds: Config.integer("BENCH_ROUNDS").pipe(Config.withDefault(3))
})

const intervalMs = 12

/** This process's CPU time (user + system) per call of `run`, back to back, in us. */
const cpuPerCall = async (requests: number, run: () => Promise<unknown>): Promise<number> => {
  const before = process.cpuUsage()
  for (let i = 0; i < requests; i++) await run()
  const used = process.cpuUsage(before)
  return Math.round((used.user + used.system) / requests)
}

const program = Effect.gen(function* () {
  const config = yield* settings
  const database = yield* benchDatabase(Redacted.value(config.databaseUrl))
  const accounts = yield* seedAccounts(database.url, 1)
  const searcher = accounts[0]?.id ?? ""
  yield* seedSearchable(database.url, seeding(1000, config.transcripts), searcher, 0, config.transcripts)

  const client = new pg.Client({ connectionString: database.url })
  yield* Effect.promise(() => client.connect())
  yield* Effect.addFinalizer(() => Effect.promise(() => client.end()))

  const pool = new pg.Pool({ connectionString: database.url, max: 10 })
  yield* Effect.addFinalizer(() => Effect.promise(() => pool.end()))
  // As the service runs without an OTLP endpoint: no spans (`apps/server/src/tracing.ts`).
  const layer = TranscriptsSql.layer.pipe(
    Layer.provideMerge(postgresLayer(Redacted.make(database.url))),
    Layer.merge(Layer.setTracerEnabled(false))
  )
  const runtime = yield* Layer.toRuntime(layer)
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | Transcripts>) =>
    Runtime.runPromise(runtime)(effect)

  const results: Record<string, Array<number>> = {}
  const cpus: Record<string, Array<number>> = {}
  for (let round = 0; round < config.rounds; round++) {
    for (const [label, word, requests] of [
      ["rare", rareWord, config.requests],
      ["common", commonWord, Math.max(50, Math.floor(config.requests / 5))]
    ] as const) {
      const parameters = searchParameters(searcher, word, 50, 0)
      const ways: ReadonlyArray<[string, () => Promise<unknown>]> = [
        ["client", () => client.query(searchPage, parameters)],
        ["pool", () => pool.query(searchPage, parameters)],
        [
          "effect",
          () =>
            run(
              Effect.flatMap(
                SqlClient.SqlClient,
                (sql) => sql.unsafe(searchPage, parameters).withoutTransform
              )
            )
        ],
        [
          "repository",
          () =>
            run(
              Effect.flatMap(Transcripts, (transcripts) =>
                transcripts.search(searcher as Ids.AccountId, {
                  search: word,
                  status: "succeeded",
                  offset: 0,
                  limit: 50,
                  includeSegments: false
                })
              )
            )
        ]
      ]
      for (const [way, query] of ways) {
        const p50 = yield* Effect.promise(() => pacedP50(query, requests, intervalMs, 50))
        const cpu = yield* Effect.promise(() => cpuPerCall(requests, query))
        const key = `${label} ${way}`
        results[key] = [...(results[key] ?? []), p50]
        cpus[key] = [...(cpus[key] ?? []), cpu]
        yield* Console.log(`round ${round + 1}: ${key} p50 ${p50} ms, ${cpu} us CPU per call`)
      }
    }
  }
  yield* Console.log(
    "\n| search | way | p50 ms, paced (median of rounds) | rounds | this process's CPU per call, back to back, us |\n|---|---|---|---|---|"
  )
  for (const [key, values] of Object.entries(results)) {
    const [label, way] = key.split(" ")
    yield* Console.log(
      `| ${label} | ${way} | ${median(values).toFixed(3)} | ${values.join(", ")} | ${median(cpus[key] ?? [])} |`
    )
  }
})

Effect.runPromise(program.pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning))).catch(
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 1
  }
)
