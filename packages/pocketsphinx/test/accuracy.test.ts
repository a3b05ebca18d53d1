/**
 * The engine on the shipped clips: word error rate against their known text, the options that
 * change the text, pauses that split segments, and inputs in other containers (video included).
 */
import { join } from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { SpeechToText } from "@verbatim/core"
import { effectiveOptions } from "@verbatim/testkit"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { PocketsphinxSpeech } from "../src/index.js"
import {
  baseSettings,
  clip,
  clips,
  ffmpeg,
  fileInput,
  scratch,
  whenInstalled,
  wordErrorRate
} from "./support.js"

/** The bound every shipped clip holds here (measured: welcome 0, kitchen 0.06, library 0.07). */
const werBound = 0.25

const heard = (text: string, words: ReadonlyArray<string>) => {
  const said = new Set(text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [])
  return words.filter((w) => said.has(w))
}

whenInstalled(() => {
  const work = scratch("accuracy")
  const welcome = clip("welcome")
  const kitchen = clip("kitchen")
  const pauseMs = 1500
  const made = {
    twoSentences: join(work.dir, "two-sentences.wav"),
    mp4: join(work.dir, "kitchen.mp4"),
    webm: join(work.dir, "kitchen.webm"),
    mp3: join(work.dir, "kitchen.mp3"),
    ogg: join(work.dir, "kitchen-stereo-44k.ogg")
  }
  beforeAll(() => {
    ffmpeg(
      ...["-i", welcome.file, "-f", "lavfi", "-t", String(pauseMs / 1000), "-i", "anullsrc=r=16000:cl=mono"],
      ...["-i", kitchen.file, "-filter_complex", "[0][1][2]concat=n=3:v=0:a=1", "-c:a", "pcm_s16le"],
      made.twoSentences
    )
    const video = ["-f", "lavfi", "-i", "color=c=black:s=160x120:r=5", "-i", kitchen.file, "-shortest"]
    ffmpeg(...video, "-c:v", "mpeg4", "-c:a", "aac", "-b:a", "64k", made.mp4)
    ffmpeg(
      ...video,
      "-c:v",
      "libvpx",
      "-deadline",
      "realtime",
      "-cpu-used",
      "8",
      "-c:a",
      "libopus",
      made.webm
    )
    ffmpeg("-i", kitchen.file, "-c:a", "libmp3lame", "-q:a", "4", made.mp3)
    ffmpeg("-i", kitchen.file, "-ac", "2", "-ar", "44100", "-c:a", "libvorbis", made.ogg)
  })
  afterAll(() => work.remove())

  // Live clock: pocketsphinx and ffmpeg run as child processes.
  layer(PocketsphinxSpeech.layer(baseSettings), { excludeTestServices: true, timeout: 30_000 })(
    "pocketsphinx",
    (it) => {
      describe("word error rate on the shipped clips", () => {
        for (const c of clips) {
          it.effect(`${c.name}.wav: WER ≤ ${werBound} against its known text`, () =>
            Effect.gen(function* () {
              const stt = yield* SpeechToText
              const result = yield* stt.transcribe(fileInput(c.file), effectiveOptions({}))
              const wer = wordErrorRate(c.text, result.text)
              yield* Effect.logInfo("word error rate").pipe(
                Effect.annotateLogs({ clip: c.name, wer, heard: result.text })
              )
              expect(wer, result.text).toBeLessThanOrEqual(werBound)
              expect(Math.abs(result.durationMs - c.durationMs)).toBeLessThanOrEqual(1)
              // The default options: a capital at the start, a full stop at the end.
              expect(result.text).toMatch(/^[A-Z].*\.$/)
            })
          )
        }
      })

      it.effect(
        "formatting off: the recogniser's lowercase words, key terms as the request spells them",
        () =>
          Effect.gen(function* () {
            const stt = yield* SpeechToText
            const raw = yield* stt.transcribe(
              fileInput(welcome.file),
              effectiveOptions({ autoPunctuation: false, textFormatting: false, keyTerms: ["Verbatim"] })
            )
            expect(raw.text).toMatch(/^welcome [a-z' ]*computer$/i)
            expect(raw.text).toContain("Verbatim")
            expect(raw.text.replace("Verbatim", "verbatim")).toBe(raw.text.toLowerCase())
          })
      )

      it.effect(
        "a pause splits segments; each segment's words lie inside it; the duration is the real one",
        () =>
          Effect.gen(function* () {
            const stt = yield* SpeechToText
            const result = yield* stt.transcribe(
              fileInput(made.twoSentences),
              effectiveOptions({ language: "en-GB" })
            )
            expect(result.language).toBe("en-GB")
            expect(
              Math.abs(result.durationMs - (welcome.durationMs + pauseMs + kitchen.durationMs))
            ).toBeLessThanOrEqual(5)
            expect(result.segments.length).toBeGreaterThanOrEqual(2)
            const gap = result.segments.findIndex(
              (s, i) =>
                i > 0 &&
                s.start >= welcome.durationMs &&
                (result.segments[i - 1]?.end ?? 0) <= welcome.durationMs
            )
            expect(gap, JSON.stringify(result.segments.map((s) => [s.start, s.end, s.text]))).toBeGreaterThan(
              0
            )
            for (const s of result.segments) {
              for (const w of s.words ?? []) {
                expect(w.start).toBeGreaterThanOrEqual(s.start)
                expect(w.end).toBeLessThanOrEqual(s.end)
              }
            }
            expect(
              heard(result.text, [...welcome.contentWords, ...kitchen.contentWords]).length
            ).toBeGreaterThanOrEqual(12)
          })
      )

      describe("other containers, video included", () => {
        for (const [name, file, mimeType] of [
          ["video/mp4 (MPEG-4 video, AAC)", made.mp4, "video/mp4"],
          ["video/webm (VP8, Opus)", made.webm, 'video/webm; codecs="vp8, opus"'],
          ["audio/mpeg (MP3)", made.mp3, "audio/mpeg"],
          ["audio/ogg (Vorbis, stereo, 44.1 kHz)", made.ogg, "audio/ogg"]
        ] as const) {
          it.effect(`${name}: the speech is heard and the duration is the clip's`, () =>
            Effect.gen(function* () {
              const stt = yield* SpeechToText
              const result = yield* stt.transcribe(fileInput(file, mimeType), effectiveOptions({}))
              expect(Math.abs(result.durationMs - kitchen.durationMs)).toBeLessThanOrEqual(250)
              expect(heard(result.text, kitchen.contentWords).length, result.text).toBeGreaterThanOrEqual(6)
              expect(wordErrorRate(kitchen.text, result.text), result.text).toBeLessThanOrEqual(0.35)
            })
          )
        }
      })
    }
  )
})
