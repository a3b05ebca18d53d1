/**
 * The contract of the `SpeechToText` port, as one suite that every engine runs (pocketsphinx on
 * shipped clips, AssemblyAI against its local stand-in): `speechToTextContract(name, layer, cases)`.
 * The cases name what the engine is given; the suite asserts the laws the ASR job relies on:
 * whole-millisecond, ordered times inside the audio, words inside their segments, the real
 * duration, the content words heard, refusals that name the option and the engine, and failures
 * that say whether a retry can help.
 */
import { layer } from "@effect/vitest"
import { type AudioInput, AudioReadError, SpeechToText } from "@verbatim/core"
import { Api, Asr, type Transcript } from "@verbatim/domain"
import { Effect, Either, type Layer, Schema, Stream } from "effect"
import { expect } from "vitest"
import { segmentIssues } from "./video-platform-contract.js"

/** Raw `asr_options` as a request would carry them. */
export type RawAsrOptions = Partial<typeof Asr.AsrOptions.Encoded>

export interface SpeechClip {
  /** A fresh input each call (the stream is read once). */
  readonly audio: () => AudioInput
  /** The clip's real duration in ms. */
  readonly durationMs: number
  /** Content words spoken in the clip; at least `minHeard` of them must be recognised. */
  readonly contentWords: ReadonlyArray<string>
  readonly minHeard: number
}

export interface SpeechToTextCases {
  /** English speech with default options. */
  readonly clip: SpeechClip
  /** Bytes that are not audio: recognition fails and a retry cannot help. */
  readonly notAudio: () => AudioInput
  /** Options the engine refuses, and the option the refusal must name. */
  readonly unsupported: ReadonlyArray<{ readonly options: RawAsrOptions; readonly option: string }>
  /** Options whose intelligence features the engine fills, and the fields they must fill. */
  readonly intelligence: ReadonlyArray<{
    readonly options: RawAsrOptions
    readonly fields: ReadonlyArray<keyof typeof Api.AsrIntelligence.fields>
  }>
  /** Generous bound on one recognition, in ms (a local engine runs about 0.1x real time). */
  readonly timeoutMs?: number
}

export const effectiveOptions = (raw: RawAsrOptions): Asr.EffectiveAsrOptions => {
  const options = Schema.decodeUnknownSync(Asr.AsrOptions)(raw)
  return Either.getOrThrow(Asr.normalise(options))
}

/** What is wrong with a list of words, one line each; empty when it obeys every law. */
export const wordIssues = (
  words: ReadonlyArray<Transcript.Word>,
  within: { readonly start: number; readonly end: number }
): ReadonlyArray<string> =>
  words.flatMap((w, i) => {
    const issues: Array<string> = []
    if (!Number.isSafeInteger(w.start) || !Number.isSafeInteger(w.end))
      issues.push(`[${i}] times not whole ms`)
    if (w.end < w.start) issues.push(`[${i}] ends before it starts`)
    if (w.start < within.start || w.end > within.end)
      issues.push(`[${i}] ${w.start}-${w.end} lies outside ${within.start}-${within.end}`)
    const previous = words[i - 1]
    if (previous !== undefined && w.start < previous.start) issues.push(`[${i}] starts before the word above`)
    if (w.text.trim().length === 0) issues.push(`[${i}] is empty`)
    return issues
  })

const heard = (text: string, words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const said = new Set(text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [])
  return words.filter((w) => said.has(w.toLowerCase()))
}

const failingAudio = (retryable: boolean): AudioInput => ({
  name: "a stream that breaks",
  mimeType: "audio/wav",
  contentLength: null,
  durationSeconds: 3,
  bytes: Stream.concat(
    Stream.make(new Uint8Array(64)),
    Stream.fail(new AudioReadError({ reason: "the source went away", retryable }))
  )
})

