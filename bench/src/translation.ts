/**
 * `pnpm --filter @verbatim/bench bench:translation`: translation time per 1,000 segments.
 *
 * - `ai (stand-in)`: the AI engine (`@verbatim/llm`'s `AiTranslator`, default settings: chunks of
 *   at most 6,000 characters, 2 requests in flight) against the local stand-in Responses API,
 *   which answers at once: what Verbatim itself costs (chunking, prompts, HTTP, strict decoding of
 *   the answers, putting the pieces back), without a model's own time.
 * - `apertium`: the local engine on Debian's `eng-spa` pair, when installed
 *   (`scripts/install-translation.sh`).
 *
 * The transcript: BENCH_TRANSLATION_SEGMENTS segments (default 1,000) of about 60 characters, as
 * captions cut them. One warm-up run, then BENCH_TRANSLATION_RUNS timed runs (default 5), one at a
 * time. Results are printed as a table and written to bench/results/translation-<date>.json.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { ApertiumTranslator, defaultSettings, parseModes } from "@verbatim/apertium"
import { Translator } from "@verbatim/core"
import type { Language } from "@verbatim/domain"
import { AiTranslator } from "@verbatim/llm"
import { LlmStandIn, layerWithStandIn, translating } from "@verbatim/llm/testing"
import { Config, Console, Effect, Layer, Logger, LogLevel } from "effect"

const sentences = [
  "The team grew from five people to twenty in a single year.",
  "Every new person adds another line of communication to keep open.",
  "Small teams can hold the whole system in their heads.",
  "Write the contract between teams down, and keep it boring.",
  "The house on the corner is big and the garden is green."
]

interface Row {
  readonly engine: string
  readonly segments: number
  readonly characters: number
  readonly runs: number
  readonly requests_per_run: number | null
  readonly median_ms: number
  readonly min_ms: number
  readonly max_ms: number
  readonly ms_per_1000_segments: number
}

const measure = <R>(
  engine: string,
  segments: number,
  runs: number,
  requests: Effect.Effect<number, never, R>
) =>
  Effect.gen(function* () {
    const translator = yield* Translator
    const texts = Array.from({ length: segments }, (_, i) => `${sentences[i % sentences.length]} (${i})`)
    const input = { source: "en" as Language.LanguageCode, target: "es" as Language.LanguageCode, texts }
    const out = yield* translator.translate(input)
    if (out.length !== segments)
      return yield* Effect.dieMessage(`${engine}: ${out.length} texts for ${segments}`)
    const before = yield* requests
    const samples: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const start = performance.now()
      yield* translator.translate(input)
      samples.push(performance.now() - start)
    }
    const after = yield* requests
    const sorted = [...samples].sort((a, b) => a - b)
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0
    return {
      engine,
      segments,
      characters: texts.reduce((n, t) => n + t.length, 0),
      runs,
      requests_per_run: before < 0 ? null : (after - before) / runs,
      median_ms: Math.round(median),
      min_ms: Math.round(sorted[0] ?? 0),
      max_ms: Math.round(sorted.at(-1) ?? 0),
      ms_per_1000_segments: Math.round((median * 1000) / segments)
    } satisfies Row
  })

const apertiumInstalled = () => {
  try {
    return parseModes(execFileSync("apertium", ["-l"], { encoding: "utf8" })).includes("eng-spa")
  } catch {
    return false
  }
}

const program = Effect.gen(function* () {
  const runs = yield* Config.integer("BENCH_TRANSLATION_RUNS").pipe(Config.withDefault(5))
  const segments = yield* Config.integer("BENCH_TRANSLATION_SEGMENTS").pipe(Config.withDefault(1000))
  const rows: Array<Row> = []

  const model = layerWithStandIn({ respond: translating() })
  rows.push(
    yield* measure(
      "ai (stand-in)",
      segments,
      runs,
      Effect.map(LlmStandIn, (server) => server.requests.length)
    ).pipe(Effect.provide(Layer.merge(AiTranslator.layer.pipe(Layer.provide(model)), model)))
  )

  const apertium = apertiumInstalled()
  if (apertium) {
    rows.push(
      yield* measure("apertium (eng-spa)", segments, runs, Effect.succeed(-1)).pipe(
        Effect.provide(ApertiumTranslator.layer(defaultSettings))
      )
    )
  } else {
    yield* Console.log("apertium is not installed (scripts/install-translation.sh): its row is skipped")
  }

  yield* Console.table(rows)
  const out = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "results",
    `translation-${new Date().toISOString().slice(0, 10)}.json`
  )
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, apertium, runs, segments, rows }, null, 2)}\n`
  )
  yield* Console.log(`written to ${out}`)
})

program.pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning), NodeRuntime.runMain)
