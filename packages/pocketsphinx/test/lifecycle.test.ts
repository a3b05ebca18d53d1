/**
 * What a recognition leaves behind: nothing. The working directory is removed and every child
 * process is gone after success, failure, time limit and interruption; recognitions wait for a
 * turn beyond the concurrency setting; the recogniser's own failures say whether a retry can help.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { AudioReadError, SpeechToText } from "@verbatim/core"
import { effectiveOptions } from "@verbatim/testkit"
import { Duration, Effect, Exit, Fiber, Layer, Schedule, Stream } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type PocketsphinxSettings, PocketsphinxSpeech } from "../src/index.js"
import {
  bytesInput,
  clip,
  ffmpeg,
  fileInput,
  inTmp,
  listDir,
  processesMentioning,
  scratch,
  settingsWith,
  whenInstalled
} from "./support.js"

const options = effectiveOptions({})

/** Runs `body` with an engine whose working directories go to a fresh directory, then checks it is left empty. */
const inScratch = <A, E>(
  name: string,
  overrides: Partial<PocketsphinxSettings>,
  body: (dir: string) => Effect.Effect<A, E, SpeechToText>
) =>
  Effect.acquireUseRelease(
    Effect.sync(() => scratch(name)),
    (work) =>
      Effect.gen(function* () {
        const result = yield* body(work.dir).pipe(
          Effect.provide(PocketsphinxSpeech.layer({ ...inTmp(work.dir), ...overrides }))
        )
        expect(listDir(work.dir), "the working directory is removed").toEqual([])
        expect(processesMentioning(work.dir), "no child process is left").toEqual([])
        return result
      }),
    (work) => Effect.sync(work.remove)
  )

/** Waits until a child process whose command line mentions both texts runs. */
const childRunning = (dir: string, binary: string) =>
  Effect.suspend(() =>
    processesMentioning(dir).some((p) => p.includes(binary)) ? Effect.void : Effect.fail("not yet")
  ).pipe(Effect.retry(Schedule.spaced(Duration.millis(10)).pipe(Schedule.upTo(Duration.seconds(20)))))

