/**
 * `pnpm --filter @verbatim/bench bench:themes`: the local themes engine (`@verbatim/themes-local`)
 * on a 10,000-word English transcript (BENCH_THEMES_WORDS): the shipped catalogue's English caption
 * segments, cycled with their times shifted until the transcript holds that many words, as a
 * speaker's captions would run. The model loads once (timed apart); one warm-up run, then
 * BENCH_THEMES_RUNS timed runs (default 5) of the whole detection, one at a time.
 *
 * Results are printed as a table and written to bench/results/themes-<date>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { misplacedAnchors, ThemesEngine } from "@verbatim/core"
import { parseCatalogue, shippedCataloguePath } from "@verbatim/demo-platform"
import { Language, Transcript } from "@verbatim/domain"
import * as LocalThemes from "@verbatim/themes-local"
import { Config, Console, Effect, Either, Layer, Logger, LogLevel } from "effect"

const wordCount = (text: string) => text.split(/\s+/).filter((w) => w !== "").length

/** English caption segments of the catalogue, cycled (times shifted) up to `words` words. */
const transcriptOf = (words: number): ReadonlyArray<Transcript.Segment> => {
  const catalogue = Either.getOrThrow(
    parseCatalogue(readFileSync(shippedCataloguePath, "utf8"), shippedCataloguePath)
  )
  const source = catalogue.videos.flatMap((video) =>
    video.captionTracks.filter((t) => t.language === "en" && t.kind === "manual").flatMap((t) => t.segments)
  )
  const segments: Array<Transcript.Segment> = []
  let count = 0
  let offset = 0
  for (let i = 0; count < words; i++) {
    const s = source[i % source.length] as {
      readonly text: string
      readonly start: number
      readonly end: number
    }
    if (i > 0 && i % source.length === 0) offset = (segments.at(-1)?.end ?? 0) + 1_000
    segments.push(new Transcript.Segment({ text: s.text, start: offset + s.start, end: offset + s.end }))
    count += wordCount(s.text)
  }
  return segments
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places

const program = Effect.gen(function* () {
  const runs = yield* Config.integer("BENCH_THEMES_RUNS").pipe(Config.withDefault(5))
  const words = yield* Config.integer("BENCH_THEMES_WORDS").pipe(Config.withDefault(10_000))
  const segments = transcriptOf(words)
  const input = { videoId: "bench", language: Language.LanguageCode.make("en"), title: null, segments }

  const loadStart = performance.now()
  const context = yield* Layer.build(LocalThemes.layer())
  const loadMs = performance.now() - loadStart
  const engine = yield* Effect.provide(ThemesEngine, context)

  const first = yield* engine.detect(input)
  const misplaced = misplacedAnchors(segments, first)
  if (misplaced.length > 0)
    return yield* Effect.fail(`misplaced anchors: ${misplaced.slice(0, 3).join("; ")}`)
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    yield* engine.detect(input)
    samples.push(performance.now() - start)
  }
  const sorted = [...samples].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0
  const row = {
    words: segments.reduce((n, s) => n + wordCount(s.text), 0),
    segments: segments.length,
    runs,
    model_load_ms: Math.round(loadMs),
    median_ms: Math.round(median),
    min_ms: Math.round(sorted[0] ?? 0),
    max_ms: Math.round(sorted.at(-1) ?? 0),
    words_per_s: Math.round((words / median) * 1000),
    themes: first.themes.length,
    keywords: first.themes.reduce((n, t) => n + t.keywords.length, 0),
    moments: first.moments.length
  }
  yield* Console.table([row])
  yield* Console.log(`themes: ${first.themes.map((t) => `${t.name} (${round(t.share, 2)})`).join(", ")}`)
  const out = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "results",
    `themes-${new Date().toISOString().slice(0, 10)}.json`
  )
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, engine: "local", row }, null, 2)}\n`
  )
  yield* Console.log(`written to ${out}`)
})

program.pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning), NodeRuntime.runMain)
