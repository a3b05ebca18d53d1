/**
 * `pnpm --filter @verbatim/bench bench:asr`: the local speech recognition engine
 * (`@verbatim/pocketsphinx`, settings from `VERBATIM_POCKETSPHINX_*`) on each shipped clip of
 * `packages/demo-platform/media`: the whole `transcribe` (input written to disk, ffmpeg conversion,
 * pocketsphinx with its model load, parsing), one warm-up run then BENCH_ASR_RUNS timed runs
 * (default 5), one at a time. The real-time factor is the median wall time over the clip's duration
 * (0.5 means a minute of audio takes 30 s); a last row joins the three clips into one 15 s input.
 * Needs the Debian packages (`scripts/install-speech.sh`).
 *
 * Results are printed as a table and written to bench/results/asr-<date>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { type AudioInput, SpeechToText } from "@verbatim/core"
import { Asr } from "@verbatim/domain"
import { detectWith, PocketsphinxConfig, PocketsphinxSpeech } from "@verbatim/pocketsphinx"
import { Config, Console, Effect, Either, Logger, LogLevel, Schema, Stream } from "effect"

const media = fileURLToPath(new URL("../../packages/demo-platform/media/", import.meta.url))

/** The shipped clips and their spoken text (packages/demo-platform/media/README.md). */
const clips = [
  {
    name: "welcome.wav",
    text: "Welcome to Verbatim. This is a short test of speech recognition on a small computer."
  },
  {
    name: "kitchen.wav",
    text: "Please put the green apples in the basket on the kitchen table. Then close the door."
  },
  { name: "library.wav", text: "The library opens at nine in the morning and closes at six in the evening." }
] as const

const read = (name: string) => new Uint8Array(readFileSync(join(media, name)))

/**
 * The three clips as one WAV (their sound after the 44-byte headers flite writes, joined): the
 * recogniser's start-up (model load) weighs less on longer audio.
 */
const joined = (): Uint8Array => {
  const sound = clips.map((clip) => read(clip.name).subarray(44))
  const size = sound.reduce((n, s) => n + s.length, 0)
  const wav = new Uint8Array(44 + size)
  wav.set(read(clips[0].name).subarray(0, 44), 0)
  const view = new DataView(wav.buffer)
  view.setUint32(4, 36 + size, true)
  view.setUint32(40, size, true)
  let at = 44
  for (const s of sound) {
    wav.set(s, at)
    at += s.length
  }
  return wav
}

const input = (name: string, bytes: () => Uint8Array): AudioInput => ({
  name: `clip ${name}`,
  mimeType: "audio/wav",
  contentLength: null,
  durationSeconds: null,
  bytes: Stream.suspend(() => Stream.make(bytes()))
})

const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []

/** Word error rate of `heard` against `said`. */
const wordErrorRate = (said: string, heard: string): number => {
  const r = words(said)
  const h = words(heard)
  let previous = Array.from({ length: h.length + 1 }, (_, j) => j)
  for (let i = 1; i <= r.length; i++) {
    const row = [i]
    for (let j = 1; j <= h.length; j++) {
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (r[i - 1] === h[j - 1] ? 0 : 1)
      )
    }
    previous = row
  }
  return (previous[h.length] ?? 0) / Math.max(1, r.length)
}

interface Row {
  readonly clip: string
  readonly audio_s: number
  readonly runs: number
  readonly median_ms: number
  readonly min_ms: number
  readonly max_ms: number
  readonly rtf: number
  readonly wer: number
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places

const program = Effect.gen(function* () {
  const runs = yield* Config.integer("BENCH_ASR_RUNS").pipe(Config.withDefault(5))
  const settings = yield* PocketsphinxConfig
  const found = yield* detectWith(settings)
  if (found._tag === "Missing") return yield* Effect.fail(found.reason)
  const options = Either.getOrThrow(Asr.normalise(Schema.decodeUnknownSync(Asr.AsrOptions)({})))

  const rows = yield* Effect.gen(function* () {
    const stt = yield* SpeechToText
    const rows: Array<Row> = []
    const cases = [
      ...clips.map((clip) => ({ ...clip, bytes: () => read(clip.name) })),
      { name: "all three joined", text: clips.map((clip) => clip.text).join(" "), bytes: joined }
    ]
    for (const clip of cases) {
      yield* stt.transcribe(input(clip.name, clip.bytes), options)
      const samples: Array<number> = []
      let durationMs = 0
      let text = ""
      for (let i = 0; i < runs; i++) {
        const start = performance.now()
        const result = yield* stt.transcribe(input(clip.name, clip.bytes), options)
        samples.push(performance.now() - start)
        durationMs = result.durationMs
        text = result.text
      }
      const sorted = [...samples].sort((a, b) => a - b)
      const median = sorted[Math.floor(sorted.length / 2)] ?? 0
      rows.push({
        clip: clip.name,
        audio_s: round(durationMs / 1000, 3),
        runs,
        median_ms: Math.round(median),
        min_ms: Math.round(sorted[0] ?? 0),
        max_ms: Math.round(sorted.at(-1) ?? 0),
        rtf: round(median / durationMs, 3),
        wer: round(wordErrorRate(clip.text, text), 3)
      })
    }
    return rows
  }).pipe(Effect.provide(PocketsphinxSpeech.layer({ ...settings, concurrency: 1 })))

  yield* Console.table(rows)
  const out = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "results",
    `asr-${new Date().toISOString().slice(0, 10)}.json`
  )
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, engine: found, runs, rows }, null, 2)}\n`
  )
  yield* Console.log(`written to ${out}`)
})

program.pipe(Logger.withMinimumLogLevel(LogLevel.Warning), NodeRuntime.runMain)