whenInstalled(() => {
  const work = scratch("lifecycle")
  const welcome = clip("welcome")
  const long = join(work.dir, "long.wav")
  beforeAll(() => {
    // 30 s of speech: long enough to interrupt the recogniser while it runs.
    const parts = Array.from({ length: 6 }, () => ["-i", welcome.file]).flat()
    ffmpeg(...parts, "-filter_complex", "concat=n=6:v=0:a=1", "-c:a", "pcm_s16le", long)
  })
  afterAll(() => work.remove())

  // Live clock: the recogniser and the converter run as child processes.
  describe("cleanup", () => {
    it.live("after a recognition", () =>
      inScratch("done", {}, () =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const result = yield* stt.transcribe(fileInput(welcome.file), options)
          expect(result.words.length).toBeGreaterThan(0)
        })
      )
    )

    it.live("after input the converter cannot read, and after a source that breaks", () =>
      inScratch("failed", {}, (dir) =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const notAudio = yield* Effect.flip(
            stt.transcribe(bytesInput(new Uint8Array(4096).fill(7)), options)
          )
          expect(notAudio).toMatchObject({ _tag: "SpeechFailed", retryable: false })
          // The converter names its input by path; the reason (a job's error) keeps only its last part.
          if (notAudio._tag === "SpeechFailed") {
            expect(notAudio.reason).toContain("input")
            expect(notAudio.reason).not.toContain(dir)
            expect(notAudio.reason).not.toContain("verbatim-asr-")
          }
          const broken = yield* Effect.flip(
            stt.transcribe(
              {
                ...fileInput(welcome.file),
                bytes: Stream.concat(
                  Stream.make(new Uint8Array(1024)),
                  Stream.fail(new AudioReadError({ reason: "storage timed out", retryable: true }))
                )
              },
              options
            )
          )
          expect(broken).toMatchObject({ _tag: "SpeechFailed", retryable: true })
          if (broken._tag === "SpeechFailed") expect(broken.reason).toContain("storage timed out")
        })
      )
    )

    it.live("after an interruption while the recogniser runs: it is killed", () =>
      inScratch("interrupted", {}, (dir) =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const fiber = yield* Effect.fork(stt.transcribe(fileInput(long), options))
          yield* childRunning(dir, "pocketsphinx_continuous")
          const exit = yield* Fiber.interrupt(fiber)
          expect(Exit.isInterrupted(exit)).toBe(true)
        })
      )
    )

    it.live("after an interruption while the input is still arriving", () =>
      inScratch("arriving", {}, (dir) =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const endless = {
            ...fileInput(welcome.file),
            bytes: Stream.concat(Stream.make(new Uint8Array(64)), Stream.never)
          }
          const fiber = yield* Effect.fork(stt.transcribe(endless, options))
          yield* Effect.suspend(() =>
            listDir(dir).length > 0 ? Effect.void : Effect.fail("no directory yet")
          ).pipe(Effect.retry(Schedule.spaced(Duration.millis(10)).pipe(Schedule.upTo(Duration.seconds(10)))))
          yield* Fiber.interrupt(fiber)
        })
      )
    )

    it.live("after the time limit: the recogniser is killed and a retry may help", () =>
      inScratch("limit", { minTimeout: Duration.millis(1), timeoutFactor: 0.0001 }, () =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const failure = yield* Effect.flip(stt.transcribe(fileInput(long), options))
          expect(failure).toMatchObject({ _tag: "SpeechFailed", retryable: true })
          if (failure._tag === "SpeechFailed") expect(failure.reason).toMatch(/took longer than/)
        })
      )
    )
  })

  // Live clock: the recogniser and the converter run as child processes.
  describe("with a stand-in recogniser", () => {
    /** A shell script in place of pocketsphinx_continuous. */
    const standIn = (name: string, script: string) => {
      const file = join(work.dir, name)
      writeFileSync(file, `#!/bin/sh\n${script}\n`)
      chmodSync(file, 0o755)
      return file
    }
    const spans = join(work.dir, "spans.log")
    const timed = () =>
      standIn(
        "timed.sh",
        `echo "start $(date +%s%N)" >> ${spans}\nsleep 0.4\necho "end $(date +%s%N)" >> ${spans}\nprintf 'hello 0.100 0.500 0.9\\nworld 0.510 0.900 0.9\\n'`
      )
    /** The [start, end] of each run the stand-in logged, in ns, by start. */
    const runs = () => {
      const lines = readFileSync(spans, "utf8").trim().split("\n")
      writeFileSync(spans, "")
      const starts = lines.filter((l) => l.startsWith("start")).map((l) => Number(l.split(" ")[1]))
      const ends = lines.filter((l) => l.startsWith("end")).map((l) => Number(l.split(" ")[1]))
      starts.sort((a, b) => a - b)
      ends.sort((a, b) => a - b)
      return starts.map((s, i) => [s, ends[i] ?? 0] as const)
    }
    const three = Effect.gen(function* () {
      const stt = yield* SpeechToText
      const results = yield* Effect.all(
        Array.from({ length: 3 }, () => stt.transcribe(fileInput(welcome.file), options)),
        { concurrency: "unbounded" }
      )
      for (const r of results) expect(r.text).toBe("Hello world.")
    })

    it.live("concurrency 1: one recognition at a time", () =>
      inScratch("one", { recogniser: timed(), concurrency: 1 }, () => three).pipe(
        Effect.andThen(() => {
          const ran = runs()
          expect(ran).toHaveLength(3)
          for (let i = 1; i < ran.length; i++)
            expect(ran[i]?.[0]).toBeGreaterThanOrEqual(ran[i - 1]?.[1] ?? 0)
        })
      )
    )

    it.live("concurrency 3: recognitions overlap", () =>
      inScratch("three", { recogniser: timed(), concurrency: 3 }, () => three).pipe(
        Effect.andThen(() => {
          const ran = runs()
          expect(ran).toHaveLength(3)
          expect(ran.some(([start], i) => i > 0 && start < (ran[i - 1]?.[1] ?? 0))).toBe(true)
        })
      )
    )

    it.live("a recogniser that fails: a retry cannot help, its message is kept without its paths", () =>
      inScratch(
        "fails",
        // $2 is the WAV file in the working directory (-infile <wav>).
        { recogniser: standIn("fails.sh", `echo "ERROR: the model is broken, reading '$2'" >&2\nexit 3`) },
        (dir) =>
          Effect.gen(function* () {
            const stt = yield* SpeechToText
            const failure = yield* Effect.flip(stt.transcribe(fileInput(welcome.file), options))
            expect(failure).toMatchObject({ _tag: "SpeechFailed", retryable: false })
            if (failure._tag === "SpeechFailed") {
              expect(failure.reason).toContain("exit 3")
              expect(failure.reason).toContain("the model is broken, reading 'audio.wav'")
              expect(failure.reason).not.toContain(dir)
            }
          })
      )
    )

    it.live("a recogniser killed by someone else: a retry may help", () =>
      inScratch("killed", { recogniser: standIn("killed.sh", "kill -9 $$") }, () =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const failure = yield* Effect.flip(stt.transcribe(fileInput(welcome.file), options))
          expect(failure).toMatchObject({ _tag: "SpeechFailed", retryable: true })
        })
      )
    )

    it.live("no speech heard: a retry cannot help", () =>
      inScratch(
        "silent",
        { recogniser: standIn("silent.sh", "printf '<s> 0.000 0.500 1.0\\n</s> 0.510 0.600 1.0\\n'") },
        () =>
          Effect.gen(function* () {
            const stt = yield* SpeechToText
            const failure = yield* Effect.flip(stt.transcribe(fileInput(welcome.file), options))
            expect(failure).toMatchObject({ _tag: "SpeechFailed", retryable: false })
            if (failure._tag === "SpeechFailed") expect(failure.reason).toContain("no speech")
          })
      )
    )
  })

  it.live("settings: a layer per settings builds with the defaults overridden", () =>
    Effect.gen(function* () {
      const stt = yield* SpeechToText
      yield* stt.supports(options)
    }).pipe(Effect.provide(Layer.fresh(PocketsphinxSpeech.layer(settingsWith({ concurrency: 2 })))))
  )
})