export const speechToTextContract = <E>(
  name: string,
  engine: Layer.Layer<SpeechToText, E>,
  cases: SpeechToTextCases
): void => {
  const timeout = cases.timeoutMs ?? 60_000
  // Live clock: the engines run child processes or call a real HTTP server (the AssemblyAI stand-in).
  layer(engine, { excludeTestServices: true, timeout })(`SpeechToText contract: ${name}`, (it) => {
    it.effect(
      "recognises the clip: content words heard, real duration, ordered whole-ms times inside the audio",
      () =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const options = effectiveOptions({})
          yield* stt.supports(options)
          const result = yield* stt.transcribe(cases.clip.audio(), options)
          expect(result.language.split("-")[0]).toBe("en")
          expect(Math.abs(result.durationMs - cases.clip.durationMs)).toBeLessThanOrEqual(
            Math.max(500, cases.clip.durationMs * 0.05)
          )
          expect(result.text.trim().length).toBeGreaterThan(0)
          expect(heard(result.text, cases.clip.contentWords).length).toBeGreaterThanOrEqual(
            cases.clip.minHeard
          )
          expect(segmentIssues(result.segments)).toEqual([])
          const bound = { start: 0, end: result.durationMs + 250 }
          expect(wordIssues(result.words, bound)).toEqual([])
          for (const segment of result.segments) {
            expect(segment.end).toBeLessThanOrEqual(bound.end)
            expect(wordIssues(segment.words ?? [], { start: segment.start, end: segment.end })).toEqual([])
          }
          // The segments say the whole text, in order.
          const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")
          expect(squash(result.segments.map((s) => s.text).join(" "))).toBe(squash(result.text))
          expect(result.intelligence).toBeNull()
        }),
      timeout
    )

    it.effect("accepts the default options", () =>
      Effect.gen(function* () {
        const stt = yield* SpeechToText
        expect(stt.engine.length).toBeGreaterThan(0)
        yield* stt.supports(effectiveOptions({}))
      })
    )

    it.effect("refuses what it cannot honour, naming the option and the engine", () =>
      Effect.gen(function* () {
        const stt = yield* SpeechToText
        for (const { options, option } of cases.unsupported) {
          const refused = yield* Effect.flip(stt.supports(effectiveOptions(options)))
          expect(refused._tag).toBe("SpeechUnsupported")
          if (refused._tag === "SpeechUnsupported") {
            expect(refused.option).toBe(option)
            expect(refused.message).toContain(option)
            expect(refused.message).toContain(stt.engine)
          }
        }
      })
    )

    it.effect(
      "fills the intelligence fields of the features asked, and only those",
      () =>
        Effect.gen(function* () {
          const stt = yield* SpeechToText
          const all = Object.keys(Api.AsrIntelligence.fields) as ReadonlyArray<
            keyof typeof Api.AsrIntelligence.fields
          >
          for (const { options, fields } of cases.intelligence) {
            const effective = effectiveOptions(options)
            yield* stt.supports(effective)
            const result = yield* stt.transcribe(cases.clip.audio(), effective)
            const intelligence = result.intelligence
            expect(intelligence).not.toBeNull()
            for (const field of all) {
              const value = intelligence?.[field]
              if (fields.includes(field)) expect(value ?? null, field).not.toBeNull()
              else expect(value ?? null, field).toBeNull()
            }
          }
        }),
      timeout
    )

    it.effect("bytes that are not audio fail for good", () =>
      Effect.gen(function* () {
        const stt = yield* SpeechToText
        const failure = yield* Effect.flip(stt.transcribe(cases.notAudio(), effectiveOptions({})))
        expect(failure._tag).toBe("SpeechFailed")
        if (failure._tag === "SpeechFailed") expect(failure.retryable).toBe(false)
      })
    )

    it.effect("a source that breaks fails as the source said: retry when it may heal", () =>
      Effect.gen(function* () {
        const stt = yield* SpeechToText
        for (const retryable of [true, false]) {
          const failure = yield* Effect.flip(stt.transcribe(failingAudio(retryable), effectiveOptions({})))
          expect(failure._tag).toBe("SpeechFailed")
          if (failure._tag === "SpeechFailed") expect(failure.retryable).toBe(retryable)
        }
      })
    )
  })
}
