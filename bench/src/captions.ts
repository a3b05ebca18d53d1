/**
 * `pnpm --filter @verbatim/bench bench:captions`: the YouTube adapter on the recorded answers
 * (`@verbatim/youtube/testing`, served from memory by a replaying `fetch`, so the figures are the
 * adapter's own work: request building, the watch page and `/player` reading, caption parsing,
 * the cache; no network).
 *
 *   1. Cold, per video: `video(id)` (`/player` of 200 kB decoded and checked; the first video of a
 *      session also reads a 1 MB watch page for the API key), then `captions(id, track)` for every
 *      track (json3, srv3 and the legacy format), each round on a fresh adapter (empty cache),
 *      BENCH_CAPTIONS_ROUNDS rounds (default 30).
 *   2. Parse only: a one-hour json3 body and a one-hour srv3 body (3,600 cues each), made up here.
 *   3. Cache hits: `captions(id, track)` of a cached track, BENCH_CAPTIONS_HITS times (default 20,000).
 *
 * Results are printed as a table and written to bench/results/captions-<date>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { VideoPlatform } from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { parseCaptions } from "@verbatim/youtube"
import { recordedVideos, recordedYouTube, replayFetch, replayLayer } from "@verbatim/youtube/testing"
import { Config, Console, Effect, Either, Logger, LogLevel } from "effect"

const settings = Config.all({
  rounds: Config.integer("BENCH_CAPTIONS_ROUNDS").pipe(Config.withDefault(30)),
  hits: Config.integer("BENCH_CAPTIONS_HITS").pipe(Config.withDefault(20_000))
})

interface Row {
  readonly what: string
  readonly n: number
  readonly p50_ms: number
  readonly p95_ms: number
  readonly mean_ms: number
}

const row = (what: string, samples: ReadonlyArray<number>): Row => {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  const round = (x: number) => Math.round(x * 1000) / 1000
  return {
    what,
    n: samples.length,
    p50_ms: round(at(0.5)),
    p95_ms: round(at(0.95)),
    mean_ms: round(sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length))
  }
}

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.map(effect, (value) => [performance.now() - start, value] as const)
  })

const oneHour = (format: "json3" | "srv3"): string => {
  const cues = Array.from({ length: 3600 }, (_, i) => ({
    start: i * 1000,
    text: `cue number ${i} says something &amp; more, like a caption line would`
  }))
  return format === "json3"
    ? JSON.stringify({
        events: cues.map((c) => ({ tStartMs: c.start, dDurationMs: 2500, segs: [{ utf8: c.text }] }))
      })
    : `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${cues
        .map((c) => `<p t="${c.start}" d="2500" w="1"><s ac="0">${c.text}</s></p>`)
        .join("\n")}</body></timedtext>`
}

const program = Effect.gen(function* () {
  const { rounds, hits } = yield* settings
  const replay = replayFetch(recordedYouTube())
  const videos = [recordedVideos.captioned, recordedVideos.twoTracks].map((id) => id as Ids.VideoId)
  const rows: Array<Row> = []

  // Each round is a fresh adapter: the first video() of a session also reads a watch page (1 MB)
  // for the API key; the next ones ask /player only.
  const first: Array<number> = []
  const next: Array<number> = []
  const perTrack = new Map<string, Array<number>>()
  const whole = new Map<string, Array<number>>()
  for (let round = 0; round < rounds; round++) {
    yield* Effect.gen(function* () {
      const platform = yield* VideoPlatform
      for (const [i, id] of videos.entries()) {
        const [videoMs, video] = yield* timed(platform.video(id))
        ;(i === 0 ? first : next).push(videoMs)
        let total = videoMs
        for (const track of video.captionTracks) {
          const [ms] = yield* timed(platform.captions(id, track))
          const key = `${id} captions(${track.kind} ${track.language}) cold`
          perTrack.set(key, [...(perTrack.get(key) ?? []), ms])
          total += ms
        }
        const label = `${id} whole video: video() + ${video.captionTracks.length} tracks${i === 0 ? " (with the watch page)" : ""}`
        whole.set(label, [...(whole.get(label) ?? []), total])
      }
    }).pipe(Effect.provide(replayLayer(replay)))
  }
  rows.push(row(`video() first of a session: watch page + /player (${videos[0]})`, first))
  rows.push(row(`video() later in the session: /player only (${videos[1]})`, next))
  for (const [key, samples] of perTrack) rows.push(row(key, samples))
  for (const [key, samples] of whole) rows.push(row(key, samples))

  for (const format of ["json3", "srv3"] as const) {
    const body = oneHour(format)
    const samples = Array.from({ length: rounds }, () => {
      const start = performance.now()
      const parsed = parseCaptions(body, { rolling: true })
      if (Either.isLeft(parsed)) throw new Error(`the ${format} body did not parse`)
      return performance.now() - start
    })
    rows.push(row(`parse one hour of ${format} (3,600 cues, ${Math.round(body.length / 1024)} kB)`, samples))
  }

  yield* Effect.gen(function* () {
    const platform = yield* VideoPlatform
    const id = videos[0] as Ids.VideoId
    const [track] = (yield* platform.video(id)).captionTracks
    if (track === undefined) return yield* Effect.die("the recorded video has tracks")
    yield* platform.captions(id, track)
    const samples: Array<number> = []
    for (let i = 0; i < hits; i++) samples.push((yield* timed(platform.captions(id, track)))[0])
    rows.push(row(`captions() cache hit (${track.kind} ${track.language})`, samples))
    const videoHits: Array<number> = []
    for (let i = 0; i < hits; i++) videoHits.push((yield* timed(platform.video(id)))[0])
    rows.push(row("video() cache hit", videoHits))
  }).pipe(Effect.provide(replayLayer(replay)))

  if (replay.unmatched.length > 0) return yield* Effect.die(`unmatched requests: ${replay.unmatched.length}`)
  yield* Console.table(rows)
  const out = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "results",
    `captions-${new Date().toISOString().slice(0, 10)}.json`
  )
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify({ node: process.version, rounds, hits, rows }, null, 2)}\n`)
  yield* Console.log(`written to ${out}`)
})

program.pipe(Logger.withMinimumLogLevel(LogLevel.Warning), NodeRuntime.runMain)
